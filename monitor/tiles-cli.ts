// monitor/tiles-cli.ts: `cookwala tiles (--url SEQUENCER --log ORIGIN | --tiles PREFIX) --out DIR
// [--entries] [--follow] [--interval MS]` (docs/monitoring.md "Static tiles"): one round, or one
// every interval with --follow, of copying a log's read path into DIR as static files: the
// tlog-tiles of any log (tiles-out.ts) and, for a Cookwala log with --entries, its descriptor, keys,
// entry pages and JSON checkpoint too (pages-out.ts), so a monitor follows it from the copy alone.
// Each round prints one `tiles_written` line. Left out: a round's own retries (the next round is
// the retry). Invariant: a round that fails writes no checkpoint; --follow goes on to the next.

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { httpGet } from './http-get.ts';
import { writeTiles } from './tiles-out.ts';
import { writeCookwalaCopy } from './pages-out.ts';

const USAGE = `usage: cookwala tiles (--url SEQUENCER --log ORIGIN | --tiles PREFIX) --out DIR [--entries] [--follow] [--interval MS]

Write a log's checkpoint and tlog-tiles as static files (reproducible byte for byte) for any web
server to serve; \`cookwala monitor\` reads them with "tiles": "<where DIR is served>/". With --url and
--entries the copy also holds the log's descriptor, keys, entry pages with payloads and JSON
checkpoint (cookwala/), so a monitor given "tiles" and no "url" reads the whole log from it.`;

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      url: { type: 'string' },
      log: { type: 'string' },
      tiles: { type: 'string' },
      out: { type: 'string' },
      entries: { type: 'boolean' },
      follow: { type: 'boolean' },
      interval: { type: 'string' },
    });
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.out) throw new UsageError('--out DIR is required');
    if (!values.tiles === !values.url) throw new UsageError('give --url SEQUENCER --log ORIGIN, or --tiles PREFIX');
    if (values.url && !values.log) throw new UsageError('--log ORIGIN goes with --url');
    const prefix = values.tiles
      ? values.tiles.replace(/\/*$/, '/')
      : `${values.url!.replace(/\/+$/, '')}/tlog/${encodeURIComponent(values.log!)}/`;
    const interval = values.interval === undefined ? 1000 : Number(values.interval);
    if (!Number.isSafeInteger(interval) || interval < 1) throw new UsageError('--interval is a positive integer (ms)');
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    do {
      try {
        const started = performance.now();
        const r =
          values.url && values.entries
            ? await writeCookwalaCopy(httpGet, values.url.replace(/\/+$/, ''), values.log!, values.out)
            : { size: await writeTiles(httpGet, prefix, values.out, { entries: values.entries }) };
        const ms = Math.round(performance.now() - started);
        process.stdout.write(JSON.stringify({ event: 'tiles_written', ...r, out: values.out, ms }) + '\n');
      } catch (e) {
        process.stderr.write(`cookwala tiles: ${(e as Error).message}\n`);
        if (!values.follow) return 2;
      }
      if (values.follow) await new Promise((r) => setTimeout(r, interval));
    } while (values.follow && !stop.signal.aborted);
    return 0;
  });
}
