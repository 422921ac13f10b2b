// testkit/executor.ts: fixtures for the executor's tests (not used by the library): a deterministic
// device identity, an executor on a temp data dir with a manual clock, recipe bodies, and one
// executor as a real child process (spawnExecutor). Kept out of *.test.ts so unit tests and
// test/executor-*.test.ts share one definition.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkLink, verifyEntryEventSignature, verifyEntryHash, type Entry } from '../verifier/documents/entry.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { createSigner, generateSecretKey, keyRecordOf } from '../verifier/signing/signature.ts';
import type { DeviceIdentity } from '../executor/device-key.ts';
import { sourceOf } from '../executor/device-key.ts';
import { createManualClock, type ManualClock } from './clock.ts';
import { createExecutor, type Executor, type ExecutorOptions, type ExecutorDeps } from '../executor/executor.ts';
import { readLogLines, type LogRecord } from '../platform/logger.ts';
import { changes, waitFor } from './wait.ts';

export function testDevice(name: string): DeviceIdentity {
  const seed = new Uint8Array(createHash('sha256').update(`cookwala-executor-test:${name}`).digest());
  const signer = createSigner(generateSecretKey('EdDSA', `${name}-key`, undefined, seed));
  const source = sourceOf(name);
  return { name, source, signer, keyRecord: keyRecordOf(signer, { owner: source, role: 'device', validFrom: '2026-01-01T00:00:00.000Z' }) };
}

export const SIMPLE_BODY = { recipe: { id: 'tea', steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 60 } }] } };
export const FRIES_BODY = { recipe: { id: 'fries', steps: [{ op: 'cw.op.deep_fry', params: { tempC: 175, durationS: 60 } }] } };

/**
 * The delivery loop's waits (DeliveryOptions.onWait) as events for tests: `until(cond)` checks
 * `cond` now and again each time the loop comes to rest (idle, or a backoff on the clock), which
 * is when the delivery state it reads can have changed. No sleep, no polling; `guardMs` only turns
 * a hang into a named failure.
 */
export interface DeliveryWaits {
  onWait(reason: 'idle' | 'backoff', ms: number): void;
  /** How many waits so far, and the latest. */
  count(): number;
  last(): { reason: 'idle' | 'backoff'; ms: number } | undefined;
  until(cond: () => boolean | Promise<boolean>, what: string, guardMs?: number): Promise<void>;
}

export function deliveryWaits(): DeliveryWaits {
  let latest: { reason: 'idle' | 'backoff'; ms: number } | undefined;
  const rested = changes();
  return {
    onWait(reason, ms) {
      latest = { reason, ms };
      rested.notify();
    },
    count: rested.count,
    last: () => latest,
    async until(cond, what, guardMs = 30_000) {
      await waitFor(async () => (await cond()) || undefined, {
        what: `a delivery step to bring ${what}`,
        timeoutMs: guardMs,
        wake: rested,
      });
    },
  };
}

let ids = 0;
export async function testExecutor(
  dataDir: string,
  opts: ExecutorOptions & { name?: string; clock?: ManualClock; deps?: Partial<ExecutorDeps> } = {},
): Promise<{ ex: Executor; clock: ManualClock; device: DeviceIdentity; waits: DeliveryWaits }> {
  const device = testDevice(opts.name ?? 'dev-t');
  // Delivering to a real sequencer (a real networkClock given), the device's clock starts at that
  // clock's now: the sequencer judges signedAt against its own time (verifier/documents/time-bounds.ts,
  // at most maxDeliveryDelay behind it), so a fixed start date would fail once real time passed it.
  const clock = opts.clock ?? createManualClock(opts.deps?.networkClock?.now());
  const waits = deliveryWaits();
  const given = opts.delivery?.onWait;
  const delivery = {
    ...opts.delivery,
    onWait: (reason: 'idle' | 'backoff', ms: number) => (given?.(reason, ms), waits.onWait(reason, ms)),
  };
  const ex = await createExecutor(
    {
      dataDir,
      source: device.source,
      signer: device.signer,
      keyRecord: device.keyRecord,
      clock,
      networkClock: clock,
      newId: () => `x${process.pid}-${++ids}`,
      ...opts.deps,
    },
    { heartbeatIntervalMs: 0, ...opts, delivery },
  );
  return { ex, clock, device, waits };
}

/** The entries of a log over real HTTP (NDJSON), and the descriptor hash they chain from. */
export async function fetchLog(url: string, log: string): Promise<{ descriptorHash: string; entries: Entry[] }> {
  const base = `${url}/v1/logs/${encodeURIComponent(log)}`;
  const d = (await (await fetch(base)).json()) as { hash: string };
  const text = await (await fetch(`${base}/entries?from=1`)).text();
  const entries = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Entry);
  return { descriptorHash: d.hash, entries };
}

/**
 * Check a log as an auditor would, from scratch: every entry hash, every link from the descriptor,
 * every device signature with the given keys. Returns the first problem, or undefined.
 */
export function checkChain(descriptorHash: string, entries: Entry[], keys: KeyRecord[]): string | undefined {
  let prev = { seq: 0, hash: descriptorHash };
  const lookup = (kid: string) => keys.find((k) => k.kid === kid);
  for (const e of entries) {
    const h = verifyEntryHash(e);
    if (!h.ok) return `${h.code} ${h.detail}`;
    const l = checkLink(prev, e);
    if (!l.ok) return `${l.code} ${l.detail}`;
    if (keys.some((k) => k.owner === e.ce.source)) {
      const s = verifyEntryEventSignature(e, lookup);
      if (!s.ok) return `${s.code} ${s.detail}`;
    }
    prev = e;
  }
  return undefined;
}

/** For each subject: its cookwalaseqs in log order. */
export function subjectOrder(entries: Entry[], source?: string): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const e of entries) {
    if (source && e.ce.source !== source) continue;
    if (e.ce.subject === undefined || e.ce.cookwalaseq === undefined) continue;
    const l = m.get(e.ce.subject) ?? [];
    l.push(e.ce.cookwalaseq);
    m.set(e.ce.subject, l);
  }
  return m;
}

/**
 * One executor as a real child process (`node bin/cookwala.js executor --data DIR --port 0 …`):
 * its URL, owner token and every output line. `until(cond)` resolves when a line (or the exit)
 * makes cond true, checked on each new line: no sleeps, no polling; `ms` only turns a hang into a
 * failure that shows the last lines.
 */
export interface ExecutorProcess {
  proc: ChildProcess;
  url: string;
  data: string;
  ownerToken: string;
  lines: string[];
  exit: Promise<number | null>;
  until(cond: (lines: string[]) => boolean, what: string, ms?: number): Promise<void>;
  /** SIGTERM, then wait for the exit. */
  close(): Promise<number | null>;
}

const ROOT = join(import.meta.dirname, '..');

export async function spawnExecutor(data: string, args: string[] = []): Promise<ExecutorProcess> {
  const proc = spawn(
    process.execPath,
    [join(ROOT, 'bin/cookwala.js'), 'executor', '--data', data, '--port', '0', '--heartbeat-ms', '0', ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Its JSON log lines are kept as records, and as their `msg` in `lines` (what a person reads).
  const lines: string[] = [];
  const records: LogRecord[] = [];
  const output = changes();
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    for (const p of parts) {
      const [r] = readLogLines(p);
      if (r) records.push(r);
      lines.push(r && typeof r.msg === 'string' ? r.msg : p);
    }
    if (parts.length) output.notify();
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  let exited = false;
  const exit = new Promise<number | null>((r) =>
    proc.on('exit', (code) => {
      exited = true;
      r(code);
      output.notify();
    }),
  );
  const said = () => `the executor said:\n${lines.slice(-30).join('\n')}`;
  const until = async (cond: (l: string[]) => boolean, what: string, ms = 20_000): Promise<void> => {
    await waitFor(
      () => {
        if (cond(lines)) return true;
        if (exited) throw new Error(`the executor exited before ${what}; ${said()}`);
        return undefined;
      },
      { what, timeoutMs: ms, wake: output, detail: said },
    );
  };
  const listening = () => records.find((r) => r.event === 'listening');
  await until(() => listening() !== undefined, 'the API to listen');
  const url = listening()!.url as string;
  const ownerToken = (await readFile(join(data, 'owner-token'), 'utf8')).trim();
  return {
    proc,
    url,
    data,
    ownerToken,
    lines,
    exit,
    until,
    async close() {
      if (!exited) proc.kill('SIGTERM');
      return exit;
    },
  };
}

/** The `status <id> #<seq> <state>` message of the executor's execution_status log line, for each status change. */
export const statusLine = (id: string, state: string) => (l: string[]) =>
  l.some((x) => x.startsWith(`status ${id} #`) && x.split(' ')[3] === state);
