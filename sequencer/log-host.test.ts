// The log host at scale (docs/design.md §12a), on real LevelDB in a temp data dir through the real HTTP
// routes (fastify inject): 300 logs on one sequencer with at most 8 stores open, counted as the
// LevelDB LOCK files this process holds open (/proc/self/fd), never more than the cap however the
// requests are spread or how many run at once; a log closed while idle lists its head and last
// checkpoint from its summary, reopens on its next request, verifies from scratch against its
// signed checkpoint and takes appends; a pinned log (a request in flight) is never closed; and
// the crash guard (store_behind_checkpoint, checkpoint-mark.ts) still fires when a closed log is
// reopened from an old backup, refusing that log only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, readdir, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Entry } from '../verifier/documents/entry.ts';
import { logPath, startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { parseNdjson, rebuildLog } from '../testkit/verify-log.ts';
import { logStoreDir } from './data-dir.ts';
import { logSummaryFile, readLogSummary, writeLogSummary } from './log-summary.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { grantStore, MIN_GRANT_BYTES, MAX_WRITE_BUFFER, MIN_WRITE_BUFFER, PROCESS_RESERVE_BYTES, maxStoresFor } from './store-budget.ts';

const N = 300;
const CAP = 8;
const LOGS = Array.from({ length: N }, (_, i) => `many.example/logs/l-${i}`);
const dev = deviceKey(61);
const tmp = tempDirs();
let t: TestSequencer;
const streams = new Map<string, ReturnType<typeof eventStream>>();
const stream = (log: string) => streams.get(log) ?? streams.set(log, eventStream(dev)).get(log)!;

/** LevelDB LOCK files under this data dir's logs/ held open by this process: one per open store. */
async function openStores(): Promise<number> {
  const root = join(t.dir, 'logs');
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(root) && target.endsWith('/LOCK')) n++;
  }
  return n;
}

const auth = () => ({ authorization: `Bearer ${t.token}` });
const register = (log: string) => t.seq.app.inject({ method: 'POST', url: logPath(log, '/keys'), headers: auth(), payload: dev.record });
const post = (log: string) => t.post(stream(log).next('s'), { log });

beforeAll(async () => {
  t = await startSequencer({ logs: LOGS, config: { maxOpenLogs: CAP } });
}, 120_000);
afterAll(async () => {
  await t.close();
  await tmp.cleanup();
});

describe('300 logs, at most 8 stores open', () => {
  it('starts with only the first logs open and lists all of them', async () => {
    expect(t.seq.logs.stats()).toMatchObject({ hosted: N, open: CAP, maxOpen: CAP });
    expect(await openStores()).toBe(CAP);
    const page = (await t.get('/v1/logs?limit=1000')).json();
    expect(page.total).toBe(N);
    expect(page.logs.map((l: { log: string }) => l.log)).toEqual(LOGS);
    expect(page.next).toBeUndefined();
    const two = (await t.get('/v1/logs?from=298&limit=5')).json();
    expect(two.logs.map((l: { log: string }) => l.log)).toEqual(LOGS.slice(298));
    const first = (await t.get('/v1/logs?limit=2')).json();
    expect(first).toMatchObject({ total: N, next: 2, logs: [{ log: LOGS[0], open: true, head: { seq: 0 } }, { log: LOGS[1] }] });
    expect((await t.get('/v1/logs?limit=1001')).json().code).toBe('bad_request');
    expect((await t.get('/v1/logs?from=-1')).statusCode).toBe(400);
  });

  it('registers a key and appends to every log, sequentially then all at once, never above the cap', async () => {
    let peak = 0;
    for (const log of LOGS) {
      expect((await register(log)).statusCode).toBe(201);
      expect((await post(log)).json()).toMatchObject({ seq: 1 });
      peak = Math.max(peak, await openStores());
    }
    expect(peak).toBeLessThanOrEqual(CAP);
    const all = await Promise.all(
      LOGS.map(async (log) => {
        const r = await post(log);
        // The host's own count, read at once: a scan of /proc/self/fd is not atomic, and while other
        // stores open and close under it a reused fd number can be counted twice. The fds are
        // scanned below, once the stores are quiet.
        return { status: r.statusCode, seq: r.json().seq, open: t.seq.logs.stats().open };
      }),
    );
    expect(all.every((a) => a.status === 201 && a.seq === 2)).toBe(true);
    expect(Math.max(...all.map((a) => a.open))).toBeLessThanOrEqual(CAP);
    expect(t.seq.logs.stats().open).toBeLessThanOrEqual(CAP);
    expect(await openStores()).toBe(t.seq.logs.stats().open); // the host's count is the real one
    expect(t.seq.logs.stats().grantedBytes).toBeLessThanOrEqual(t.seq.logs.stats().budgetBytes);
    // Every log's head, open or closed, is 2 (closed ones from their summary file).
    const page = (await t.get('/v1/logs?limit=1000')).json();
    expect(page.logs.filter((l: { head?: { seq: number } }) => l.head?.seq === 2).length).toBe(N);
    expect(page.logs.filter((l: { open: boolean }) => !l.open).length).toBeGreaterThanOrEqual(N - CAP);
  }, 300_000);

  it('an idle log is closed with a last checkpoint, reopens on demand, verifies and appends', async () => {
    const log = LOGS[5];
    expect((await post(log)).json()).toMatchObject({ seq: 3 });
    expect(t.seq.logs.get(log)).toBeDefined();
    expect(await t.seq.logs.closeIdle(0)).toBeGreaterThan(0);
    expect(t.seq.logs.get(log)).toBeUndefined();
    expect(await openStores()).toBe(0);
    const listed = (await t.get('/v1/logs?from=5&limit=1')).json().logs[0];
    expect(listed).toMatchObject({ log, open: false, head: { seq: 3 }, checkpoint: { seq: 3 } });
    expect(typeof listed.summaryAt).toBe('string');

    const r = await t.get(logPath(log, '/entries'));
    expect(r.statusCode).toBe(200);
    expect(t.seq.logs.get(log)).toBeDefined(); // reopened by the read
    const list = parseNdjson<Entry>(r.body);
    const rebuilt = rebuildLog(t.seq.logs.get(log)!.descriptor.hash, list);
    const cp = (await t.get(logPath(log, '/checkpoint'))).json();
    expect(cp).toMatchObject({ seq: 3, root: rebuilt.roots[3], head: rebuilt.head, hash: listed.checkpoint.hash });
    expect((await post(log)).json()).toMatchObject({ seq: 4 });
    const proof = (await t.get(logPath(log, '/proof/consistency?from=3&to=4'))).statusCode;
    expect(proof).toBe(200);
  });

  it('never closes a log a request holds open, and closes it once released', async () => {
    const log = LOGS[7];
    const lease = await t.seq.logs.acquire(log);
    const inflight = post(log); // its append runs while closeIdle tries to close every idle log
    await t.seq.logs.closeIdle(0);
    expect(t.seq.logs.get(log)).toBe(lease.log);
    expect((await inflight).json()).toMatchObject({ seq: 3 });
    expect(lease.log.store.head().seq).toBe(3);
    lease.release();
    await t.seq.logs.closeIdle(0);
    expect(t.seq.logs.get(log)).toBeUndefined();
    expect((await t.get(`/v1/logs?from=7&limit=1`)).json().logs[0]).toMatchObject({
      open: false,
      head: { seq: 3 },
      checkpoint: { seq: 3 },
    });
  });

  it('refuses a closed log restored from an older backup when it reopens (store_behind_checkpoint), that log only', async () => {
    const log = LOGS[9];
    await t.seq.logs.closeIdle(0);
    const backup = await tmp.make();
    await cp(logStoreDir(t.dir, log), backup, { recursive: true }); // seq 2, its own checkpoint at 2
    expect((await post(log)).json()).toMatchObject({ seq: 3 });
    await t.seq.logs.closeIdle(0); // signs a checkpoint at 3: the mark moves to 3
    await rm(logStoreDir(t.dir, log), { recursive: true, force: true });
    await cp(backup, logStoreDir(t.dir, log), { recursive: true });
    const r = await post(log);
    expect(r.statusCode).toBe(500);
    expect(r.json().code).toBe('store_behind_checkpoint');
    expect(t.seq.logs.get(log)).toBeUndefined();
    expect(t.seq.logs.stats().open).toBeLessThanOrEqual(CAP);
    expect((await post(LOGS[10])).json()).toMatchObject({ seq: 3 });
  });
});

describe('the memory budget (store-budget.ts)', () => {
  const MiB = 1024 * 1024;
  it('gives a lone busy log the full write buffer and the last slots the minimum, never more than the budget', () => {
    const budget = 2048 * MiB;
    const max = 256;
    expect(grantStore(budget, 0, 0, max).writeBufferSize).toBe(MAX_WRITE_BUFFER);
    let granted = 0;
    const sizes: number[] = [];
    for (let open = 0; open < max; open++) {
      const g = grantStore(budget, granted, open, max);
      granted += g.bytes;
      sizes.push(g.writeBufferSize);
    }
    expect(granted).toBeLessThanOrEqual(budget - PROCESS_RESERVE_BYTES);
    expect(sizes.at(-1)).toBe(MIN_WRITE_BUFFER);
    expect(sizes.every((s, i) => i === 0 || s <= sizes[i - 1])).toBe(true);
    expect(maxStoresFor(budget)).toBe(Math.floor((budget - PROCESS_RESERVE_BYTES) / MIN_GRANT_BYTES));
  });
});

describe('the summary file (log-summary.ts)', () => {
  const H = 'sha256:' + 'a'.repeat(64);
  it('reads back what was written, and a torn, oversized or ill-typed file as no summary', async () => {
    const dir = await tmp.make();
    const log = 'sum.example/l';
    await writeLogSummary(
      dir,
      { log, mode: 'hash_only', open: true, head: { seq: 7, hash: H, root: H }, checkpoint: { seq: 6, hash: H } },
      Date.UTC(2026, 0, 1),
    );
    expect(await readLogSummary(dir, log)).toEqual({
      head: { seq: 7, hash: H, root: H },
      checkpoint: { seq: 6, hash: H },
      summaryAt: '2026-01-01T00:00:00.000Z',
    });
    const f = logSummaryFile(dir, log);
    await mkdir(dirname(f), { recursive: true });
    for (const bad of [
      '{"head":{"seq":7',
      JSON.stringify({ head: { seq: -1, hash: H, root: H }, summaryAt: 'x' }),
      JSON.stringify({ head: { seq: 1, hash: 'nope', root: H }, summaryAt: 'x' }),
      JSON.stringify({ head: { seq: 1, hash: H, root: H }, summaryAt: 'x', pad: 'x'.repeat(5000) }),
    ]) {
      await writeFile(f, bad);
      expect(await readLogSummary(dir, log)).toBeUndefined();
    }
    expect(await readLogSummary(dir, 'sum.example/never')).toBeUndefined();
  });
});
