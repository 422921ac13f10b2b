// monitor/tiles-out.ts: the tlog-tiles part of `cookwala tiles` (tiles-cli.ts; docs/monitoring.md
// "Static tiles"): copies a log's tlog-tiles read path (c2sp.org/tlog-tiles) into DIR as static
// files that any web server, object store or CDN can serve: every Merkle hash tile (`tile/<L>/<N>`,
// partial `tile/<L>/<N>.p/<W>`) of the checkpoint's tree size, with --entries the entry bundles
// (`tile/entries/…`), then the `checkpoint` itself, last, so a reader never finds a checkpoint
// whose tiles are not there yet. Each file holds exactly the bytes the log served (checked for
// length), written atomically (temp file, fsync, rename), in order while the next few are read
// (readAhead); full tiles already present are immutable and skipped. So the same log at the same
// size gives the same files byte for byte. Left out: a Cookwala log's own read path (pages-out.ts),
// removing partial tiles of older sizes (the spec lets them stay), gzip.
// Invariant: the checkpoint file is replaced only after every tile of its size is in place.

import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileDurable } from '../platform/index.ts';
import { parseNote, parseCheckpointBody } from '../verifier/c2sp/note/index.ts';
import type { HttpGet } from './http-get.ts';
import { TILE_HEIGHT, TILE_WIDTH, tilePath } from './tiles.ts';
import { MAX_CHECKPOINT_BYTES } from './served.ts';

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

/** Whether a file is there (the copiers skip full tiles and pages already written). */
export const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** The log's checkpoint note under `prefix`, read and parsed (not verified: the copy holds what was served). */
export async function readNoteCheckpoint(get: HttpGet, prefix: string): Promise<{ bytes: Uint8Array; size: number }> {
  const cp = await get(prefix + 'checkpoint', { accept: 'text/plain', maxBytes: MAX_CHECKPOINT_BYTES });
  if (cp.status !== 200) throw new Error(`GET ${prefix}checkpoint: HTTP ${cp.status}`);
  const note = parseNote(cp.body);
  if (!note.ok) throw new Error(`${prefix}checkpoint: ${note.detail}`);
  const body = parseCheckpointBody(note.value.text);
  if (!body.ok) throw new Error(`${prefix}checkpoint: ${body.detail}`);
  return { bytes: cp.body, size: body.value.size };
}

/** Reads in flight ahead of the one being written: the log serves them while the disk syncs. */
export const READ_AHEAD = 4;

/**
 * `read(items[i])` for i in order with up to READ_AHEAD reads started past the one taken, so
 * writes stay in order while reads overlap. A read left unawaited (a round that failed) is caught.
 */
export function readAhead<T, R>(items: readonly T[], read: (t: T) => Promise<R>): (i: number) => Promise<R> {
  const started = new Map<number, Promise<R>>();
  let next = 0;
  return (i) => {
    for (; next < items.length && next <= i + READ_AHEAD; next++) {
      const p = read(items[next]);
      p.catch(() => undefined);
      started.set(next, p);
    }
    const p = started.get(i)!;
    started.delete(i);
    return p;
  };
}

/** Every tile of a tree of `size` (and its entry bundles when asked) not yet in `out`; full tiles already there are skipped. */
export async function writeTileFiles(get: HttpGet, prefix: string, out: string, size: number, entries: boolean): Promise<void> {
  const todo: string[] = [];
  for (const p of tilePaths(size, entries)) if (p.includes('.p/') || !(await exists(join(out, p)))) todo.push(p); // a full tile never changes
  const take = readAhead(todo, async (p) => {
    const r = await get(prefix + p, { maxBytes: 32 * TILE_WIDTH * 2 + 2 * TILE_WIDTH });
    if (r.status !== 200) throw new Error(`GET ${prefix}${p}: HTTP ${r.status}`);
    const w = p.includes('.p/') ? Number(p.slice(p.lastIndexOf('/') + 1)) : TILE_WIDTH;
    if (!p.startsWith('tile/entries/') && r.body.length !== 32 * w) throw new Error(`${p}: ${r.body.length} bytes, ${32 * w} due`);
    return r.body;
  });
  for (const [i, p] of todo.entries()) await writeFileAt(join(out, p), await take(i));
}

/** Writes `bytes` to `file` atomically and durably, its directory made first. */
export async function writeFileAt(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileDurable(file, bytes);
}

/** One copy of the current checkpoint and its tiles; returns the size written. */
export async function writeTiles(get: HttpGet, prefix: string, out: string, o: { entries?: boolean } = {}): Promise<number> {
  const cp = await readNoteCheckpoint(get, prefix);
  await writeTileFiles(get, prefix, out, cp.size, o.entries === true);
  await writeFileAt(join(out, 'checkpoint'), cp.bytes);
  return cp.size;
}
