// The entry pages of a static copy (pages.ts): which pages a tree holds and their tlog-tiles names
// (full, partial last, x-prefixed indices), which pages cover a seq range, and the lines of a
// range cut out of them (the first page cut before `from`, the last after `to`, payload lines kept
// with their entry), a line that does not parse in the part cut refused, and the seqs the erasure
// entries of a page name; a range read from a copy over more pages than are read at once, into
// reused buffers, gives the bytes joinPages gives, range after range.

import { describe, expect, it } from 'vitest';
import { erasedSeqs, joinPages, pageOf, pagesCovering, pagesOf, pagePath, readCopyRange } from './pages.ts';
import type { HttpGet } from './http-get.ts';

const entry = (seq: number) => JSON.stringify({ seq, ce: { type: 't' } }) + '\n';
const payload = (seq: number, event: Record<string, unknown> = { id: `e${seq}` }) => JSON.stringify({ kind: 'Payload', seq, event }) + '\n';

/** The bytes of a page holding seqs first..last, with a payload line after the even seqs. */
function page(first: number, last: number): Buffer {
  let s = '';
  for (let q = first; q <= last; q++) s += entry(q) + (q % 2 === 0 ? payload(q) : '');
  return Buffer.from(s);
}

const seqsOf = (b: Buffer) =>
  b
    .toString()
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as { kind?: string; seq: number })
    .map((v) => (v.kind === 'Payload' ? `p${v.seq}` : v.seq));

describe('the pages of a static copy', () => {
  it('reads a range over more pages than it reads at once into reused buffers, range after range', async () => {
    const size = 3000;
    const served = new Map(pagesOf(size).map((p) => [`http://copy/${p.path}`, page(p.first, p.last)]));
    let gets = 0;
    const get: HttpGet = async (url, o) => {
      gets++;
      const body = served.get(url);
      if (!body) return { status: 404, body: new Uint8Array(), contentType: '' };
      // As the raw reader does: the body lands in the holder's buffer, grown when it is short.
      if (!o?.into) return { status: 200, body, contentType: '' };
      if (o.into.buf.length < body.length) o.into.buf = Buffer.allocUnsafe(body.length);
      body.copy(o.into.buf);
      return { status: 200, body: o.into.buf.subarray(0, body.length), contentType: '' };
    };
    const into = { buf: Buffer.allocUnsafe(16) };
    for (const [from, to] of [
      [200, 2900],
      [2901, 3000],
      [1, 3000],
    ]) {
      const ps = pagesCovering(from, to, size);
      const want = joinPages(
        ps,
        ps.map((p) => page(p.first, p.last)),
        from,
        to,
      );
      const got = await readCopyRange(get, 'http://copy/', from, to, size, 256 << 20, into);
      expect(got.ok && want.ok && Buffer.compare(got.value, want.value)).toBe(0);
    }
    expect(gets).toBe(12 + 1 + 12);
    const missing = await readCopyRange(get, 'http://copy/', 1, 3000, 4000, 256 << 20, into);
    expect(missing.ok ? 'read' : missing.code).toBe('not_found');
  });

  it('names pages as tlog-tiles entry bundles: 256 entries a page, the last partial', () => {
    expect(pagePath(0, 256)).toBe('cookwala/entries/000');
    expect(pagePath(1234, 256)).toBe('cookwala/entries/x001/234');
    expect(pagePath(3, 17)).toBe('cookwala/entries/003.p/17');
    expect(pagesOf(0)).toEqual([]);
    expect(pagesOf(256).map((p) => p.path)).toEqual(['cookwala/entries/000']);
    const ps = pagesOf(600);
    expect(ps.map((p) => [p.path, p.first, p.last, p.width])).toEqual([
      ['cookwala/entries/000', 1, 256, 256],
      ['cookwala/entries/001', 257, 512, 256],
      ['cookwala/entries/002.p/88', 513, 600, 88],
    ]);
    expect(pageOf(3, 600)).toBeUndefined();
    expect(pagesCovering(256, 257, 600).map((p) => p.index)).toEqual([0, 1]);
    expect(pagesCovering(513, 600, 600).map((p) => p.path)).toEqual(['cookwala/entries/002.p/88']);
    expect(pagesCovering(1, 512, 1000).map((p) => p.width)).toEqual([256, 256]);
  });

  it('joins the pages of a range: the first cut before from, the last after to, payload lines with their entry', () => {
    const size = 600;
    const ps = pagesCovering(200, 520, size);
    const bodies = ps.map((p) => page(p.first, p.last));
    const j = joinPages(ps, bodies, 200, 520);
    expect(j.ok).toBe(true);
    const want: Array<string | number> = [];
    for (let q = 200; q <= 520; q++) want.push(q, ...(q % 2 === 0 ? [`p${q}`] : []));
    expect(seqsOf(j.ok ? j.value : Buffer.alloc(0))).toEqual(want);
    // One page, cut at both ends; a range ending at the last partial page's end takes it whole.
    const one = pagesCovering(3, 5, size);
    const k = joinPages(one, [page(1, 256)], 3, 5);
    expect(seqsOf(k.ok ? k.value : Buffer.alloc(0))).toEqual([3, 4, 'p4', 5]);
    const last = pagesCovering(513, 600, size);
    const l = joinPages(last, [page(513, 600)], 513, 600);
    expect(l.ok && l.value.equals(page(513, 600))).toBe(true);
  });

  it('refuses a line that does not parse where a page is cut, and leaves a short page to the checks', () => {
    const ps = pagesCovering(3, 4, 256);
    const bad = Buffer.concat([Buffer.from(entry(1) + '{"seq":2,\n'), page(3, 256)]);
    const j = joinPages(ps, [bad], 3, 4);
    expect(j.ok ? 'ok' : j.code).toBe('bad_json');
    // A page holding fewer entries than due gives fewer lines: the entries step refuses that (truncated).
    const short = joinPages(ps, [page(1, 3)], 3, 4);
    expect(seqsOf(short.ok ? short.value : Buffer.alloc(0))).toEqual([3]);
  });

  it('finds the seqs erasure entries name, only from their payload lines and only earlier seqs', () => {
    const erased = (seq: number, target: unknown) =>
      entry(seq) + payload(seq, { type: 'cookwala.log.erased', data: { seq: target, eventHash: 'sha256:00', reason: 'r' } });
    const body = Buffer.from(
      page(1, 3).toString() +
        erased(4, 2) +
        entry(5) +
        erased(6, 300) + // not an earlier seq
        erased(7, 'x') +
        JSON.stringify({ seq: 8, ce: { type: 'cookwala.log.erased' } }) +
        '\n' +
        erased(9, 1),
    );
    expect(erasedSeqs(body)).toEqual([2, 1]);
    expect(erasedSeqs(page(1, 256))).toEqual([]);
  });
});
