// The entry pages of a Cookwala copy (pages-out.ts writePages) against an entries route of the
// test's own: pages of 256 with the last partial, full pages skipped in later rounds, and an
// erasure: the page of the erased seq (and its partial files of older sizes) written again before the
// page holding the erasure entry, so a round that fails in between leaves that page unwritten and
// the next round redoes the erasure. A whole round: the note and JSON checkpoints that never agree
// on a size fail it with both sizes named, and a page that does not hold its entries fails it,
// either way with no checkpoint written.

import { afterAll, describe, expect, it } from 'vitest';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { writeCookwalaCopy, writePages } from './pages-out.ts';
import { specSigner } from '../testkit/c2sp-log.ts';
import type { HttpGet } from './http-get.ts';

const dirs = tempDirs('cookwala-pages-out-');
afterAll(() => dirs.cleanup());

const LOG_URL = 'http://seq.test/v1/logs/x';

/** An entries route over `n` entries, each with a payload unless erased; `erasures` maps an erasure entry's seq to the seq it names. */
function route(state: { n: number; erased: Set<number>; erasures: Map<number, number> }, fail?: (from: number) => boolean) {
  const asked: string[] = [];
  const get: HttpGet = async (url) => {
    const u = new URL(url);
    const from = Number(u.searchParams.get('from'));
    const to = Number(u.searchParams.get('to'));
    asked.push(`${from}-${to}`);
    if (fail?.(from)) throw new Error(`GET ${from}-${to}: connection reset`);
    let s = '';
    for (let q = from; q <= Math.min(to, state.n); q++) {
      s += JSON.stringify({ kind: 'Event', seq: q }) + '\n';
      const target = state.erasures.get(q);
      const event = target !== undefined ? { type: 'cookwala.log.erased', data: { seq: target } } : { id: `e${q}` };
      if (!state.erased.has(q)) s += JSON.stringify({ kind: 'Payload', seq: q, event }) + '\n';
    }
    return { status: 200, body: Buffer.from(s), contentType: 'application/x-ndjson' };
  };
  return { get, asked };
}

const holdsPayload = async (file: string, seq: number) => (await readFile(file, 'utf8')).includes(`{"kind":"Payload","seq":${seq},`);

describe('cookwala tiles --entries: the pages of a Cookwala log', () => {
  it('writes 256 entries a page, skips full pages later, and rewrites an erased page before the erasure entry', async () => {
    const out = await dirs.make();
    const state = { n: 300, erased: new Set<number>(), erasures: new Map<number, number>() };
    const r1 = route(state);
    expect(await writePages(r1.get, LOG_URL, out, 300)).toEqual({ pages: 2, erasures: 0 });
    expect(r1.asked).toEqual(['1-256', '257-300']);
    const pages = join(out, 'cookwala/entries');
    expect(await holdsPayload(join(pages, '000'), 5)).toBe(true);
    expect(await holdsPayload(join(pages, '001.p/44'), 260)).toBe(true);

    // The log grows to 520; seq 5 (a full page) and 260 (in a page partial before) are erased by
    // entries 519 and 520 (in the new partial page).
    Object.assign(state, { n: 520 });
    state.erased.add(5).add(260);
    state.erasures.set(519, 5).set(520, 260);
    // A round that fails while reading the erased page again writes no page with an erasure entry.
    const broken = route(state, (from) => from === 1);
    await expect(writePages(broken.get, LOG_URL, out, 520)).rejects.toThrow(/connection reset/);
    expect(await readdir(pages)).not.toContain('002.p');
    expect(await holdsPayload(join(pages, '000'), 5)).toBe(true);

    // The next round redoes it: page 001, full and written by the failed round, is skipped as a
    // page but read again as one an erasure entry of 002 touches, after 000, before 002 is written.
    const r2 = route(state);
    expect(await writePages(r2.get, LOG_URL, out, 520)).toEqual({ pages: 3, erasures: 2 });
    expect(r2.asked).toEqual(['513-520', '1-256', '257-512', '257-300']); // 001.p/44, of size 300, held 260's payload
    expect(await holdsPayload(join(pages, '000'), 5)).toBe(false);
    expect(await holdsPayload(join(pages, '001'), 260)).toBe(false);
    expect(await holdsPayload(join(pages, '000'), 6)).toBe(true);
    // The partial file of page 1 at the older size held seq 260's payload: rewritten without it.
    expect(await holdsPayload(join(pages, '001.p/44'), 260)).toBe(false);
    expect(await holdsPayload(join(pages, '001.p/44'), 259)).toBe(true);
    expect(await holdsPayload(join(pages, '002.p/8'), 518)).toBe(true);
  });
});

describe('cookwala tiles --entries: a round of a Cookwala copy', () => {
  const ORIGIN = 'copy.test/log';
  const signer = specSigner(ORIGIN);
  const note = (size: number) => {
    const body = `${ORIGIN}\n${size}\n${Buffer.alloc(32).toString('base64')}\n`;
    return `${body}\n${signer.line(body)}`;
  };
  /** A sequencer of the test's own at size `noteSize` (note) and `jsonSize` (JSON), whose entries route serves `entries` lines a page. */
  function sequencer(noteSize: number, jsonSize: number, entries: number) {
    const get: HttpGet = async (url) => {
      const u = new URL(url);
      const ok = (body: string | Buffer) => ({ status: 200, body: Buffer.from(body), contentType: 'application/octet-stream' });
      if (u.pathname.endsWith('/tlog/' + encodeURIComponent(ORIGIN) + '/checkpoint')) return ok(note(noteSize));
      if (u.pathname.endsWith('/checkpoint')) return ok(JSON.stringify({ seq: jsonSize }));
      if (u.pathname.includes('/tile/0/')) return ok(Buffer.alloc(32 * noteSize));
      if (u.pathname.includes('/tile/entries/')) return ok(Buffer.alloc(34 * noteSize));
      if (u.pathname.endsWith('/entries'))
        return ok(Array.from({ length: entries }, (_, i) => JSON.stringify({ seq: i + 1 }) + '\n').join(''));
      return ok('{}');
    };
    return get;
  }

  it('writes the pages, descriptor and keys, and both checkpoints at one size', async () => {
    const out = await dirs.make();
    expect(await writeCookwalaCopy(sequencer(3, 3, 3), 'http://seq.test', ORIGIN, out)).toEqual({ size: 3, pages: 1, erasures: 0 });
    expect((await readdir(out, { recursive: true })).sort()).toEqual(
      [
        'checkpoint',
        'cookwala',
        'cookwala/checkpoint.json',
        'cookwala/entries',
        'cookwala/entries/000.p',
        'cookwala/entries/000.p/3',
        'cookwala/keys.json',
        'cookwala/log.json',
        'tile',
        'tile/0',
        'tile/0/000.p',
        'tile/0/000.p/3',
        'tile/entries',
        'tile/entries/000.p',
        'tile/entries/000.p/3',
      ].sort(),
    );
  });

  it('fails a round whose two checkpoints never agree on a size, or whose page is short, writing no checkpoint', async () => {
    const out = await dirs.make();
    await expect(writeCookwalaCopy(sequencer(3, 4, 3), 'http://seq.test', ORIGIN, out)).rejects.toThrow(
      /did not agree on a size in 5 reads \(note\/JSON: 3\/4, 3\/4/,
    );
    expect(await readdir(out)).toEqual([]);
    await expect(writeCookwalaCopy(sequencer(3, 3, 2), 'http://seq.test', ORIGIN, out)).rejects.toThrow(/2 entry lines, 3 due/);
    expect(await readdir(out)).not.toContain('checkpoint');
    expect(await readdir(join(out, 'tile/0'))).toEqual(['000.p']); // the tiles are in, the checkpoint is not
  });
});
