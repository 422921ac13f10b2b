// web/src/explorer/checkpoint-panel.ts: the checkpoint panel of the log explorer (docs/design.md §12b, §4):
// the log's descriptor, its latest published checkpoint (seq, root, head, signing time) checked IN
// THE PAGE with the pure verifier against the log's policy (the sequencer's signature, each witness
// cosignature, the quorum), a table of the policy's witnesses (which cosigned, which did not, and
// the last error the sequencer's witness client saw from each), and the audit downloads (the
// policy, the bundle, the device keys, the sequencer's C2SP vkey). Trust note: the policy comes
// from the same server, so the page shows what it is checked against; an auditor compares it with
// the policy they hold. Left out: devices and entries (main.ts, entries-panel.ts). Invariant: a
// checkpoint is shown as verified only when verifyCheckpoint accepted it in this page.

import { verifyCheckpoint, type Checkpoint } from '../../../verifier/documents/checkpoint.ts';
import { readWitnessPolicy } from '../../../verifier/documents/policy.ts';
import type { KeyRecord } from '../../../verifier/documents/keys.ts';
import type { LogDescriptor } from '../../../verifier/documents/log-descriptor.ts';
import { age, byId, download, fill, h, shortHash } from '../lib/dom.ts';
import { getJson, HttpError, logPath } from '../lib/http.ts';
import { badge, check, currentView, errorNote, fileSafe, when, type View } from './view.ts';

interface WitnessesAnswer {
  log: string;
  quorum: number;
  witnesses: Array<{ kid: string; owner: string }>;
  publisher: null | {
    quorumMissing: boolean;
    reason: string | null;
    connections: Array<{
      addr: string;
      kid: string | null;
      knownSeq: number | null;
      lastCosignedSeq: number | null;
      lastError: string | null;
    }>;
  };
  vkey: string | null;
}

export async function loadCheckpoint(v: View): Promise<void> {
  const box = byId('checkpoint');
  fill(box, h('p', { class: 'note' }, 'loading…'));
  const [desc, cp, pol, wit, keys] = await Promise.allSettled([
    getJson<LogDescriptor>(logPath(v.log)),
    getJson<Checkpoint>(logPath(v.log, '/checkpoint')),
    getJson<unknown>(logPath(v.log, '/policy')),
    getJson<WitnessesAnswer>(logPath(v.log, '/witnesses')),
    getJson<{ keys?: KeyRecord[] }>(logPath(v.log, '/keys')),
  ]);
  if (currentView() !== v) return;
  if (desc.status === 'fulfilled') v.descriptor = desc.value;
  if (keys.status === 'fulfilled' && Array.isArray(keys.value.keys)) v.keys = keys.value.keys;
  if (pol.status === 'fulfilled') {
    const p = readWitnessPolicy(pol.value);
    if (p.ok) v.policy = p.value;
  }
  const parts: HTMLElement[] = [];
  if (v.descriptor)
    parts.push(
      h('p', { class: 'note' }, `mode ${v.descriptor.mode}, created ${v.descriptor.createdAt}, sequencer key ${v.descriptor.sequencer}`),
    );
  if (cp.status === 'rejected') {
    parts.push(
      h(
        'p',
        {},
        cp.reason instanceof HttpError && cp.reason.status === 404
          ? 'No checkpoint is published yet (it needs the witness quorum).'
          : errorNote(cp.reason),
      ),
    );
  } else {
    const c = cp.value;
    v.checkpoint = c;
    const seqSig = c.signature?.[0];
    let verdict: HTMLElement;
    if (!v.policy) verdict = check('warn', 'not checked: no policy');
    else {
      const r = verifyCheckpoint(c, v.policy);
      if (r.ok) {
        v.witnessed = r.value.witnesses;
        verdict = check(
          'good',
          `✓ verified in this page: sequencer signature and ${r.value.witnesses.length} of ${r.value.quorum} required cosignatures`,
        );
      } else verdict = check('bad', `✗ ${r.code}: ${r.detail}`);
    }
    parts.push(
      h('div', { class: 'cp-head' }, h('span', { class: 'big', id: 'cp-seq' }, `seq ${c.seq}`), verdict),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'root'),
        h('dd', { id: 'cp-root' }, h('code', { class: 'mono' }, c.root)),
        h('dt', {}, 'head'),
        h('dd', {}, shortHash(c.head)),
        h('dt', {}, 'signed'),
        h('dd', {}, seqSig ? `${seqSig.signedAt} (${age(seqSig.signedAt)}) by ${seqSig.kid}` : ''),
      ),
    );
  }
  parts.push(witnessTable(v, cp.status === 'fulfilled' ? cp.value : undefined, wit.status === 'fulfilled' ? wit.value : undefined));
  const vkey = wit.status === 'fulfilled' ? wit.value.vkey : null;
  fill(
    byId('audit'),
    h(
      'div',
      { class: 'actions' },
      v.policy
        ? h(
            'button',
            {
              type: 'button',
              id: 'dl-policy',
              onclick: () =>
                download(
                  `${fileSafe(v.log)}.policy.json`,
                  JSON.stringify(pol.status === 'fulfilled' ? pol.value : v.policy, null, 2) + '\n',
                ),
            },
            'Download the policy',
          )
        : null,
      h(
        'a',
        { class: 'button-link', href: logPath(v.log, '/bundle'), download: `${fileSafe(v.log)}.bundle.ndjson` },
        'Download the audit bundle',
      ),
      v.keys
        ? h(
            'button',
            {
              type: 'button',
              onclick: () => download(`${fileSafe(v.log)}.keys.json`, JSON.stringify({ kind: 'KeyCache', keys: v.keys }, null, 2) + '\n'),
            },
            'Download the device keys',
          )
        : null,
      h('a', { class: 'button-link', href: '/verifier.html' }, 'Open the offline verifier'),
    ),
  );
  if (vkey)
    byId('audit').appendChild(
      h(
        'p',
        { class: 'note' },
        'C2SP signed-note verifier key of the sequencer for this log: ',
        h('code', { id: 'vkey', class: 'mono' }, vkey),
      ),
    );
  fill(box, ...parts);
}

function witnessTable(v: View, cp: Checkpoint | undefined, w: WitnessesAnswer | undefined): HTMLElement {
  const policyWitnesses = v.policy?.witnesses ?? [];
  if (policyWitnesses.length === 0)
    return h('p', { class: 'note' }, 'The policy names no witnesses (quorum 0): checkpoints are unwitnessed.');
  const counted = new Set(v.witnessed ?? []);
  const sigs = new Map((cp?.signature ?? []).slice(1).map((s) => [s.kid, s]));
  const conns = w?.publisher?.connections ?? [];
  const rows = policyWitnesses.map((k) => {
    const s = sigs.get(k.kid);
    const conn = conns.find((c) => c.kid === k.kid);
    const status = counted.has(k.kid)
      ? badge('good', '✓ cosigned')
      : s
        ? badge('bad', '✗ cosignature does not verify')
        : badge('warn', 'did not cosign');
    return h(
      'tr',
      { 'data-kid': k.kid },
      h('td', { 'data-label': 'witness' }, h('code', {}, k.kid), h('div', { class: 'note' }, k.owner)),
      h('td', { 'data-label': 'this checkpoint' }, status, s ? h('div', { class: 'note' }, 'signed ', when(s.signedAt)) : null),
      h(
        'td',
        { 'data-label': 'last answer', class: 'wrap' },
        conn ? (conn.lastError ? h('span', { class: 'error' }, conn.lastError) : `cosigned seq ${conn.lastCosignedSeq ?? '–'}`) : '',
      ),
    );
  });
  // Connections that never cosigned cannot be matched to a kid: show what they last said.
  const unmatched = conns.filter((c) => !c.kid || !policyWitnesses.some((k) => k.kid === c.kid));
  const extra = unmatched.map((c) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'witness', class: 'wrap' }, h('code', {}, c.addr)),
      h('td', { 'data-label': 'this checkpoint' }, badge('warn', 'no cosignature yet')),
      h('td', { 'data-label': 'last answer', class: 'wrap' }, c.lastError ? h('span', { class: 'error' }, c.lastError) : 'no answer yet'),
    ),
  );
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack', id: 'witnesses' },
      h(
        'caption',
        {},
        `Witnesses (quorum ${v.policy?.quorum ?? w?.quorum ?? 0})${w?.publisher?.quorumMissing ? ' — quorum missing: ' + (w.publisher.reason ?? '') : ''}`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'witness'),
          h('th', { scope: 'col' }, 'this checkpoint'),
          h('th', { scope: 'col' }, 'last answer'),
        ),
      ),
      h('tbody', {}, ...rows, ...extra),
    ),
  );
}
