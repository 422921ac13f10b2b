// web/src/explorer/entries-panel.ts: the entries of the log explorer (docs/design.md §12b, §7): newest
// first, a page at a time, filtered (subject and source prefixes, type) or searched (event id,
// event hash), streamed into the table as the NDJSON arrives (rows of buttons, so the keyboard
// reaches them), each row linking to the entry's own URL, with an erasure badge that links the
// erasure entry (the API's cookwala-erased header). Left out: the entry on its own (entry-page.ts)
// and the paging buttons' wiring (main.ts). Invariant: rows are written only for the current view.

import type { Entry } from '../../../verifier/documents/index.ts';
import { byId, fill, h, num } from '../lib/dom.ts';
import { getNdjson, logPath } from '../lib/http.ts';
import { badge, currentView, errorNote, isFiltered, type View } from './view.ts';
import { routeOf } from './router.ts';

const PAGE = 25;

/** Called with (view, seq) when a row is chosen; main.ts navigates. */
let onChoose: (v: View, seq: number) => void = () => undefined;
export function setOnChoose(f: (v: View, seq: number) => void): void {
  onChoose = f;
}

function queryOf(v: View): URLSearchParams {
  const q = new URLSearchParams({ order: 'desc', limit: String(PAGE) });
  if (v.to !== undefined) q.set('to', String(v.to));
  const f = v.filter;
  if (f.subjectPrefix) q.set('subjectPrefix', f.subjectPrefix);
  if (f.sourcePrefix) q.set('sourcePrefix', f.sourcePrefix);
  if (f.type) q.set('type', f.type);
  if (f.id) q.set('id', f.id);
  if (f.eventHash) q.set('eventHash', f.eventHash);
  return q;
}

/** `5:101,7:102` -> {5 -> 101, 7 -> 102}; anything malformed is dropped. */
function parseErased(s: string | null): Map<number, number> {
  const m = new Map<number, number>();
  for (const part of (s ?? '').split(',').slice(0, 1000)) {
    const x = /^([0-9]{1,16}):([0-9]{1,16})$/.exec(part);
    if (x) m.set(Number(x[1]), Number(x[2]));
  }
  return m;
}

export async function loadEntries(v: View, opts: { quiet?: boolean } = {}): Promise<Entry[]> {
  const body = byId('entry-rows');
  const rows: HTMLElement[] = [];
  const got: Entry[] = [];
  if (!opts.quiet) {
    fill(body);
    fill(byId('entries-note'), 'loading…');
  }
  byId('entries').setAttribute('aria-busy', 'true');
  try {
    const headers = await getNdjson(`${logPath(v.log, '/entries')}?${queryOf(v)}`, (item) => {
      if (currentView() !== v) return;
      got.push(item as Entry);
      const r = entryRow(v, item as Entry);
      if (opts.quiet) rows.push(r);
      else body.appendChild(r);
    });
    if (currentView() !== v) return got;
    const head = Number(headers.get('cookwala-head') ?? 0);
    if (Number.isSafeInteger(head)) v.head = head;
    v.erased = parseErased(headers.get('cookwala-erased'));
    for (const r of opts.quiet ? rows : Array.from(body.querySelectorAll('tr'))) markErased(v, r);
    if (opts.quiet) fill(body, ...rows);
    const next = headers.get('cookwala-next');
    v.next = next === null ? undefined : Number(next);
    const range = (headers.get('cookwala-range') ?? '').split('-').map(Number);
    const examined = range.length === 2 && range.every(Number.isSafeInteger) ? `${num(range[0])}–${num(range[1])}` : '';
    const filtered = isFiltered(v.filter) ? ' matching the filter' : '';
    fill(
      byId('entries-note'),
      got.length === 0
        ? `No entries${filtered} in seq ${examined} (head ${num(head)}).${v.next !== undefined ? ' Older ones remain: press Older.' : ''}`
        : `${num(got.length)} entries${filtered}, newest first; seq ${examined} examined of ${num(head)}.`,
    );
  } catch (e) {
    fill(byId('entries-note'), errorNote(e));
  }
  if (currentView() !== v) return got;
  byId<HTMLButtonElement>('older').disabled = v.next === undefined;
  byId<HTMLButtonElement>('newer').disabled = v.newer.length === 0;
  byId('entries').setAttribute('aria-busy', 'false');
  return got;
}

function markErased(v: View, tr: HTMLElement): void {
  const seq = Number(tr.dataset.seq);
  const by = v.erased.get(seq);
  const cell = tr.querySelector('td[data-label=type]');
  if (by === undefined || !cell) return;
  cell.appendChild(
    h(
      'a',
      {
        class: 'badge erased',
        href: routeOf(v.log, by),
        title: `payload erased by entry ${num(by)}`,
        onclick: (ev: Event) => {
          ev.preventDefault();
          ev.stopPropagation();
          onChoose(v, by);
        },
      },
      'erased',
    ),
  );
}

function entryRow(v: View, e: Entry): HTMLElement {
  const witnessed = v.checkpoint && e.seq <= v.checkpoint.seq;
  const open = () => onChoose(v, e.seq);
  return h(
    'tr',
    { class: 'clickable', 'data-seq': e.seq, onclick: open },
    h(
      'td',
      { 'data-label': 'seq' },
      h(
        'a',
        {
          class: 'linkish',
          href: routeOf(v.log, e.seq),
          'aria-label': `entry ${e.seq}`,
          onclick: (ev: Event) => {
            ev.preventDefault();
            ev.stopPropagation();
            open();
          },
        },
        num(e.seq),
      ),
    ),
    h(
      'td',
      { 'data-label': 'sequenced', class: 'nowrap' },
      h('time', { datetime: e.sequencedAt, title: e.sequencedAt }, e.sequencedAt.replace('T', ' ')),
    ),
    h('td', { 'data-label': 'type', class: 'nowrap' }, e.ce.type, ' '),
    h('td', { 'data-label': 'subject', class: 'wrap' }, e.ce.subject ?? ''),
    h('td', { 'data-label': 'source', class: 'wrap' }, e.ce.source),
    h('td', { 'data-label': 'witnessed' }, witnessed ? '✓' : badge('warn', 'not yet')),
  );
}
