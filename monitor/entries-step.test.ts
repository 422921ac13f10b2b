// The monitor's entries step (entries-step.ts) against a log served from a generated bundle
// (testkit/log-generator.ts: real signatures) through an HttpGet of the test's own: each page's
// lines are parsed and checked one at a time, a log that inlines no payloads is read one
// GET …/events/{seq} each, and a page that is not exactly its entries with their payloads is
// refused with its reason (truncated, misplaced_line, bad_json) before anything is kept.

import { describe, expect, it } from 'vitest';
import { generateLog } from '../testkit/log-generator.ts';
import { checkEntries, readDescriptor, type LogSource } from './entries-step.ts';
import { createIdWindow } from './id-window.ts';
import type { HttpGet } from './http-get.ts';

const EVENTS = 23;
const BASE = 'http://log.test';

interface Served {
  source: LogSource;
  get: HttpGet;
  /** The last checkpoint's head and root. */
  head: string;
  root: string;
  /** GET …/events/{seq} requests answered. */
  eventGets: number;
}

/** A log served from a generated bundle; `page` may rewrite the lines of an entries page. */
function serve(page: (lines: string[], from: number, to: number) => Array<string | Uint8Array> = (l) => l): Served {
  const gen = generateLog({ events: EVENTS, mode: 'full', witnesses: 0, quorum: 0, devices: 3, dataBytes: 200 });
  const lines = [...gen.lines()]
    .join('')
    .split('\n')
    .filter((l) => l !== '');
  const kinds = lines.map((l) => (JSON.parse(l) as { kind: string }).kind);
  const entries = lines.filter((_, i) => kinds[i] === 'Event');
  const payloads = new Map<number, string>();
  lines.forEach((l, i) => {
    if (kinds[i] === 'Payload') payloads.set((JSON.parse(l) as { seq: number }).seq, l);
  });
  const keys = lines.filter((_, i) => kinds[i] === 'KeyRecord').map((l) => JSON.parse(l) as unknown);
  const cp = JSON.parse(lines[lines.length - 1]) as { head: string; root: string };
  const prefix = `/v1/logs/${encodeURIComponent(gen.policy.log)}`;
  const enc = (s: string) => new TextEncoder().encode(s);
  const s: Served = {
    source: { base: BASE, policy: gen.policy, keyCache: [] },
    head: cp.head,
    root: cp.root,
    eventGets: 0,
    get: async (url) => {
      const u = new URL(url);
      const rest = u.pathname.slice(prefix.length);
      const got = (status: number, body: string | Uint8Array) => ({
        status,
        body: typeof body === 'string' ? enc(body) : body,
        contentType: '',
      });
      if (rest === '') return got(200, lines[1]);
      if (rest === '/keys') return got(200, JSON.stringify({ keys }));
      if (rest === '/entries') {
        const from = Number(u.searchParams.get('from'));
        const to = Number(u.searchParams.get('to'));
        const out: string[] = [];
        for (let seq = from; seq <= Math.min(to, entries.length); seq++)
          out.push(entries[seq - 1], ...(payloads.has(seq) ? [payloads.get(seq)!] : []));
        const parts = page(out, from, to).map((p) => (typeof p === 'string' ? enc(p + '\n') : p));
        return got(200, Buffer.concat(parts));
      }
      const m = /^\/events\/(\d+)$/.exec(rest);
      if (m) {
        s.eventGets++;
        const p = payloads.get(Number(m[1]));
        return p ? got(200, JSON.stringify((JSON.parse(p) as { event: unknown }).event)) : got(404, '');
      }
      return got(404, '');
    },
  };
  return s;
}

async function step(s: Served, pageEntries = 5, onPage?: (seq: number) => void) {
  const d = await readDescriptor(s.get, s.source);
  if (!d.ok) throw new Error(d.detail);
  return checkEntries(s.get, s.source, d.value, undefined, EVENTS, createIdWindow(64), {
    pageEntries,
    onPage: onPage
      ? ({ at }) => {
          onPage(at.seq);
          return async () => undefined;
        }
      : undefined,
  });
}

describe('the entries step', () => {
  it('checks a log page by page to the root and head of its checkpoint, keeping each page before the last', async () => {
    const s = serve();
    const kept: number[] = [];
    const r = await step(s, 5, (seq) => kept.push(seq));
    if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
    expect(r.value.failures).toEqual([]);
    expect(r.value.entries).toBe(EVENTS);
    expect(r.value.root).toBe(s.root);
    expect(r.value.head).toBe(s.head);
    expect(kept).toEqual([5, 10, 15, 20]);
    expect(s.eventGets).toBe(0);
  });

  it('reads each payload with its own GET when the log inlines none, with the same outcome', async () => {
    const s = serve((lines) => lines.filter((l) => !l.startsWith('{"kind":"Payload"')));
    const r = await step(s, 10);
    if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
    expect(r.value.failures).toEqual([]);
    expect(r.value.root).toBe(s.root);
    expect(s.eventGets).toBe(EVENTS);
  });

  it('names a changed payload, read inline, as the verifier names it', async () => {
    const s = serve((lines) => lines.map((l) => (l.includes('"seq":7,"event"') ? l.replace('"tempC":', '"tempC":1') : l)));
    const r = await step(s);
    if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
    expect(r.value.failures.map((f) => [f.kind, f.seq])).toEqual([['payload_hash_mismatch', 7]]);
  });

  const refused: Array<[string, string, (lines: string[], from: number) => Array<string | Uint8Array>]> = [
    ['a page short of its last entry', 'truncated', (l, from) => (from === 11 ? l.slice(0, -2) : l)],
    ['a page with no line for some of its entries', 'truncated', (l, from) => (from === 11 ? l.slice(0, 3) : l)],
    ['a page with an entry beyond its end', 'truncated', (l, from) => (from === 11 ? [...l, l[0].replace('"seq":11', '"seq":16')] : l)],
    ['a payload line after the wrong entry', 'misplaced_line', (l, from) => (from === 11 ? [l[0], l[2], l[1], ...l.slice(3)] : l)],
    ['a payload line twice', 'misplaced_line', (l, from) => (from === 11 ? [l[0], l[1], l[1], ...l.slice(2)] : l)],
    ['a payload line first', 'misplaced_line', (l, from) => (from === 11 ? [l[1], ...l] : l)],
    ['a line that is not JSON', 'bad_json', (l, from) => (from === 11 ? [l[0], '{"kind":', ...l.slice(1)] : l)],
    ['a page that is not UTF-8', 'bad_json', (l, from) => (from === 11 ? [...l.slice(0, 2), Uint8Array.of(0xff, 0x0a), ...l.slice(2)] : l)],
  ];
  for (const [what, code, page] of refused)
    it(`refuses ${what} (${code}) and keeps no page from it on`, async () => {
      const kept: number[] = [];
      const r = await step(serve(page), 5, (seq) => kept.push(seq));
      expect(r.ok ? 'ok' : r.code).toBe(code);
      expect(Math.max(0, ...kept)).toBeLessThanOrEqual(10);
    });
});
