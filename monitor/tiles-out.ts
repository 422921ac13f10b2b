// monitor/tiles-out.ts: `cookwala tiles (--url SEQUENCER --log ORIGIN | --tiles PREFIX) --out DIR
// [--entries] [--follow] [--interval MS]` (docs/monitoring.md "Static tiles"): copies a log's
// tlog-tiles read path (c2sp.org/tlog-tiles) into DIR as static files that any web server, object
// store or CDN can serve: every Merkle hash tile (`tile/<L>/<N>`, partial `tile/<L>/<N>.p/<W>`) of
// the checkpoint's tree size, with --entries the entry bundles (`tile/entries/…`), then the
// `checkpoint` itself, last, so a reader never finds a checkpoint whose tiles are not there yet.
// Each file holds exactly the bytes the log served (checked for length), written atomically (temp
// file, fsync, rename); full tiles already present are immutable and skipped. So the same log at
// the same size gives the same files byte for byte. --follow repeats every interval. Left out:
// removing partial tiles of older sizes (the spec lets them stay), gzip.
// Invariant: the checkpoint file is replaced only after every tile of its size is in place.

import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileDurable } from '../platform/index.ts';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { parseNote, parseCheckpointBody } from '../verifier/c2sp/note/index.ts';
import { httpGet, text, type HttpGet } from './http-get.ts';
import { TILE_HEIGHT, TILE_WIDTH, tilePath } from './tiles.ts';
import { MAX_CHECKPOINT_BYTES } from './served.ts';

const USAGE = `usage: cookwala tiles (--url SEQUENCER --log ORIGIN | --tiles PREFIX) --out DIR [--entries] [--follow] [--interval MS]

Write a log's checkpoint and tlog-tiles as static files (reproducible byte for byte) for any web
server to serve; \`cookwala monitor\` reads them with "tiles": "<where DIR is served>/".`;

/** Every tile path of a tree of `size` leaves (hash tiles of every level, entry bundles when asked). */
export function tilePaths(size: number, entries: boolean): string[] {
  const out: string[] = [];
  const add = (level: number | 'entries', count: number) => {
    for (let k = 0; k * TILE_WIDTH < count; k++) out.push(tilePath(level, k, Math.min(TILE_WIDTH, count - k * TILE_WIDTH)));
  };
  for (let l = 0; ; l++) {
    const count = Math.floor(size / 2 ** (TILE_HEIGHT * l));
    if (count === 0) break;
    add(l, count);
  }
  if (entries) add('entries', size);
  return out;
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** One copy of the current checkpoint and its tiles; returns the size written. */
export async function writeTiles(get: HttpGet, prefix: string, out: string, o: { entries?: boolean } = {}): Promise<number> {
  const cp = await get(prefix + 'checkpoint', { accept: 'text/plain', maxBytes: MAX_CHECKPOINT_BYTES });
  if (cp.status !== 200) throw new Error(`GET ${prefix}checkpoint: HTTP ${cp.status}`);
  const note = parseNote(cp.body);
  if (!note.ok) throw new Error(`${prefix}checkpoint: ${note.detail}`);
  const body = parseCheckpointBody(note.value.text);
  if (!body.ok) throw new Error(`${prefix}checkpoint: ${body.detail}`);
  for (const p of tilePaths(body.value.size, o.entries === true)) {
    const file = join(out, p);
    if (!p.includes('.p/') && (await exists(file))) continue; // a full tile never changes
    const r = await get(prefix + p, { maxBytes: 32 * TILE_WIDTH * 2 + 2 * TILE_WIDTH });
    if (r.status !== 200) throw new Error(`GET ${prefix}${p}: HTTP ${r.status}`);
    const w = p.includes('.p/') ? Number(p.slice(p.lastIndexOf('/') + 1)) : TILE_WIDTH;
    if (!p.startsWith('tile/entries/') && r.body.length !== 32 * w) throw new Error(`${p}: ${r.body.length} bytes, ${32 * w} due`);
    await mkdir(dirname(file), { recursive: true });
    await writeFileDurable(file, Buffer.from(r.body) as unknown as string);
  }
  await mkdir(out, { recursive: true });
  await writeFileDurable(join(out, 'checkpoint'), text(cp.body));
  return body.value.size;
}

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
        const size = await writeTiles(httpGet, prefix, values.out, { entries: values.entries });
        process.stdout.write(JSON.stringify({ event: 'tiles_written', size, out: values.out }) + '\n');
      } catch (e) {
        process.stderr.write(`cookwala tiles: ${(e as Error).message}\n`);
        if (!values.follow) return 2;
      }
      if (values.follow) await new Promise((r) => setTimeout(r, interval));
    } while (values.follow && !stop.signal.aborted);
    return 0;
  });
}
