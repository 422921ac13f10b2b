// web/src/explorer/live.ts: the explorer follows the log (docs/design.md §12b): it polls the latest
// published checkpoint, the witnesses answer and the head every interval (5 s, or `?poll=MS` in
// the page's URL, 250 ms to 60 s), backing off (doubling up to 60 s) while the sequencer does not
// answer; a new checkpoint (or new cosignatures, or a change in what the witnesses answered) is
// checked again in the page and shown, the newest entries are refreshed when the first page is
// shown, and the inclusion proof of an open entry that was pending is retried. The status line says
// how far the head is ahead of the witnessed checkpoint. Polling rather than server-sent events:
// nothing to bound on the server, and it works behind any proxy. Left out: what is rendered
// (checkpoint-panel.ts, entries-panel.ts, entry-page.ts). Invariant: one loop per view; a loop
// whose view is no longer current stops.

import type { Checkpoint } from '../../../verifier/documents/index.ts';
import { byId, fill, h, num } from '../lib/dom.ts';
import { getJson, getNdjson, HttpError, logPath } from '../lib/http.ts';
import { currentView, type View } from './view.ts';

const MAX_BACKOFF_MS = 60_000;

export function pollInterval(search: string): number {
  const p = Number(new URLSearchParams(search).get('poll'));
  return Number.isFinite(p) && p > 0 ? Math.min(60_000, Math.max(250, p)) : 5_000;
}

export interface LiveHooks {
  /** A checkpoint or the witnesses changed: render the checkpoint panel again (it refetches). */
  checkpointChanged(v: View): Promise<void>;
  /** The head moved: refresh the newest entries if they are shown. */
  headMoved(v: View): Promise<void>;
  /** After either: retry an open entry's pending proof. */
  retryProof(v: View): Promise<void>;
}

const stamp = (cp: Checkpoint | undefined) => (cp ? `${cp.seq}/${cp.root}/${cp.signature?.length ?? 0}` : 'none');

export function renderLive(v: View, state: string): void {
  const head = v.head;
  const cp = v.checkpoint?.seq;
  const parts: Array<HTMLElement | string> = [];
  if (head !== undefined) parts.push(h('span', { id: 'live-head' }, `head ${num(head)}`));
  parts.push(h('span', { id: 'live-witnessed' }, cp === undefined ? 'no witnessed checkpoint yet' : `witnessed checkpoint ${num(cp)}`));
  if (head !== undefined && cp !== undefined)
    parts.push(
      h(
        'span',
        { id: 'live-behind', class: head > cp ? 'badge warn' : 'badge good' },
        head > cp ? `${num(head - cp)} entries not yet witnessed` : 'every entry witnessed',
      ),
    );
  parts.push(h('span', { id: 'live-state', class: 'note' }, state));
  fill(byId('live'), ...parts);
}

export function startLive(v: View, interval: number, hooks: LiveHooks): void {
  let delay = interval;
  let lastCp = stamp(v.checkpoint);
  let lastWitnesses = '';
  let lastHead = v.head;
  const tick = async () => {
    if (currentView() !== v) return;
    try {
      const [cp, wit, head] = await Promise.all([
        getJson<Checkpoint>(logPath(v.log, '/checkpoint')).catch((e: unknown) => {
          if (e instanceof HttpError && e.status === 404) return undefined;
          throw e;
        }),
        getJson<unknown>(logPath(v.log, '/witnesses')).then((w) => JSON.stringify(w)),
        getNdjson(`${logPath(v.log, '/entries')}?order=desc&limit=1`, () => undefined).then((hd) => Number(hd.get('cookwala-head'))),
      ]);
      if (currentView() !== v) return;
      if (Number.isSafeInteger(head)) v.head = head;
      const s = stamp(cp);
      if (s !== lastCp || (lastWitnesses !== '' && wit !== lastWitnesses)) {
        lastCp = s;
        await hooks.checkpointChanged(v);
      }
      lastWitnesses = wit;
      if (v.head !== lastHead) {
        lastHead = v.head;
        await hooks.headMoved(v);
      }
      await hooks.retryProof(v);
      delay = interval;
      renderLive(v, `live: checked ${new Date().toLocaleTimeString('en-GB')}, every ${interval / 1000} s`);
    } catch (e) {
      if (currentView() !== v) return;
      delay = Math.min(MAX_BACKOFF_MS, delay * 2);
      renderLive(
        v,
        `the sequencer did not answer (${e instanceof Error ? e.message : String(e)}); retrying in ${Math.round(delay / 1000)} s`,
      );
    }
    if (currentView() === v) setTimeout(() => void tick(), delay);
  };
  renderLive(v, `live: every ${interval / 1000} s`);
  setTimeout(() => void tick(), delay);
}
