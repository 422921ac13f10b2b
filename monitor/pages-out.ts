// monitor/pages-out.ts: the Cookwala part of `cookwala tiles --url SEQUENCER --log ORIGIN --out DIR
// --entries` (docs/monitoring.md "Static tiles"): beside the tlog-tiles read path (tiles-out.ts),
// the rest of what the monitor reads of a Cookwala log, as static files: `DIR/cookwala/log.json` (the
// signed descriptor, `GET /v1/logs/{log}`), `DIR/cookwala/keys.json` (`GET …/keys`), the entry pages
// `DIR/cookwala/entries/<N>[.p/<W>]` (pages.ts: the entries route's bytes with payloads, 256 entries a
// page aligned as the entry bundles), and `DIR/cookwala/checkpoint.json` (the JSON Checkpoint and its
// cosignatures) at the same size as the note `checkpoint`: both are read first, read again while
// their sizes differ (bounded), and written last, after every tile and page of that size. Full
// pages already there are immutable and skipped, except for erasures (hash_only logs, docs/design.md
// §4): when a page being written holds erasure entries, the pages of the seqs they erase are read
// again and written first (their partial files of older sizes too, which held the payload), then
// that page, so a copy killed in between redoes it (the page with the erasure entry
// is not there yet). The same log at the same size with the same erasures gives the same files.
// Left out: gzip, removing partial pages of older sizes (the spec lets partial tiles of older
// sizes stay; a monitor in the middle of a step may still read one). Invariant: both checkpoint files are replaced only after
// every page and tile of their size is in place, and no full page older than an erasure entry
// written holds the payload it erased.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { parseJson } from '../verifier/documents/index.ts';
import type { HttpGet } from './http-get.ts';
import { text } from './http-get.ts';
import { MAX_CHECKPOINT_BYTES } from './served.ts';
import { MAX_PAGE_BYTES } from './entries-step.ts';
import { erasedSeqs, pageIndexOf, pageOf, pagePath, pagesOf, PAGE_ENTRIES, type PageRef } from './pages.ts';
import { exists, readAhead, readNoteCheckpoint, writeFileAt, writeTileFiles } from './tiles-out.ts';

/** Reads of both checkpoints before their sizes must agree. */
const CHECKPOINT_READS = 5;
const PAYLOAD_LINE = Buffer.from('{"kind":"Payload"');

export interface CopyResult {
  size: number;
  /** Pages written this round. */
  pages: number;
  /** Full pages read again and written for an erasure entry in a page written this round. */
  erasures: number;
}

/** Reads `url` whole (HTTP 200) within `maxBytes`. */
async function getOk(get: HttpGet, url: string, maxBytes: number, accept?: string): Promise<Uint8Array> {
  const r = await get(url, { accept, maxBytes, timeoutMs: 120_000 });
  if (r.status !== 200) throw new Error(`GET ${url}: HTTP ${r.status}`);
  return r.body;
}

/** The note checkpoint and the JSON checkpoint at one size, read again (bounded) while they differ. */
async function readCheckpoints(
  get: HttpGet,
  prefix: string,
  logUrl: string,
): Promise<{ note: Uint8Array; json: Uint8Array; size: number }> {
  const sizes: string[] = [];
  for (let i = 0; i < CHECKPOINT_READS; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 50 * i));
    const note = await readNoteCheckpoint(get, prefix);
    const json = await getOk(get, `${logUrl}/checkpoint`, MAX_CHECKPOINT_BYTES, 'application/json');
    const j = parseJson(text(json));
    const seq = j.ok && j.value !== null && typeof j.value === 'object' ? (j.value as { seq?: unknown }).seq : undefined;
    if (!Number.isSafeInteger(seq)) throw new Error(`${logUrl}/checkpoint: not a JSON Checkpoint with a seq`);
    if (seq === note.size) return { note: note.bytes, json, size: note.size };
    sizes.push(`${note.size}/${String(seq)}`);
  }
  throw new Error(
    `the note checkpoint and the JSON checkpoint did not agree on a size in ${CHECKPOINT_READS} reads (note/JSON: ${sizes.join(', ')}); nothing was written this round`,
  );
}

/** The page's bytes as the entries route serves them with payloads, checked to hold its entries. */
async function readPage(get: HttpGet, logUrl: string, p: PageRef): Promise<Uint8Array> {
  const body = await getOk(get, `${logUrl}/entries?from=${p.first}&to=${p.last}&payloads=1`, MAX_PAGE_BYTES);
  if (!isUtf8(body)) throw new Error(`entries ${p.first}-${p.last}: the body is not UTF-8`);
  const b = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let entries = 0;
  for (let at = 0; at < b.length;) {
    let nl = b.indexOf(0x0a, at);
    if (nl < 0) nl = b.length;
    if (nl > at && !b.subarray(at, at + PAYLOAD_LINE.length).equals(PAYLOAD_LINE)) entries++;
    at = nl + 1;
  }
  if (entries !== p.width) throw new Error(`entries ${p.first}-${p.last}: ${entries} entry lines, ${p.width} due`);
  return body;
}

/** Writes `bytes` unless the file holds them already. */
async function writeChanged(file: string, bytes: Uint8Array): Promise<void> {
  const had = await readFile(file).catch(() => undefined);
  if (had && Buffer.compare(had, bytes) === 0) return;
  await writeFileAt(file, bytes);
}

/**
 * The partial files of page `index` of older sizes (other widths than `keep`) written again as the
 * log serves those entries now: they may hold an erased payload. Rewritten rather than removed, so
 * a monitor in the middle of a step at an older size still finds its page (the entry without its
 * payload, as an erasure it matches when the erasure entry comes).
 */
async function rewriteStalePartials(get: HttpGet, logUrl: string, out: string, index: number, keep?: string): Promise<void> {
  const dir = join(out, `${pagePath(index, PAGE_ENTRIES)}.p`);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const width = Number(name);
    if (!/^[1-9][0-9]*$/.test(name) || width >= PAGE_ENTRIES) continue; // a temp file of a killed write
    const p = pageOf(index, index * PAGE_ENTRIES + width)!;
    if (p.path === keep) continue;
    await writeChanged(join(out, p.path), await readPage(get, logUrl, p));
  }
}

/** Every page of a tree of `size`: new ones, the partial last one, and the ones an erasure entry written now touches. */
export async function writePages(get: HttpGet, logUrl: string, out: string, size: number): Promise<{ pages: number; erasures: number }> {
  const written = new Set<number>();
  let erasures = 0;
  const todo: PageRef[] = [];
  // A full page changes only by an erasure (below).
  for (const p of pagesOf(size)) if (p.width !== PAGE_ENTRIES || !(await exists(join(out, p.path)))) todo.push(p);
  const take = readAhead(todo, (p) => readPage(get, logUrl, p));
  for (const [i, p] of todo.entries()) {
    const body = await take(i);
    const touched = [...new Set(erasedSeqs(body).map(pageIndexOf))].sort((a, b) => a - b);
    for (const k of touched) {
      if (k === p.index) continue;
      const q = pageOf(k, size)!;
      // Read this round already (after the checkpoint, so after the erasure): it is current.
      if (!written.has(k)) {
        await writeChanged(join(out, q.path), await readPage(get, logUrl, q));
        erasures++;
        written.add(k);
      }
      await rewriteStalePartials(get, logUrl, out, k);
    }
    await writeFileAt(join(out, p.path), body);
    written.add(p.index);
    if (touched.includes(p.index)) await rewriteStalePartials(get, logUrl, out, p.index, p.path);
  }
  return { pages: written.size, erasures };
}

/**
 * One round for a Cookwala log at `base` (the sequencer's URL): its tiles and entry bundles, its
 * pages, descriptor and keys, then both checkpoints. Throws (nothing half-announced) on any fault.
 */
export async function writeCookwalaCopy(get: HttpGet, base: string, log: string, out: string): Promise<CopyResult> {
  const prefix = `${base}/tlog/${encodeURIComponent(log)}/`;
  const logUrl = `${base}/v1/logs/${encodeURIComponent(log)}`;
  const cp = await readCheckpoints(get, prefix, logUrl);
  await writeTileFiles(get, prefix, out, cp.size, true);
  const { pages, erasures } = await writePages(get, logUrl, out, cp.size);
  // Read after the checkpoint: every key an entry of this size was signed with is in it.
  await writeChanged(join(out, 'cookwala/log.json'), await getOk(get, logUrl, 1 << 20, 'application/json'));
  await writeChanged(join(out, 'cookwala/keys.json'), await getOk(get, `${logUrl}/keys`, 16 << 20, 'application/json'));
  await writeFileAt(join(out, 'cookwala/checkpoint.json'), cp.json);
  await writeFileAt(join(out, 'checkpoint'), cp.note);
  return { size: cp.size, pages, erasures };
}
