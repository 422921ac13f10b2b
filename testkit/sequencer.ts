// testkit/sequencer.ts: a real sequencer on a temp data dir for tests. startSequencer() runs
// `cookwala init` (initDataDir) into a fresh temp dir, builds the app with openSequencer (timers
// off by default, so tests call seq.tick() on a manual clock), registers the given device keys
// through the real operator endpoint, and optionally listens on 127.0.0.1:0. post()/get() use
// fastify inject; for real sockets use `url` with fetch.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { LogMode } from '../verifier/documents/log-descriptor.ts';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer, type SequencerDeps } from '../sequencer/app.ts';
import type { Clock } from '../platform/clock.ts';
import type { SequencerConfig } from '../sequencer/config.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { makeTempDir } from './tmp.ts';
import type { TestKey } from './keys.ts';

export const TEST_LOG = 'test.example/missions/m-1';

export function logPath(log: string, rest = ''): string {
  return `/v1/logs/${encodeURIComponent(log)}${rest}`;
}

export interface TestSequencer {
  dir: string;
  token: string;
  log: string;
  /** The running sequencer; tests may replace it (restart) and the helpers follow. */
  seq: Sequencer;
  url?: string;
  registerKey(record: KeyRecord, log?: string): Promise<LightMyRequestResponse>;
  /** POST one event (structured) or an array (batch) with a fresh Idempotency-Key unless given. */
  post(
    body: CloudEvent | CloudEvent[] | string,
    opts?: { log?: string; key?: string | null; contentType?: string; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  get(path: string): Promise<LightMyRequestResponse>;
  headSeq(log?: string): number;
  close(): Promise<void>;
}

let counter = 0;

export async function startSequencer(
  opts: {
    dir?: string;
    logs?: string[];
    mode?: LogMode;
    clock?: Clock;
    timers?: boolean;
    listen?: boolean;
    config?: Partial<SequencerConfig>;
    devices?: TestKey[];
    deps?: Partial<SequencerDeps>;
  } = {},
): Promise<TestSequencer> {
  const dir = opts.dir ?? (await makeTempDir('cookwala-seq-'));
  const logs = opts.logs ?? [TEST_LOG];
  await initDataDir({ dir, logs, mode: opts.mode ?? 'hash_only', now: opts.clock ? () => opts.clock!.now() : undefined });
  const token = (await readFile(join(dir, DATA_FILES.token), 'utf8')).trim();
  const seq = await openSequencer(dir, { ...opts.deps, clock: opts.clock, timers: opts.timers ?? false, config: opts.config });
  const t: TestSequencer = {
    dir,
    token,
    log: logs[0],
    seq,
    registerKey: (record, log = logs[0]) =>
      t.seq.app.inject({ method: 'POST', url: logPath(log, '/keys'), headers: { authorization: `Bearer ${token}` }, payload: record }),
    post(body, o = {}) {
      const batch = Array.isArray(body);
      const headers: Record<string, string> = {
        'content-type': o.contentType ?? (batch ? 'application/cloudevents-batch+json' : 'application/cloudevents+json'),
        ...o.headers,
      };
      if (o.key !== null) headers['idempotency-key'] = o.key ?? `k-${process.pid}-${++counter}`;
      return t.seq.app.inject({
        method: 'POST',
        url: logPath(o.log ?? logs[0], '/events'),
        headers,
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    get: (path) => t.seq.app.inject({ method: 'GET', url: path }),
    headSeq: (log = logs[0]) => t.seq.logs.get(log)!.store.head().seq,
    close: () => t.seq.close(),
  };
  for (const d of opts.devices ?? []) {
    const r = await t.registerKey(d.record);
    if (r.statusCode !== 201 && r.statusCode !== 200) throw new Error(`registering ${d.record.kid}: ${r.statusCode} ${r.body}`);
  }
  if (opts.listen) {
    await seq.app.listen({ host: '127.0.0.1', port: 0 });
    const a = seq.app.server.address();
    if (a && typeof a === 'object') t.url = `http://127.0.0.1:${a.port}`;
  }
  return t;
}
