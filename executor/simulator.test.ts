// The simulator's closing report (executor/simulator.ts): when the outboxes do not drain, the
// simulator exits 1 (cli.ts) and must say why, per device, from the delivery's last refusal, so a
// person who started it without registering the device keys is told what to do (README: the
// device maker's quick start, `--simulate`). The sequencer is a fake fetch that knows no device key.
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testkit/tmp.ts';
import { runSimulation } from './simulator.ts';
import type { FetchLike } from './sequencer-client.ts';

const dirs = tempDirs('cookwala-exec-sim-');
afterAll(() => dirs.cleanup());

describe('runSimulation report', () => {
  it('names the reason when the outbox does not drain (unregistered device key)', async () => {
    let posts = 0;
    const fetch: FetchLike = async (_url, init) => {
      posts++;
      const events = JSON.parse(init.body ?? '[]') as unknown[];
      const results = events.map(() => ({ status: 403, code: 'unknown_key', detail: 'no trusted KeyRecord has this kid' }));
      return { status: 200, text: async () => JSON.stringify({ results }) };
    };
    const lines: string[] = [];
    const sum = await runSimulation({
      dir: await dirs.make(),
      devices: 1,
      missions: 1,
      speed: 20_000,
      sequencerUrl: 'http://127.0.0.1:9',
      log: 'test/log',
      consent: 'research_only',
      heartbeatIntervalMs: 0,
      drainTimeoutMs: 400,
      fetch,
      print: (l) => lines.push(l),
    });
    expect(sum.drained).toBe(false);
    expect(sum.pending).toBeGreaterThan(0);
    expect(posts).toBeGreaterThan(0);
    const why = lines.filter((l) => l.includes('outbox not drained'));
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(/unknown_key/);
    expect(why[0]).toMatch(/--register-token/);
  });
});
