// bench/monitor-log.ts: the monitor section's log (bench/monitor.ts, docs/design.md §13), shared with
// bench/serve-pages.ts: its name, an HTTP client to its sequencer, the devices' key registration and
// the fill over HTTP (signed batches of 100 from 16 devices, every event acknowledged 201), and the
// reads the section waits on (the published checkpoint's size, a process's CPU from /proc). Leaves
// out: starting the sequencer (bench/monitor.ts startChild). Invariant: a fill returns only once
// every event of it was acknowledged.

import { readFileSync } from 'node:fs';
import { benchHttpClient, type BenchHttp } from './http-client.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';

export const LOG = 'bench.example/monitor/m-1';
export const DEVICES = 16;
const BATCH = 100;
const SOCKETS = 8;

export const httpClient = (port: number): BenchHttp => benchHttpClient(port, SOCKETS);
type Http = BenchHttp;

export const logPath = (rest = '') => `/v1/logs/${encodeURIComponent(LOG)}${rest}`;

/** utime + stime of a process (every thread), ms (Linux /proc; NaN elsewhere). */
export function procCpuMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The sequencer's published checkpoint size. */
export async function servedSize(http: Http): Promise<number> {
  const r = await http.call('GET', logPath('/checkpoint'), undefined, { accept: 'application/json' });
  return r.status === 200 ? (JSON.parse(r.body) as { seq: number }).seq : 0;
}

export async function waitFor<T>(what: string, ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100)); // polling the sequencer's checkpoint, which has no push
  }
}

/** Post `n` events in batches of BATCH (SOCKETS in flight), signed as they go; every one must be acknowledged 201. */
export async function fill(http: Http, streams: Array<ReturnType<typeof eventStream>>, n: number, tag: string): Promise<number> {
  let batchNo = 0;
  const batches = Math.ceil(n / BATCH);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SOCKETS }, async () => {
      while (batchNo < batches) {
        const b = batchNo++;
        const s = streams[b % streams.length];
        const size = Math.min(BATCH, n - b * BATCH);
        const body = Buffer.from(
          JSON.stringify(Array.from({ length: size }, (_, k) => s.next(`${tag}-${b % 64}`, { data: { step: k, tempC: 92.5 } }))),
        );
        const r = await http.call('POST', logPath('/events'), body, {
          'content-type': 'application/cloudevents-batch+json',
          'idempotency-key': `${tag}-${b}`,
        });
        const ok = r.status === 200 && (JSON.parse(r.body).results as Array<{ status: number }>).every((x) => x.status === 201);
        if (!ok) throw new Error(`not acknowledged: ${r.status} ${r.body.slice(0, 300)}`);
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** Registers the devices' keys (operator `token`), fills the log with `events` events and waits for a checkpoint of them all. */
export async function registerAndFill(http: Http, token: string, events: number) {
  const devices = Array.from({ length: DEVICES }, (_, i) => deviceKey(3000 + i));
  for (const d of devices) {
    const r = await http.call('POST', logPath('/keys'), Buffer.from(JSON.stringify(d.record)), {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
    });
    if (r.status !== 201) throw new Error(`key registration: ${r.status} ${r.body}`);
  }
  const streams = devices.map((d) => eventStream(d, { signedAt: () => new Date().toISOString() }));
  const fillSeconds = await fill(http, streams, events, 'm');
  const size = await waitFor('the checkpoint of every event', 120_000, async () => {
    const n = await servedSize(http);
    return n >= events ? n : undefined;
  });
  return { streams, fillSeconds, size };
}
