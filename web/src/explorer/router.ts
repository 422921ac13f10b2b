// web/src/explorer/router.ts: the explorer's stable URLs (docs/design.md §12b): `/logs/{log}` for a log
// and `/logs/{log}/entries/{seq}` for one entry (the log name percent-encoded as one segment, as
// the API's /v1/logs/{log} takes it), which the sequencer serves as the explorer page; `/` and the
// older `/#log=` open the first or named log. Left out: what a view shows (main.ts). Invariant:
// parseRoute(routeOf(x)) is x for every log name and seq.

export interface Route {
  log?: string;
  seq?: number;
}

export function routeOf(log: string, seq?: number): string {
  return `/logs/${encodeURIComponent(log)}${seq === undefined ? '' : `/entries/${seq}`}`;
}

export function parseRoute(pathname: string, hash: string): Route {
  const m = /^\/logs\/([^/]+)(?:\/entries\/([0-9]{1,16}))?\/?$/.exec(pathname);
  if (m) {
    let log: string;
    try {
      log = decodeURIComponent(m[1]);
    } catch {
      return {};
    }
    const seq = m[2] === undefined ? undefined : Number(m[2]);
    return { log, seq: seq !== undefined && Number.isSafeInteger(seq) && seq >= 1 ? seq : undefined };
  }
  const log = new URLSearchParams(hash.slice(1)).get('log');
  return log ? { log } : {};
}
