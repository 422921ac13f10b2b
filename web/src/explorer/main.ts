// web/src/explorer/main.ts: the log explorer the sequencer serves at `/` (docs/design.md §12b). For the
// logs this sequencer hosts (/.well-known/cookwala.json), one button per log; for the chosen one
// the checkpoint panel (checkpoint-panel.ts: the latest checkpoint checked IN THE PAGE against the
// log's policy, its witnesses, the audit downloads), device liveness, and the entries with the
// inclusion proof of a chosen one (entries-panel.ts), paged and filtered by the controls wired
// here. Verification in the page uses the pure verifier on the noble backend, set here before
// anything is checked. Left out: the page's markup and styles (web/pages). Keyboard: entries are
// rows of buttons; everything else is native. Invariant: switching logs starts a new view, and
// nothing loaded for the old one is shown.

import { setDefaultBackend } from '../../../verifier/crypto/default.ts';
import { createNobleBackend } from '../../../verifier/crypto/noble.ts';
import { byId, fill, h } from '../lib/dom.ts';
import { getJson } from '../lib/http.ts';
import { badge, currentView, errorNote, setView, when, type View } from './view.ts';
import { loadCheckpoint } from './checkpoint-panel.ts';
import { loadEntries } from './entries-panel.ts';

setDefaultBackend(createNobleBackend());

interface DeviceState {
  log: string;
  source: string;
  lastSeen: string;
  state: 'alive' | 'lost';
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
  const v: View = { log, newer: [], subject: '', source: '' };
  setView(v);
  byId('entry').hidden = true;
  await Promise.all([loadCheckpoint(v), loadDevices(v)]);
  // The view shown now: another log may have been opened meanwhile.
  await loadEntries(currentView()!);
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

function wire(): void {
  byId('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const view = currentView();
    if (!view) return;
    view.subject = byId<HTMLInputElement>('f-subject').value.trim();
    view.source = byId<HTMLInputElement>('f-source').value.trim();
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
    if (view) void openLog(view.log);
  });
}

wire();
void main();
