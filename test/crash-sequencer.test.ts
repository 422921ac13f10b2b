// Crash consistency of the sequencer (docs/design.md §14): a real `cookwala sequencer` child process under
// concurrent load (clients that behave like device outboxes: signed events with Idempotency-Keys,
// every 201/200 recorded, an unanswered request retried unchanged until answered) is killed with
// SIGKILL at random moments and restarted, COOKWALA_CRASH_ROUNDS times (default 3; `npm run
// test:crash` runs 30). Afterwards, from the store itself: every acknowledged event is in the log
// exactly once at the seq it was acknowledged with; the chain and the Merkle tree verify from
// scratch (every entry rehashed, roots rebuilt leaf by leaf and compared with every stored and
// every served checkpoint); no two signed checkpoints share a seq with different heads; per
// subject, log order is cookwalaseq order; every device signature verifies.
import { afterAll, expect, it, onTestFailed } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../testkit/tmp.ts';
import { changes, waitFor } from '../testkit/wait.ts';
import { deviceKey, type TestKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { rebuildLog } from '../testkit/verify-log.ts';
import { initDataDir, logStoreDir } from '../sequencer/data-dir.ts';
import { openLogStore } from '../logstore/index.ts';
import { verifyEntryEventSignature, type Entry } from '../verifier/documents/entry.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { freePort } from '../testkit/net.ts';
import { readLogLines } from '../platform/logger.ts';

const ROUNDS = Number(process.env.COOKWALA_CRASH_ROUNDS ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOG = 'crash.example/missions/m-1';
const CLIENTS = 6;
const devices = Array.from({ length: CLIENTS }, (_, i) => deviceKey(300 + i));
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startChild(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/cookwala.js', 'sequencer', '--data', dir, '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const output = changes();
  child.stdout!.on('data', (d) => {
    out += d;
    output.notify();
  });
  child.stderr!.on('data', (d) => (err += d));
  child.once('exit', () => output.notify());
  return waitFor(
    () => {
      if (readLogLines(out).some((r) => r.event === 'listening')) return child;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`sequencer exited with ${child.exitCode ?? child.signalCode} before listening: ${out}${err}`);
      return undefined;
    },
    { what: 'the sequencer to listen', wake: output, detail: () => `${out}${err}` },
  );
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));
}

interface Ack {
  status: number;
  ce: CloudEvent;
  seq: number;
  hash: string;
  eventHash: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it(
  `every acknowledged event survives ${ROUNDS} SIGKILLs exactly once; chain, tree and checkpoints verify`,
  async () => {
    dir = await makeTempDir('cookwala-crash-');
    await initDataDir({ dir, logs: [LOG], mode: 'hash_only' });
    const cfgPath = join(dir, 'config.json');
    const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
    await writeFile(cfgPath, JSON.stringify({ ...cfg, checkpointIntervalMs: 50 }));
    const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let child = await startChild(port);
    for (const d of devices) {
      const r = await fetch(`${base}${logPath(LOG, '/keys')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(d.record),
      });
      expect(r.status).toBe(201);
    }

    const acks: Ack[] = [];
    // Resolve once acks holds more than n entries: an event (each ack notifies), not a poll.
    const ackListeners = new Set<() => void>();
    const moreAcksThan = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (acks.length <= n) return;
          ackListeners.delete(check);
          resolve();
        };
        ackListeners.add(check);
        check();
      });
    const unexpected: string[] = [];
    const served: Checkpoint[] = [];
    let stop = false;

    // One client = one device outbox: events in cookwalaseq order, each retried unchanged until answered.
    async function client(d: TestKey, idx: number): Promise<void> {
      const s = eventStream(d);
      let n = 0;
      while (!stop) {
        const batch = n % 3 === 2;
        const events = batch ? [s.next(`exec-${idx}`), s.next(`exec-${idx}`)] : [s.next(`exec-${idx}`)];
        const key = `${d.record.kid}-${n++}`;
        for (let attempt = 0; attempt < 2000; attempt++) {
          let res: Response;
          try {
            res = await fetch(`${base}${logPath(LOG, '/events')}`, {
              method: 'POST',
              headers: {
                'content-type': batch ? 'application/cloudevents-batch+json' : 'application/cloudevents+json',
                'idempotency-key': key,
              },
              body: JSON.stringify(batch ? events : events[0]),
            });
          } catch {
            await sleep(20); // down or reset: the outcome is unknown, so resend the same request
            continue;
          }
          const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & { results?: unknown[] };
          if (res.status === 503) {
            await sleep(20);
            continue;
          }
          const results = (batch && res.status === 200 ? body.results : [{ ...body, status: res.status }]) as Array<{
            status: number;
            seq: number;
            hash: string;
            eventHash: string;
            code?: string;
          }>;
          results.forEach((r, i) => {
            if (r.status === 201 || r.status === 200)
              acks.push({ status: r.status, ce: events[i], seq: r.seq, hash: r.hash, eventHash: r.eventHash });
            else unexpected.push(`${r.status} ${r.code}`);
          });
          for (const l of [...ackListeners]) l();
          break;
        }
      }
    }

    async function watcher(): Promise<void> {
      while (!stop) {
        try {
          const r = await fetch(`${base}${logPath(LOG, '/checkpoint')}`);
          if (r.status === 200) served.push((await r.json()) as Checkpoint);
        } catch {
          /* down */
        }
        await sleep(30);
      }
    }

    const load = [...devices.map((d, i) => client(d, i)), watcher()];
    const kills: number[] = [];
    onTestFailed(() => console.error(`sequencer crash test failed; kill delays (ms after the first ack of each run): ${kills.join(', ')}`));
    for (let round = 0; round < ROUNDS; round++) {
      // Each run appends at least once (an event, not a sleep), then dies at a random moment.
      await moreAcksThan(acks.length);
      const delay = 150 + Math.floor(Math.random() * 600);
      kills.push(delay);
      await sleep(delay);
      child.kill('SIGKILL');
      await exitOf(child);
      child = await startChild(port);
    }
    // The last restart recovered and appends again before the load stops.
    await moreAcksThan(acks.length);
    stop = true;
    await Promise.all(load);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);

    expect(unexpected).toEqual([]);
    expect(acks.length).toBeGreaterThan(ROUNDS);

    const store = await openLogStore(logStoreDir(dir, LOG), { createIfMissing: false });
    try {
      const head = store.head();
      const entries: Entry[] = [];
      for await (const e of store.entries(1, head.seq)) entries.push(e);
      expect(entries.length).toBe(head.seq);
      const rebuilt = rebuildLog(store.descriptor()!.hash, entries);
      expect(rebuilt.head).toBe(head.hash);
      expect(rebuilt.roots[head.seq]).toBe(head.root);

      // every acknowledged event: once, at its acknowledged seq
      const byId = new Map<string, number[]>();
      for (const e of entries) byId.set(`${e.ce.source}\n${e.ce.id}`, [...(byId.get(`${e.ce.source}\n${e.ce.id}`) ?? []), e.seq]);
      for (const a of acks) {
        const seqs = byId.get(`${a.ce.source}\n${a.ce.id}`);
        expect(seqs, `${a.ce.id} acknowledged at ${a.seq}`).toEqual([a.seq]);
        expect(entries[a.seq - 1]).toMatchObject({ hash: a.hash, eventHash: a.eventHash });
      }
      for (const seqs of byId.values()) expect(seqs).toHaveLength(1);

      // per subject: log order is cookwalaseq order, without gaps; device signatures verify
      const last = new Map<string, number>();
      const keys = new Map(devices.map((d) => [d.record.kid, d.record]));
      for (const e of entries) {
        if (e.ce.subject !== undefined && e.ce.cookwalaseq !== undefined) {
          const prev = last.get(e.ce.subject);
          if (prev !== undefined) expect(e.ce.cookwalaseq).toBe(prev + 1);
          last.set(e.ce.subject, e.ce.cookwalaseq);
        }
        expect(verifyEntryEventSignature(e, (kid) => keys.get(kid)).ok).toBe(true);
      }

      // checkpoints: every stored and every served one matches the rebuilt tree; one head per seq
      const stored: Checkpoint[] = [];
      for await (const cp of store.checkpoints()) stored.push(cp);
      expect(stored.length).toBeGreaterThan(0);
      const headAt = new Map<number, string>();
      for (const cp of [...stored, ...served]) {
        expect(cp.seq).toBeLessThanOrEqual(head.seq);
        expect(cp.root, `checkpoint ${cp.seq}`).toBe(rebuilt.roots[cp.seq]);
        expect(cp.head).toBe(cp.seq === 0 ? store.descriptor()!.hash : entries[cp.seq - 1].hash);
        const seen = headAt.get(cp.seq);
        if (seen !== undefined) expect(cp.head).toBe(seen);
        headAt.set(cp.seq, cp.head);
      }
      const latest = await store.latestCheckpoint();
      expect(latest?.seq).toBe(head.seq); // the clean SIGTERM signed the final head
    } finally {
      await store.close();
    }
    console.log(
      `crash test: ${ROUNDS} kills at ${kills.join(',')} ms; ${acks.length} acknowledged events (${acks.filter((a) => a.status === 200).length} of them retries answered from the dedup index); ${served.length} checkpoints observed`,
    );
  },
  60_000 + ROUNDS * 10_000,
);
