// The entry pages of a Cookwala copy (pages-out.ts writePages) against an entries route of the
// test's own: pages of 256 with the last partial, full pages skipped in later rounds, and an
// erasure: the page of the erased seq (and its partial files of older sizes) rewritten before the
// page holding the erasure entry, so a round that fails in between leaves that page unwritten and
// the next round redoes the erasure.

import { afterAll, describe, expect, it } from 'vitest';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { writePages } from './pages-out.ts';
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
    expect(r2.asked).toEqual(['513-520', '1-256', '257-512']);
    expect(await holdsPayload(join(pages, '000'), 5)).toBe(false);
    expect(await holdsPayload(join(pages, '001'), 260)).toBe(false);
    expect(await holdsPayload(join(pages, '000'), 6)).toBe(true);
    // The partial file of page 1 at the older size held seq 260's payload: gone.
    expect(await readdir(join(pages))).not.toContain('001.p');
    expect(await holdsPayload(join(pages, '002.p/8'), 518)).toBe(true);
  });
});
