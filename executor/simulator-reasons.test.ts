// The executor says every refusal it gets and what it does next, and a
// second simulator run on the same --data says why it delivered nothing. Real executors (LevelDB
// in temp dirs, real outboxes) against a fake sequencer fetch: one that knows no device key, one
// that takes everything.
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testkit/tmp.ts';
import { nothingDeliveredReasons, runSimulation } from './simulator.ts';
import { refusalHint } from './outbox.ts';
import type { FetchLike } from './sequencer-client.ts';

const dirs = tempDirs('cookwala-exec-why-');
afterAll(() => dirs.cleanup());

const answering =
  (status: number, code?: string): FetchLike =>
  async (_url, init) => {
    const events = JSON.parse(init.body ?? '[]') as unknown[];
    const results = events.map((_e, i) =>
      code
        ? { status, code, detail: 'no trusted KeyRecord has this kid' }
        : { status, seq: i + 1, hash: 'sha256:' + '0'.repeat(64), eventHash: 'sha256:' + '0'.repeat(64) },
    );
    return { status: 200, text: async () => JSON.stringify({ results }) };
  };

const base = {
  devices: 1,
  missions: 1,
  speed: 20_000,
  sequencerUrl: 'http://127.0.0.1:9',
  log: 'test/log',
  consent: 'research_only' as const,
  heartbeatIntervalMs: 0,
};

describe('the executor says why', () => {
  it('logs each refusal with what it will do next (unknown_key: register the key)', async () => {
    const lines: string[] = [];
    await runSimulation({
      ...base,
      dir: await dirs.make(),
      drainTimeoutMs: 400,
      fetch: answering(403, 'unknown_key'),
      print: (l) => lines.push(l),
    });
    const refusals = lines.filter((l) => / delivery: event refused: unknown_key/.test(l));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatch(
      /the events stay in the outbox, retrying in \d+\.\d s \(the sequencer does not know this device key: register it, e\.g\. cookwala executor --register-token-file SEQ\/operator\.token\)$/,
    );
  });

  it('a second run on the same --data says why nothing was delivered', async () => {
    const dir = await dirs.make();
    const first: string[] = [];
    const s1 = await runSimulation({ ...base, dir, drainTimeoutMs: 20_000, fetch: answering(201), print: (l) => first.push(l) });
    expect(s1.delivered).toBeGreaterThan(0);
    expect(first.some((l) => l.startsWith('nothing was delivered'))).toBe(false);
    const second: string[] = [];
    const s2 = await runSimulation({ ...base, dir, drainTimeoutMs: 20_000, fetch: answering(201), print: (l) => second.push(l) });
    expect(s2.delivered).toBe(0);
    expect(second.filter((l) => l.startsWith('nothing was delivered'))).toEqual([
      expect.stringMatching(
        /^nothing was delivered this run: the 1 devices in .*devices had run missions 1-1 in an earlier run .*pass --missions 2 or more, or a new --data DIR$/,
      ),
    ]);
  });

  it('pure: the hints and the reasons', () => {
    expect(refusalHint('event refused: unknown_key x')).toMatch(/register it/);
    expect(refusalHint('network: fetch failed')).toMatch(/cannot be reached/);
    expect(refusalHint('HTTP 404 not_found')).toMatch(/check --log/);
    expect(refusalHint('something else')).toBe('');
    const sum = { devices: 2, missions: 2, statuses: {}, events: 4, delivered: 0, pending: 0, deadLetters: 0, drained: true };
    expect(nothingDeliveredReasons({ sequencerUrl: 'http://x', dir: '/d' }, sum, 4, false, 1)).toEqual([
      expect.stringMatching(/consent is none/),
    ]);
    expect(nothingDeliveredReasons({ dir: '/d' }, sum, 4, true, 1)).toEqual([expect.stringMatching(/no --sequencer/)]);
    expect(nothingDeliveredReasons({ sequencerUrl: 'http://x', dir: '/d' }, { ...sum, delivered: 1 }, 0, true, 1)).toEqual([]);
  });
});
