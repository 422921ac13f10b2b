// testkit/monitor.ts: what the monitor's cross-process tests share (docs/monitoring.md): a real
// `cookwala sequencer` child process over a data directory of its own (LevelDB, hash_only, quorum
// 0, checkpoints every CHECKPOINT_MS), stopped and started again on the same directory; signed
// events posted to it in batches over HTTP; the data directory's store of a log rewritten while
// the sequencer is stopped (one old entry changed and every later entry re-chained, as an operator
// with write access to the data directory would, its checkpoint mark removed, so the tree the restarted sequencer signs no longer extends
// the one it signed before); a payload deleted from the store behind the sequencer's back; and a
// MonitorConfig for `cookwala monitor`. Left out: witnesses (the
// quorum checks have tests of their own, test/monitor.test.ts). Invariant: the rewritten store
// holds the same entries as before but one, each chained to the one before it.

import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { initDataDir, logStoreDir } from '../sequencer/data-dir.ts';
import { openLogStore, type AppendItem } from '../logstore/index.ts';
import { deviceKey, type TestKey } from './keys.ts';
import { eventStream } from './events.ts';
import { freePort } from './net.ts';
import { spawnCookwala, type Child } from './witness-procs.ts';
import { rehash } from './audit.ts';
import { Level } from 'level';
import { BANDED, P } from '../logstore/keys.ts';

export const CHECKPOINT_MS = 200;

export interface SequencerChild {
  dir: string;
  base: string;
  policyPath: string;
  /** Starts it (again) on its data directory and port; resolved once it listens. */
  start(): Promise<void>;
  /** SIGTERM, and resolved once it exited. */
  stop(): Promise<void>;
  /** Posts `n` signed events to `log` in batches of 100; every one acknowledged 201. */
  post(log: string, n: number): Promise<void>;
  /** The published checkpoint's size (0 before the first). */
  size(log: string): Promise<number>;
  /** Erases the payload of entry `seq` (DELETE …/events/{seq}/payload as the operator). */
  erase(log: string, seq: number): Promise<void>;
  proc(): Child | undefined;
}

export async function sequencerChild(dir: string, logs: string[]): Promise<SequencerChild> {
  await initDataDir({ dir, logs, mode: 'hash_only' });
  const configPath = join(dir, 'config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
  config.checkpointIntervalMs = CHECKPOINT_MS;
  await writeFile(configPath, JSON.stringify(config, null, 2) + '\n');
  const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const device: TestKey = deviceKey(4242);
  const streams = new Map<string, ReturnType<typeof eventStream>>();
  let child: Child | undefined;
  let batch = 0;
  const path = (log: string, rest: string) => `${base}/v1/logs/${encodeURIComponent(log)}${rest}`;
  const s: SequencerChild = {
    dir,
    base,
    policyPath: join(dir, 'policy.json'),
    proc: () => child,
    async start() {
      const c = spawnCookwala(['sequencer', '--data', dir, '--port', String(port)]);
      child = c;
      await Promise.race([
        c.logs.next('listening', undefined, 60_000),
        c.exited.then((x) => {
          throw new Error(`the sequencer exited (${String(x.code)}): ${c.err()}`);
        }),
      ]);
    },
    async stop() {
      if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
      child.proc.kill('SIGTERM');
      await child.exited;
    },
    async post(log, n) {
      if (!streams.has(log)) {
        const r = await fetch(path(log, '/keys'), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(device.record),
        });
        if (r.status !== 201 && r.status !== 200) throw new Error(`key registration: ${r.status} ${await r.text()}`);
        streams.set(log, eventStream(device, { signedAt: () => new Date().toISOString() }));
      }
      const st = streams.get(log)!;
      for (let done = 0; done < n; done += 100) {
        const k = Math.min(100, n - done);
        const body = JSON.stringify(Array.from({ length: k }, (_, i) => st.next(`exec-${batch % 7}`, { data: { step: i } })));
        const r = await fetch(path(log, '/events'), {
          method: 'POST',
          headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': `b-${batch++}` },
          body,
        });
        const text = await r.text();
        if (r.status !== 200 || !(JSON.parse(text).results as Array<{ status: number }>).every((x) => x.status === 201))
          throw new Error(`post: ${r.status} ${text.slice(0, 300)}`);
      }
    },
    async erase(log, n) {
      const r = await fetch(path(log, `/events/${n}/payload`), {
        method: 'DELETE',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ reason: 'consent withdrawn' }),
      });
      if (r.status !== 200) throw new Error(`erase ${n}: ${r.status} ${await r.text()}`);
    },
    async size(log) {
      const r = await fetch(path(log, '/checkpoint'), { headers: { accept: 'application/json' } });
      return r.status === 200 ? ((await r.json()) as { seq: number }).seq : 0;
    },
  };
  await s.start();
  return s;
}

/**
 * With the sequencer stopped: the store of `log` rebuilt with entry `seq` changed (its sequencedAt
 * one millisecond earlier, still after the entry before it) and every later entry re-chained;
 * payloads and indexes as they were. The old store is replaced.
 */
export async function rewriteEntry(dataDir: string, log: string, seq: number): Promise<{ oldHash: string; newHash: string }> {
  const from = logStoreDir(dataDir, log);
  const to = `${from}.rewritten`;
  const old = await openLogStore(from, { createIfMissing: false });
  const fresh = await openLogStore(to, { createIfMissing: true });
  let oldHash = '';
  let newHash = '';
  try {
    await fresh.init(old.descriptor()!);
    let prev = fresh.head().hash;
    const head = old.head().seq;
    let items: AppendItem[] = [];
    for await (const e of old.entries(1, head)) {
      const d = structuredClone(e) as unknown as Record<string, unknown>;
      if (e.seq === seq) {
        oldHash = e.hash;
        d.sequencedAt = new Date(Date.parse(e.sequencedAt) - 1).toISOString();
      }
      d.prev = prev;
      rehash(d);
      if (e.seq === seq) newHash = d.hash as string;
      prev = d.hash as string;
      const p = await old.getPayload(e.seq);
      const ce = e.ce as { source: string; id: string; subject?: string; cookwalaseq?: number };
      items.push({
        entry: d as unknown as AppendItem['entry'],
        ...(p && 'event' in p ? { payload: p.event } : {}),
        dedup: { source: ce.source, id: ce.id },
        ...(ce.subject !== undefined && ce.cookwalaseq !== undefined
          ? { subject: { subject: ce.subject, cookwalaseq: ce.cookwalaseq } }
          : {}),
      });
      if (items.length === 500) {
        await fresh.append(items);
        items = [];
      }
    }
    if (items.length > 0) await fresh.append(items);
  } finally {
    await old.close();
    await fresh.close();
  }
  await rm(from, { recursive: true, force: true });
  await rename(to, from);
  // The sequencer refuses to start on a store whose head is not that of its last signed checkpoint
  // (sequencer/checkpoint-mark.ts); whoever rewrites the store removes that mark too.
  await rm(join(dataDir, 'checkpoints', `${encodeURIComponent(log)}.json`), { force: true });
  return { oldHash, newHash };
}

/**
 * With the sequencer stopped: the payload bytes of entry `seq` of `log` deleted from its LevelDB
 * store, as someone with write access to the data directory could, leaving no erasure record and
 * no erasure entry behind. Throws when that payload is not there.
 */
export async function removePayload(dataDir: string, log: string, seq: number): Promise<void> {
  const db = new Level<Buffer, Buffer>(logStoreDir(dataDir, log), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    const key = BANDED.key(P.payload, seq);
    if ((await db.get(key)) === undefined) throw new Error(`${log} holds no payload for entry ${seq}`);
    await db.del(key, { sync: true });
  } finally {
    await db.close();
  }
}

/**
 * A MonitorConfig for `cookwala monitor` following `logs` of the sequencer at `base`, written to
 * `path`, with the data directory's policy (quorum 0) copied for each log beside it.
 */
export async function writeMonitorConfig(
  path: string,
  base: string,
  policyPath: string,
  logs: string[],
  o: { intervalMs?: number; staleAfterMs?: number; pageEntries?: number; erasureWithinEntries?: number; erasureWithinMs?: number } = {},
): Promise<void> {
  const policy = JSON.parse(await readFile(policyPath, 'utf8')) as Record<string, unknown>;
  const files: string[] = [];
  for (const [i, log] of logs.entries()) {
    files.push(`${path}.policy-${i}.json`);
    await writeFile(files[i], JSON.stringify({ ...policy, log }));
  }
  await writeFile(
    path,
    JSON.stringify({
      kind: 'MonitorConfig',
      logs: logs.map((origin, i) => ({ origin, kind: 'cookwala', url: base, policy: files[i] })),
      intervalMs: o.intervalMs ?? CHECKPOINT_MS,
      staleAfterMs: o.staleAfterMs ?? 120_000,
      ...(o.pageEntries !== undefined ? { pageEntries: o.pageEntries } : {}),
      ...(o.erasureWithinEntries !== undefined ? { erasureWithinEntries: o.erasureWithinEntries } : {}),
      ...(o.erasureWithinMs !== undefined ? { erasureWithinMs: o.erasureWithinMs } : {}),
    }),
  );
}

/** The monitor's state file of `log` in `stateDir` (monitor/state.ts names it by the origin's SHA-256). */
export const monitorStateFile = (stateDir: string, log: string) => join(stateDir, `${createHash('sha256').update(log).digest('hex')}.json`);
