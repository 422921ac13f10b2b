// Every stdout line of every long-running service is one JSON object with an `event`
// (platform/logger.ts), as an operator's log pipeline reads it: the sequencer (witnessed by a witness added
// with `policy add-witness`, so its witnessing and fastify lines show), the witness (a log admitted
// while it runs), and a device executor, each as a real child process (`node bin/cookwala.js`),
// each stopped with SIGTERM and logging `shutdown`. The demo runs these same commands.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runCookwala, spawnCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';

let root: string;
const children: Child[] = [];

beforeAll(async () => {
  root = await makeTempDir('cookwala-loglines-');
});
afterAll(async () => {
  for (const c of children) await stopChild(c, 'SIGKILL');
  await removeDir(root);
});

/** Each non-empty stdout line: JSON, with a string `event`; returns the events seen. */
function eventsOf(name: string, out: string): string[] {
  const events: string[] = [];
  for (const line of out.split('\n').filter((l) => l.length > 0)) {
    let j: { event?: unknown };
    try {
      j = JSON.parse(line) as { event?: unknown };
    } catch {
      throw new Error(`${name} wrote a line that is not JSON: ${line}`);
    }
    expect(typeof j.event, `${name}: ${line}`).toBe('string');
    events.push(j.event as string);
  }
  return events;
}

describe('service log lines', () => {
  it('sequencer, witness and executor: every stdout line is JSON with an event, and each logs shutdown', async () => {
    const w = join(root, 'wit');
    const s = join(root, 'seq');
    const e = join(root, 'dev');
    expect((await runCookwala(['witness', 'init', '--data', w, '--http-port', '0'])).code).toBe(0);
    const witness = await startWitnessProcess(w);
    children.push(witness);
    expect((await runCookwala(['init', '--data', s, '--log', 'logs.example/lines'])).code).toBe(0);
    const added = await runCookwala(['policy', 'add-witness', '--data', s, '--from', join(w, 'witness-info.json')]);
    expect(added.code, added.err).toBe(0);
    const admitted = await runCookwala([
      'witness',
      'add-log',
      '--data',
      w,
      '--log',
      'logs.example/lines',
      '--sequencer-key',
      join(s, 'sequencer.keyrecord.json'),
    ]);
    expect(admitted.code, admitted.err).toBe(0);
    await witness.logs.next('log_admitted');

    const seq = spawnCookwala(['sequencer', '--data', s, '--port', '0']);
    children.push(seq);
    await seq.logs.next('listening', undefined, 60_000);
    await seq.logs.next('witnessing', undefined, 60_000);
    const dev = spawnCookwala(['executor', '--data', e, '--port', '0', '--heartbeat-ms', '0']);
    children.push(dev);
    await dev.logs.next('listening', undefined, 60_000);

    for (const [name, c] of [
      ['executor', dev],
      ['sequencer', seq],
      ['witness', witness],
    ] as const) {
      const exit = await stopChild(c);
      expect(exit.code, `${name}: ${c.err()}`).toBe(0);
      const events = eventsOf(name, c.out());
      expect(events, name).toContain('listening');
      expect(events, name).toContain('shutdown');
    }
    children.length = 0;
  }, 240_000);
});
