// web/src/explorer/main.ts: the log explorer the sequencer serves at `/`, `/logs/{log}` and
// `/logs/{log}/entries/{seq}` (docs/design.md §12b; router.ts). For the logs this sequencer hosts
// (/.well-known/cookwala.json), one link per log; for the chosen one the checkpoint panel
// (checkpoint-panel.ts: the latest checkpoint checked IN THE PAGE against the log's policy, its
// witnesses, the audit downloads), device liveness, the entries (entries-panel.ts: filtered and
// searched), the entry on its own with its inclusion proof (entry-page.ts), and the live loop that
// follows new checkpoints (live.ts). The search box takes a seq (opens the entry), an event hash
// or an event id. Verification in the page uses the pure verifier on the noble backend, set here
// before anything is checked. Left out: the page's markup and styles (web/pages). Keyboard:
// entries are links; everything else is native. Invariant: switching logs starts a new view, and
// nothing loaded for the old one is shown.

import { setDefaultBackend } from '../../../verifier/crypto/index.ts';
import { createNobleBackend } from '../../../verifier/crypto/index.ts';
import { byId, fill, h } from '../lib/dom.ts';
import { getJson } from '../lib/http.ts';
import { badge, currentView, errorNote, NO_FILTER, setView, when, type View } from './view.ts';
import { loadCheckpoint } from './checkpoint-panel.ts';
import { loadEntries, setOnChoose } from './entries-panel.ts';
import { closeEntry, openEntry, retryProof, setEntryLinks } from './entry-page.ts';
import { parseRoute, routeOf } from './router.ts';
import { pollInterval, renderLive, startLive } from './live.ts';

setDefaultBackend(createNobleBackend());

interface DeviceState {
  log: string;
  source: string;
  lastSeen: string;
  state: 'alive' | 'lost';
}

let logs: string[] = [];

async function main(): Promise<void> {
  fill(byId('host'), location.host);
  try {
    const wk = await getJson<{ logs?: unknown }>('/.well-known/cookwala.json');
    logs = Array.isArray(wk.logs) ? wk.logs.filter((x): x is string => typeof x === 'string') : [];
  } catch (e) {
    fill(byId('logs'), errorNote(e));
    return;
  }
  const nav = byId('logs');
  if (logs.length === 0) fill(nav, h('p', {}, 'This sequencer hosts no log yet.'));
  fill(
    nav,
    ...logs.map((l) =>
      h(
        'a',
        {
          class: 'button-link',
          href: routeOf(l),
          'data-log': l,
          onclick: (ev: Event) => {
            ev.preventDefault();
            navigate(l);
          },
        },
        l,
      ),
    ),
  );
  await follow();
}

/** Show what the URL names (after load, a link, or the back button). */
async function follow(): Promise<void> {
  const r = parseRoute(location.pathname, location.hash);
  const log = r.log !== undefined && logs.includes(r.log) ? r.log : logs[0];
  if (!log) return;
  if (r.log !== undefined && log !== r.log)
    fill(byId('entries-note'), errorNote(new Error(`this sequencer hosts no log ${r.log}; showing ${log}`)));
  const v = currentView();
  if (!v || v.log !== log) await openLog(log);
  const now = currentView()!;
  if (r.seq !== undefined) await openEntry(now, r.seq);
  else {
    now.open = undefined;
    closeEntry();
  }
}

function navigate(log: string, seq?: number): void {
  const url = routeOf(log, seq) + location.search;
  if (location.pathname + location.search !== url) history.pushState(null, '', url);
  void follow();
}

async function openLog(log: string): Promise<void> {
  for (const b of Array.from(byId('logs').querySelectorAll('a'))) b.setAttribute('aria-current', b.dataset.log === log ? 'true' : 'false');
  if (parseRoute(location.pathname, '').log !== log) history.replaceState(null, '', routeOf(log) + location.search);
  const v: View = { log, newer: [], filter: { ...NO_FILTER }, erased: new Map() };
  setView(v);
  closeEntry();
  await Promise.all([loadCheckpoint(v), loadDevices(v)]);
  // The view shown now: another log may have been opened meanwhile.
  if (currentView() !== v) return;
  await loadEntries(v);
  renderLive(v, '');
  startLive(v, pollInterval(location.search), {
    checkpointChanged: (x) => loadCheckpoint(x),
    headMoved: async (x) => {
      // The newest page, unfiltered or not, follows the head; an older page stays where it is.
      if (x.to === undefined && x.newer.length === 0) await loadEntries(x, { quiet: true });
    },
    retryProof,
  });
}

async function loadDevices(v: View): Promise<void> {
  const box = byId('devices');
  try {
    const d = await getJson<{ devices: DeviceState[] }>('/v1/devices');
    if (currentView() !== v) return;
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

/** A seq (opens the entry), an event hash, or else an event id. */
function search(v: View, q: string): void {
  const t = q.trim().replace(/[,\s_]/g, '');
  if (/^[0-9]{1,16}$/.test(t) && Number(t) >= 1) return navigate(v.log, Number(t));
  const hex = /^(sha256:)?([0-9a-f]{64})$/i.exec(q.trim());
  v.filter = { ...NO_FILTER, ...(hex ? { eventHash: `sha256:${hex[2].toLowerCase()}` } : { id: q.trim() }) };
  v.to = undefined;
  v.newer = [];
  void loadEntries(v).then((found) => {
    if (found.length === 1 && currentView() === v) navigate(v.log, found[0].seq);
  });
}

function wire(): void {
  byId('search').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const view = currentView();
    const q = byId<HTMLInputElement>('q').value;
    if (view && q.trim()) search(view, q);
  });
  byId('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const view = currentView();
    if (!view) return;
    view.filter = {
      ...NO_FILTER,
      subjectPrefix: byId<HTMLInputElement>('f-subject').value.trim(),
      sourcePrefix: byId<HTMLInputElement>('f-source').value.trim(),
      type: byId<HTMLInputElement>('f-type').value.trim(),
    };
    view.to = undefined;
    view.newer = [];
    void loadEntries(view);
  });
  byId('older').addEventListener('click', () => {
    const view = currentView();
    if (!view || view.next === undefined) return;
    view.newer.push(view.to ?? Number.MAX_SAFE_INTEGER);
    view.to = view.next;
    void loadEntries(view);
  });
  byId('newer').addEventListener('click', () => {
    const view = currentView();
    if (!view || view.newer.length === 0) return;
    const t = view.newer.pop()!;
    view.to = t === Number.MAX_SAFE_INTEGER ? undefined : t;
    void loadEntries(view);
  });
  byId('refresh').addEventListener('click', () => {
    const view = currentView();
    if (view) void openLog(view.log).then(() => follow());
  });
  addEventListener('popstate', () => void follow());
  setOnChoose((v, seq) => navigate(v.log, seq));
  setEntryLinks((v, seq) => navigate(v.log, seq));
}

wire();
void main();
