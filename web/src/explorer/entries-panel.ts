// web/src/explorer/entries-panel.ts: the entries of the log explorer (docs/design.md §12b, §7): newest
// first, a page at a time, filtered by subject and source, streamed into the table as the NDJSON
// arrives (rows of buttons, so the keyboard reaches them); and for a chosen entry its payload (or
// its erasure record) and an EventProof built from the API's answers and checked in the page as
// `cookwala verify-event` checks it (entry hash, device signature, RFC 6962 inclusion in the
// checkpoint's root), offered as a download. Left out: the checkpoint it is checked against
// (checkpoint-panel.ts) and the paging buttons' wiring (main.ts). Invariant: an inclusion is shown
// as verified only when verifyEventProof accepted the proof in this page.

import { buildEventProof, verifyEventProof } from '../../../verifier/documents/event-proof.ts';
import type { Entry } from '../../../verifier/documents/entry.ts';
import type { CloudEvent } from '../../../verifier/cloudevent/read.ts';
import { byId, download, fill, h } from '../lib/dom.ts';
import { getJson, getNdjson, HttpError, logPath } from '../lib/http.ts';
import { check, currentView, errorNote, fileSafe, type View } from './view.ts';

const PAGE = 25;

export async function loadEntries(v: View): Promise<void> {
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
      if (currentView() !== v) return;
      body.appendChild(entryRow(v, item as Entry));
      n++;
    });
    if (currentView() !== v) return;
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
  if (currentView() !== v) return;
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
