// web/src/explorer/entry-page.ts: one entry on its own, at /logs/{log}/entries/{seq} (docs/design.md
// §12b, §7): its seq, event id, event hash and entry hash with copy buttons and the link to share,
// its payload (or its erasure record, linking the erasure entry; an erasure entry links the one it
// erased), and an EventProof built from the API's answers and checked in the page as `cookwala
// verify-event` checks it (entry hash, device signature, RFC 6962 inclusion in the checkpoint's
// root), offered as a download. An entry no published checkpoint covers yet, or whose proof could
// not be fetched, stays pending and is retried (retryProof, from live.ts) once a checkpoint covers
// it. Left out: the checkpoint it is checked against (checkpoint-panel.ts). Invariant: an
// inclusion is shown as verified only when verifyEventProof accepted the proof in this page.

import { buildEventProof, verifyEventProof } from '../../../verifier/bundle/index.ts';
import type { Entry } from '../../../verifier/documents/index.ts';
import type { CloudEvent } from '../../../verifier/cloudevent/index.ts';
import { byId, copyButton, download, fill, h, num } from '../lib/dom.ts';
import { getJson, getNdjson, HttpError, logPath } from '../lib/http.ts';
import { badge, check, currentView, errorNote, fileSafe, type View } from './view.ts';
import { routeOf } from './router.ts';

let onChoose: (v: View, seq: number) => void = () => undefined;
export function setEntryLinks(f: (v: View, seq: number) => void): void {
  onChoose = f;
}

const shown = new WeakMap<View, { entry: Entry; event?: CloudEvent }>();

function entryLink(v: View, seq: number, text: string): HTMLElement {
  return h(
    'a',
    {
      href: routeOf(v.log, seq),
      onclick: (ev: Event) => {
        ev.preventDefault();
        onChoose(v, seq);
      },
    },
    text,
  );
}

function idRow(name: string, value: string, what: string): HTMLElement[] {
  return [h('dt', {}, name), h('dd', {}, h('code', { class: 'mono wrap' }, value), copyButton(value, what))];
}

export function closeEntry(): void {
  byId('entry').hidden = true;
  for (const tr of Array.from(byId('entry-rows').querySelectorAll('tr'))) tr.classList.remove('selected');
}

export async function openEntry(v: View, seq: number): Promise<void> {
  for (const tr of Array.from(byId('entry-rows').querySelectorAll('tr'))) tr.classList.toggle('selected', tr.dataset.seq === String(seq));
  v.open = { seq, proofPending: true };
  const box = byId('entry');
  box.hidden = false;
  fill(byId('entry-title'), `Entry ${num(seq)}`);
  const out = byId('entry-body');
  fill(out, h('p', { class: 'note' }, 'loading the entry, its payload and its inclusion proof…'));
  let entry: Entry | undefined;
  try {
    await getNdjson(`${logPath(v.log, '/entries')}?from=${seq}&to=${seq}`, (x) => {
      if ((x as Entry).seq === seq) entry = x as Entry;
    });
  } catch (e) {
    if (currentView() === v && v.open?.seq === seq) fill(out, errorNote(e));
    return;
  }
  if (currentView() !== v || v.open?.seq !== seq) return;
  if (!entry) {
    v.open.proofPending = false;
    fill(out, h('p', { class: 'error', id: 'entry-missing' }, `This log has no entry ${num(seq)} yet (head ${num(v.head ?? 0)}).`));
    return;
  }
  const e = entry;
  let event: CloudEvent | undefined;
  let payload: HTMLElement;
  let erasedBadge: HTMLElement | null = null;
  try {
    event = await getJson<CloudEvent>(logPath(v.log, `/events/${seq}`));
    const erases = e.ce.type === 'cookwala.log.erased' ? (event.data as { seq?: unknown } | undefined)?.seq : undefined;
    payload = h(
      'div',
      {},
      h('h3', {}, 'Payload (the CloudEvent)'),
      typeof erases === 'number' && Number.isSafeInteger(erases)
        ? h('p', { id: 'erases' }, 'This entry erased the payload of ', entryLink(v, erases, `entry ${num(erases)}`), '.')
        : null,
      h('pre', { id: 'payload', class: 'json' }, JSON.stringify(event, null, 2)),
    );
  } catch (err) {
    if (err instanceof HttpError && err.status === 410) {
      const rec = (err.body as { erasure?: { erasureSeq?: unknown } } | undefined)?.erasure;
      const by = typeof rec?.erasureSeq === 'number' ? rec.erasureSeq : undefined;
      erasedBadge = by !== undefined ? entryLink(v, by, `payload erased by entry ${num(by)}`) : badge('warn', 'payload erased');
      erasedBadge.classList.add('badge', 'erased');
      erasedBadge.id = 'erased-by';
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
  if (currentView() !== v || v.open?.seq !== seq) return;
  shown.set(v, { entry: e, event });
  const link = new URL(routeOf(v.log, seq), location.href).href;
  fill(
    out,
    h('div', { class: 'entry-head' }, h('span', {}, `${e.ce.type} from `, h('code', {}, e.ce.source)), erasedBadge),
    h(
      'dl',
      { class: 'facts', id: 'entry-ids' },
      ...idRow('link', link, 'the link to this entry'),
      ...idRow('seq', String(seq), 'the seq'),
      ...idRow('event id', e.ce.id, 'the event id'),
      ...idRow('event hash', e.eventHash, 'the event hash'),
      ...idRow('entry hash', e.hash, 'the entry hash'),
      h('dt', {}, 'sequenced'),
      h('dd', {}, e.sequencedAt),
      h('dt', {}, 'subject'),
      h('dd', {}, e.ce.subject ?? '–'),
    ),
    h('h3', {}, 'Inclusion'),
    h('div', { id: 'proof' }),
    payload,
    h('details', {}, h('summary', {}, 'The entry as logged'), h('pre', { class: 'json' }, JSON.stringify(e, null, 2))),
  );
  await retryProof(v);
  box.scrollIntoView({ block: 'nearest' });
}

/** Check (again) the inclusion proof of the open entry; it stays pending until one verifies or fails. */
export async function retryProof(v: View): Promise<void> {
  const o = v.open;
  const s = shown.get(v);
  if (!o || !s || s.entry.seq !== o.seq || !o.proofPending) return;
  const proofBox = byId('proof');
  const e = s.entry;
  const cp = v.checkpoint;
  if (!cp || e.seq > cp.seq) {
    fill(
      proofBox,
      h(
        'p',
        { id: 'proof-pending' },
        check(
          'warn',
          `not yet in a published checkpoint (the latest covers seq ${num(cp?.seq ?? 0)}): the inclusion proof is checked as soon as one covers entry ${num(e.seq)}`,
        ),
      ),
    );
    return;
  }
  if (!v.policy) {
    o.proofPending = false;
    fill(proofBox, check('warn', 'no policy: the proof cannot be checked'));
    return;
  }
  try {
    const inc = await getJson<{ proof: string[] }>(`${logPath(v.log, '/proof/inclusion')}?seq=${e.seq}&size=${cp.seq}`);
    if (currentView() !== v || v.open !== o) return;
    const proof = buildEventProof({ entry: e, event: s.event, proof: inc.proof, checkpoint: cp, keys: v.keys ?? [] });
    const r = verifyEventProof(proof, v.policy);
    o.proofPending = false;
    const verdict = r.ok
      ? check(
          'good',
          `✓ inclusion proof verified in this page: entry ${num(e.seq)} is in the checkpoint at seq ${num(cp.seq)} (root ${cp.root.slice(7, 19)}…), ${inc.proof.length} hashes; device signature by ${r.value.signedBy} checked${r.value.event ? '; payload matches the entry' : ''}`,
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
    if (currentView() !== v || v.open !== o) return;
    // Stays pending: the live loop asks again with the next answer.
    fill(proofBox, h('p', { id: 'proof-pending' }, check('warn', 'the inclusion proof could not be fetched; retrying: ')), errorNote(err));
  }
}
