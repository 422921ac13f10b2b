// web/src/explorer/checkpoint-panel.ts: the checkpoint panel of the log explorer (docs/design.md §12b, §4):
// the log's descriptor, its latest published checkpoint (seq, root, head, signing time) checked IN
// THE PAGE with the pure verifier against the log's policy (the sequencer's signature, each witness
// cosignature, the quorum), the table of the policy's witnesses (witness-rows.ts: one row per
// witness, its live state), and the audit downloads (the
// policy, the bundle, the device keys, the sequencer's C2SP vkey). Trust note: the policy comes
// from the same server, so the page shows what it is checked against; an auditor compares it with
// the policy they hold. Left out: devices and entries (main.ts, entries-panel.ts). Invariant: a
// checkpoint is shown as verified only when verifyCheckpoint accepted it in this page.

import { verifyCheckpoint, type Checkpoint } from '../../../verifier/documents/index.ts';
import { readWitnessPolicy } from '../../../verifier/documents/index.ts';
import type { KeyRecord } from '../../../verifier/signing/index.ts';
import type { LogDescriptor } from '../../../verifier/documents/index.ts';
import { age, byId, download, fill, h, shortHash } from '../lib/dom.ts';
import { getJson, HttpError, logPath } from '../lib/http.ts';
import { check, currentView, errorNote, fileSafe, type View } from './view.ts';
import { cosignatureCount, witnessTable, type WitnessesAnswer } from './witness-rows.ts';

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
          `✓ verified in this page: sequencer signature and ${cosignatureCount(r.value.witnesses.length, r.value.quorum)}`,
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
  parts.push(witnessTable(v.policy, cp.status === 'fulfilled' ? cp.value : undefined, wit.status === 'fulfilled' ? wit.value : undefined));
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
