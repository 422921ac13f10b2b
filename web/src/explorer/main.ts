// web/src/explorer/main.ts: the log explorer the sequencer serves at `/` (DESIGN §12b). For the
// logs this sequencer hosts (/.well-known/cookwala.json): the latest published checkpoint (seq,
// root, time) checked IN THE PAGE with the pure verifier against the log's policy (the sequencer's
// signature, each witness cosignature, the quorum), which policy witnesses cosigned it and which
// did not with the last error the sequencer's witness client saw; device liveness; the entries,
// newest first, paged, filtered by subject and source, streamed into the table as they arrive;
// and for a chosen entry its payload (or its erasure record) and an EventProof built from the
// API's answers and checked in the page as `cookwala verify-event` checks it (entry hash, device
// signature, RFC 6962 inclusion in the checkpoint's root). The policy, the bundle, the event proof
// and the sequencer's C2SP vkey can be downloaded for offline checks. Trust note: the policy
// comes from the same server, so the page shows what it is checked against; an auditor compares
// it with the policy they hold. Keyboard: entries are rows of buttons; everything else is native.

import { setDefaultBackend } from '../../../verifier/crypto/default.ts';
import { createNobleBackend } from '../../../verifier/crypto/noble.ts';
import { verifyCheckpoint, type Checkpoint } from '../../../verifier/documents/checkpoint.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../../../verifier/documents/policy.ts';
import { buildEventProof, verifyEventProof } from '../../../verifier/documents/event-proof.ts';
import type { Entry } from '../../../verifier/documents/entry.ts';
import type { KeyRecord } from '../../../verifier/documents/keys.ts';
import type { CloudEvent } from '../../../verifier/cloudevent/read.ts';
import type { LogDescriptor } from '../../../verifier/documents/log-descriptor.ts';
import { age, byId, download, fill, h, shortHash } from '../lib/dom.ts';
import { getJson, getNdjson, HttpError, logPath } from '../lib/http.ts';

setDefaultBackend(createNobleBackend());

const PAGE = 25;

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
interface DeviceState {
  log: string;
  source: string;
  lastSeen: string;
  state: 'alive' | 'lost';
}

interface View {
  log: string;
  descriptor?: LogDescriptor;
  checkpoint?: Checkpoint;
  policy?: WitnessPolicy;
  witnessed?: string[];
  /** Entries page: the `to` it was read from (undefined: the head), and where older ones start. */
  to?: number;
  next?: number;
  newer: number[];
  subject: string;
  source: string;
  keys?: KeyRecord[];
}

let view: View | undefined;

function errorNote(e: unknown): HTMLElement {
  return h('p', { class: 'error' }, e instanceof Error ? e.message : String(e));
}

function badge(kind: 'good' | 'bad' | 'warn', text: string): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}

/** How long ago, with the exact time on hover and for screen readers' datetime. */
function when(t: string): HTMLElement {
  return h('time', { datetime: t, title: t }, age(t));
}

/** A verdict sentence (wraps, unlike a badge). */
function check(kind: 'good' | 'bad' | 'warn', text: string): HTMLElement {
  return h('span', { class: `check ${kind}` }, text);
}

async function main(): Promise<void> {
  const origin = location.host;
  fill(byId('host'), origin);
  let logs: string[];
  try {
    const wk = await getJson<{ logs?: unknown }>('/.well-known/cookwala.json');
    logs = Array.isArray(wk.logs) ? wk.logs.filter((x): x is string => typeof x === 'string') : [];
  } catch (e) {
    fill(byId('logs'), errorNote(e));
    return;
  }
  const nav = byId('logs');
  if (logs.length === 0) fill(nav, h('p', {}, 'This sequencer hosts no log yet.'));
  const wanted = new URLSearchParams(location.hash.slice(1)).get('log');
  const first = logs.includes(wanted ?? '') ? wanted! : logs[0];
  fill(
    nav,
    ...logs.map((l) =>
      h('button', { type: 'button', 'data-log': l, 'aria-current': l === first ? 'true' : 'false', onclick: () => void openLog(l) }, l),
    ),
  );
  if (first) await openLog(first);
}

async function openLog(log: string): Promise<void> {
  for (const b of Array.from(byId('logs').querySelectorAll('button')))
    b.setAttribute('aria-current', b.dataset.log === log ? 'true' : 'false');
  history.replaceState(null, '', `#log=${encodeURIComponent(log)}`);
  view = { log, newer: [], subject: '', source: '' };
  byId('entry').hidden = true;
  await Promise.all([loadCheckpoint(view), loadDevices(view)]);
  await loadEntries(view);
}

async function loadCheckpoint(v: View): Promise<void> {
  const box = byId('checkpoint');
  fill(box, h('p', { class: 'note' }, 'loading…'));
  const [desc, cp, pol, wit, keys] = await Promise.allSettled([
    getJson<LogDescriptor>(logPath(v.log)),
    getJson<Checkpoint>(logPath(v.log, '/checkpoint')),
    getJson<unknown>(logPath(v.log, '/policy')),
    getJson<WitnessesAnswer>(logPath(v.log, '/witnesses')),
    getJson<{ keys?: KeyRecord[] }>(logPath(v.log, '/keys')),
  ]);
  if (view !== v) return;
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

const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

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

async function loadDevices(v: View): Promise<void> {
  const box = byId('devices');
  try {
    const d = await getJson<{ devices: DeviceState[] }>('/v1/devices');
    if (view !== v) return;
    const mine = d.devices.filter((x) => x.log === v.log).sort((a, b) => a.source.localeCompare(b.source));
    if (mine.length === 0) return fill(box, h('p', { class: 'note' }, 'No device has spoken since the sequencer started.'));
    fill(
      box,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'stack', id: 'device-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'device (source)'),
              h('th', { scope: 'col' }, 'state'),
              h('th', { scope: 'col' }, 'last seen'),
            ),
          ),
          h(
            'tbody',
            {},
            ...mine.map((x) =>
              h(
                'tr',
                {},
                h('td', { 'data-label': 'device', class: 'wrap' }, h('code', {}, x.source)),
                h('td', { 'data-label': 'state' }, x.state === 'alive' ? badge('good', 'alive') : badge('bad', 'lost')),
                h('td', { 'data-label': 'last seen' }, when(x.lastSeen)),
              ),
            ),
          ),
        ),
      ),
    );
  } catch (e) {
    fill(box, errorNote(e));
  }
}

async function loadEntries(v: View): Promise<void> {
  const body = byId('entry-rows');
  fill(body);
  fill(byId('entries-note'), 'loading…');
  byId('entries').setAttribute('aria-busy', 'true');
  const q = new URLSearchParams({ order: 'desc', limit: String(PAGE) });
  if (v.to !== undefined) q.set('to', String(v.to));
  if (v.subject) q.set('subject', v.subject);
  if (v.source) q.set('source', v.source);
  let n = 0;
  try {
    const headers = await getNdjson(`${logPath(v.log, '/entries')}?${q}`, (item) => {
      if (view !== v) return;
      body.appendChild(entryRow(v, item as Entry));
      n++;
    });
    if (view !== v) return;
    const head = Number(headers.get('cookwala-head') ?? 0);
    const next = headers.get('cookwala-next');
    v.next = next === null ? undefined : Number(next);
    const range = headers.get('cookwala-range') ?? '';
    const filtered = v.subject || v.source ? ' matching the filter' : '';
    fill(
      byId('entries-note'),
      n === 0
        ? `No entries${filtered} in seq ${range} (head ${head}).`
        : `${n} entries${filtered}, newest first; seq ${range} examined of ${head}.`,
    );
  } catch (e) {
    fill(byId('entries-note'), errorNote(e));
  }
  if (view !== v) return;
  byId<HTMLButtonElement>('older').disabled = v.next === undefined;
  byId<HTMLButtonElement>('newer').disabled = v.newer.length === 0;
  byId('entries').setAttribute('aria-busy', 'false');
}

function entryRow(v: View, e: Entry): HTMLElement {
  const witnessed = v.checkpoint && e.seq <= v.checkpoint.seq;
  const open = () => void openEntry(v, e);
  return h(
    'tr',
    { class: 'clickable', 'data-seq': e.seq, onclick: open },
    h(
      'td',
      { 'data-label': 'seq' },
      h(
        'button',
        {
          type: 'button',
          class: 'linkish',
          'aria-label': `entry ${e.seq}`,
          onclick: (ev: Event) => {
            ev.stopPropagation();
            open();
          },
        },
        String(e.seq),
      ),
    ),
    h(
      'td',
      { 'data-label': 'sequenced', class: 'nowrap' },
      h('time', { datetime: e.sequencedAt, title: e.sequencedAt }, e.sequencedAt.replace('T', ' ')),
    ),
    h('td', { 'data-label': 'type', class: 'nowrap' }, e.ce.type),
    h('td', { 'data-label': 'subject', class: 'wrap' }, e.ce.subject ?? ''),
    h('td', { 'data-label': 'source', class: 'wrap' }, e.ce.source),
    h('td', { 'data-label': 'witnessed' }, witnessed ? '✓' : 'not yet'),
  );
}

async function openEntry(v: View, e: Entry): Promise<void> {
  for (const tr of Array.from(byId('entry-rows').querySelectorAll('tr'))) tr.classList.toggle('selected', tr.dataset.seq === String(e.seq));
  const box = byId('entry');
  box.hidden = false;
  fill(byId('entry-title'), `Entry ${e.seq}`);
  const out = byId('entry-body');
  fill(out, h('p', { class: 'note' }, 'loading the payload and the inclusion proof…'));
  let event: CloudEvent | undefined;
  let payload: HTMLElement;
  try {
    event = await getJson<CloudEvent>(logPath(v.log, `/events/${e.seq}`));
    payload = h(
      'div',
      {},
      h('h3', {}, 'Payload (the CloudEvent)'),
      h('pre', { id: 'payload', class: 'json' }, JSON.stringify(event, null, 2)),
    );
  } catch (err) {
    if (err instanceof HttpError && err.status === 410) {
      const rec = (err.body as { erasure?: unknown } | undefined)?.erasure;
      payload = h(
        'div',
        {},
        h('h3', {}, 'Payload erased'),
        h('p', {}, 'The payload was erased; the entry, its hash and the device signature remain. The erasure record:'),
        h('pre', { id: 'erasure', class: 'json' }, JSON.stringify(rec, null, 2)),
      );
    } else if (err instanceof HttpError && err.status === 404)
      payload = h('div', {}, h('h3', {}, 'No payload'), h('p', { class: 'note' }, 'This entry has no payload.'));
    else payload = errorNote(err);
  }
  const proofBox = h('div', { id: 'proof' });
  const cp = v.checkpoint;
  if (!cp || e.seq > cp.seq) fill(proofBox, check('warn', 'not yet in a published checkpoint: no inclusion proof yet'));
  else if (!v.policy) fill(proofBox, check('warn', 'no policy: the proof cannot be checked'));
  else {
    try {
      const inc = await getJson<{ proof: string[] }>(`${logPath(v.log, '/proof/inclusion')}?seq=${e.seq}&size=${cp.seq}`);
      const proof = buildEventProof({ entry: e, event, proof: inc.proof, checkpoint: cp, keys: v.keys ?? [] });
      const r = verifyEventProof(proof, v.policy);
      const verdict = r.ok
        ? check(
            'good',
            `✓ inclusion proof verified in this page: entry ${e.seq} is in the checkpoint at seq ${cp.seq} (root ${cp.root.slice(7, 19)}…), ${inc.proof.length} hashes; device signature by ${r.value.signedBy} checked${r.value.event ? '; payload matches the entry' : ''}`,
          )
        : check('bad', `✗ ${r.code}: ${r.detail}`);
      fill(
        proofBox,
        h('p', { id: 'proof-verdict' }, verdict),
        h(
          'p',
          { class: 'note' },
          'Checked as cookwala verify-event checks it: the entry hash recomputed, the RFC 6962 audit path folded into the root of the checkpoint, the checkpoint signatures against the policy shown above.',
        ),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              onclick: () => download(`${fileSafe(v.log)}.event-${e.seq}.proof.json`, JSON.stringify(proof, null, 2) + '\n'),
            },
            'Download this event proof',
          ),
        ),
      );
    } catch (err) {
      fill(proofBox, errorNote(err));
    }
  }
  fill(
    out,
    h('h3', {}, 'Inclusion'),
    proofBox,
    payload,
    h('details', {}, h('summary', {}, 'The entry as logged'), h('pre', { class: 'json' }, JSON.stringify(e, null, 2))),
  );
  box.scrollIntoView({ block: 'nearest' });
}

function wire(): void {
  byId('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!view) return;
    view.subject = byId<HTMLInputElement>('f-subject').value.trim();
    view.source = byId<HTMLInputElement>('f-source').value.trim();
    view.to = undefined;
    view.newer = [];
    void loadEntries(view);
  });
  byId('older').addEventListener('click', () => {
    if (!view || view.next === undefined) return;
    view.newer.push(view.to ?? Number.MAX_SAFE_INTEGER);
    view.to = view.next;
    void loadEntries(view);
  });
  byId('newer').addEventListener('click', () => {
    if (!view || view.newer.length === 0) return;
    const t = view.newer.pop()!;
    view.to = t === Number.MAX_SAFE_INTEGER ? undefined : t;
    void loadEntries(view);
  });
  byId('refresh').addEventListener('click', () => {
    if (view) void openLog(view.log);
  });
}

wire();
void main();
