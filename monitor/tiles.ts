// monitor/tiles.ts: a tlog-tiles reader (c2sp.org/tlog-tiles at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9) over any log's read prefix: ours (`/tlog/{log}/`), a
// static copy on a web server, or any C2SP log. It reads Merkle hash tiles (`tile/<L>/<N>[.p/<W>]`,
// 256 hashes of 32 bytes a full tile) of one tree size and gives the leaf hashes of a range and any
// complete node of that tree, each computed from the tiles the spec defines (a node of level l is
// the hash of 2^(l mod 8) consecutive hashes of tile level floor(l/8)). A tile of the wrong length
// is refused. Left out: entry bundles (the leaf data; a tree-only monitor needs the hashes alone),
// gzip, pruned logs (the minimum index is 0). Invariant: every hash returned is derived from bytes
// the log served for that tree size; nothing is trusted until the caller compares it with a root
// a verified checkpoint signed.

import { hashChildren, type Hash32 } from '../verifier/merkle/index.ts';
import { formatTileIndex } from '../verifier/c2sp/index.ts';
import type { HttpGet } from './http-get.ts';

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;

/** The tlog-tiles spelling of a tile index: 1234067 -> x001/x234/067. */
export const tileIndexPath = formatTileIndex;

/** `tile/<L>/<N>` or `tile/<L>/<N>.p/<W>` for a partial tile of width W (1..255). */
export function tilePath(level: number | 'entries', index: number, width: number): string {
  const p = `tile/${level}/${tileIndexPath(index)}`;
  return width === TILE_WIDTH ? p : `${p}.p/${width}`;
}

export class TileError extends Error {
  override readonly name = 'TileError';
}

export interface TileReader {
  readonly size: number;
  /** Leaf hashes of leaves [from, to) of the tree (0-based indices). */
  leafHashes(from: number, to: number): Promise<Hash32[]>;
  /** The complete node (level, index) of the tree; a TileError when the tree has no such node. */
  node(level: number, index: number): Promise<Hash32>;
  readonly tilesRead: number;
}

/** A reader of the tiles of a tree of `size` leaves under `prefix` (ending in '/'). */
export function createTileReader(get: HttpGet, prefix: string, size: number): TileReader {
  const cache = new Map<string, Promise<Uint8Array>>();
  let read = 0;

  /** Complete nodes at tree level 8t in a tree of `size`. */
  const nodesAt = (t: number) => Math.floor(size / 2 ** (TILE_HEIGHT * t));

  function tile(t: number, k: number): Promise<Uint8Array> {
    const width = Math.min(TILE_WIDTH, nodesAt(t) - k * TILE_WIDTH);
    if (width <= 0) return Promise.reject(new TileError(`tile ${t}/${k} is beyond a tree of ${size}`));
    const path = tilePath(t, k, width);
    let p = cache.get(path);
    if (!p) {
      p = (async () => {
        const r = await get(prefix + path, { maxBytes: 32 * TILE_WIDTH });
        read++;
        if (r.status !== 200) throw new TileError(`${path}: HTTP ${r.status}`);
        if (r.body.length !== 32 * width) throw new TileError(`${path}: ${r.body.length} bytes where ${32 * width} are due`);
        return r.body;
      })();
      cache.set(path, p);
      if (cache.size > 64) cache.delete(cache.keys().next().value as string);
    }
    return p;
  }

  /** The hash at tree level 8t, index i (a tile entry). */
  async function entry(t: number, i: number): Promise<Hash32> {
    const b = await tile(t, Math.floor(i / TILE_WIDTH));
    const o = (i % TILE_WIDTH) * 32;
    return b.subarray(o, o + 32);
  }

  async function node(level: number, index: number): Promise<Hash32> {
    if (!Number.isSafeInteger(level) || level < 0 || level > 63) throw new TileError(`no tree level ${level}`);
    if ((index + 1) * 2 ** level > size) throw new TileError(`node [${level}, ${index}] is not complete in a tree of ${size}`);
    const t = Math.floor(level / TILE_HEIGHT);
    const r = level % TILE_HEIGHT;
    const first = index * 2 ** r;
    let row: Hash32[] = [];
    for (let i = 0; i < 2 ** r; i++) row.push(await entry(t, first + i));
    while (row.length > 1) {
      const up: Hash32[] = [];
      for (let i = 0; i < row.length; i += 2) up.push(hashChildren(row[i], row[i + 1]));
      row = up;
    }
    return row[0];
  }

  return {
    size,
    get tilesRead() {
      return read;
    },
    node,
    async leafHashes(from, to) {
      if (from < 0 || to > size || from > to) throw new TileError(`leaves [${from}, ${to}) of a tree of ${size}`);
      const out: Hash32[] = [];
      for (let i = from; i < to; i++) out.push(await entry(0, i));
      return out;
    },
  };
}
