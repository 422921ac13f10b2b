// bench/strict-json.ts: the cost of verifier/encoding/strict-json.ts parseJson (I-JSON: duplicate names,
// depth, length) against plain JSON.parse on the same text, on an ~800-byte event and on a 1 MB
// bundle-like line (an array of small event-like objects, many short names), as interleaved pairs
// (docs/design.md §13: limit, figure, limit, figure; the median pair is reported with its spread). The
// ratio is strict/JSON.parse throughput: 1 would be free.

import { parseJson } from '../verifier/encoding/strict-json.ts';
import { opsPerSec } from './crypto.ts';

function event800(): string {
  return JSON.stringify({
    specversion: '1.0',
    id: 'evt-000123',
    source: 'urn:cookwala:device:oven-7',
    type: 'cookwala.execution.running',
    subject: 'exec-42',
    time: '2026-11-30T10:00:00.123Z',
    datacontenttype: 'application/json',
    cookwalaseq: 17,
    data: {
      recipe: 'r-1',
      step: 3,
      tempC: 92.5,
      medium: 'water',
      notes: 'x'.repeat(420),
      sensors: [
        { id: 's1', v: 91.2 },
        { id: 's2', v: 93.1 },
      ],
    },
  });
}

function line1MB(): string {
  const item = (i: number) => ({
    seq: i,
    kind: 'Event',
    id: `evt-${i}`,
    source: 'urn:cookwala:device:oven-7',
    data: { step: i % 7, tempC: 90 + (i % 10) / 10, tags: ['a', 'b'] },
  });
  const items: unknown[] = [];
  let n = 2;
  for (let i = 0; n < 1_000_000; i++) {
    items.push(item(i));
    n += JSON.stringify(item(i)).length + 1;
  }
  return JSON.stringify(items);
}

export interface PairResult {
  bytes: number;
  jsonParsePerSec: number;
  strictPerSec: number;
  /** strict / JSON.parse throughput (1 = no cost), median of the pairs, with min and max. */
  ratio: number;
  spread: [number, number];
}

function pairs(text: string, ms: number, n: number): PairResult {
  const rs: Array<{ a: number; b: number; r: number }> = [];
  for (let i = 0; i < n; i++) {
    const a = opsPerSec(() => JSON.parse(text), ms);
    const b = opsPerSec(() => parseJson(text), ms);
    rs.push({ a, b, r: b / a });
  }
  rs.sort((x, y) => x.r - y.r);
  const m = rs[Math.floor(rs.length / 2)];
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    bytes: text.length,
    jsonParsePerSec: m.a,
    strictPerSec: m.b,
    ratio: round(m.r),
    spread: [round(rs[0].r), round(rs[rs.length - 1].r)],
  };
}

export async function run(ctx: { quick: boolean }): Promise<{ event800: PairResult; line1MB: PairResult }> {
  const ms = ctx.quick ? 100 : 600;
  const n = ctx.quick ? 3 : 5;
  return { event800: pairs(event800(), ms, n), line1MB: pairs(line1MB(), ms * 2, n) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
