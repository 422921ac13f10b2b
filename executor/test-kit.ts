// executor/test-kit.ts: fixtures for the executor's tests (not used by the library): a deterministic
// device identity, an executor on a temp data dir with a manual clock, and recipe bodies. Kept out
// of *.test.ts so unit tests and test/executor-*.test.ts share one definition.

import { createHash } from 'node:crypto';
import { checkLink, verifyEntryEventSignature, verifyEntryHash, type Entry } from '../verifier/entry.ts';
import type { KeyRecord } from '../verifier/keys.ts';
import { createSigner, generateSecretKey, keyRecordOf } from '../verifier/signature.ts';
import type { DeviceIdentity } from './device-key.ts';
import { sourceOf } from './device-key.ts';
import { manualClock, type ManualClock } from './clock.ts';
import { createExecutor, type Executor, type ExecutorOptions, type ExecutorDeps } from './executor.ts';

export function testDevice(name: string): DeviceIdentity {
  const seed = new Uint8Array(createHash('sha256').update(`cookwala-executor-test:${name}`).digest());
  const signer = createSigner(generateSecretKey('EdDSA', `${name}-key`, undefined, seed));
  const source = sourceOf(name);
  return { name, source, signer, keyRecord: keyRecordOf(signer, { owner: source, role: 'device', validFrom: '2026-01-01T00:00:00.000Z' }) };
}

export const SIMPLE_BODY = { recipe: { id: 'tea', steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 60 } }] } };
export const FRIES_BODY = { recipe: { id: 'fries', steps: [{ op: 'cw.op.deep_fry', params: { tempC: 175, durationS: 60 } }] } };

let ids = 0;
export async function testExecutor(dataDir: string, opts: ExecutorOptions & { name?: string; clock?: ManualClock; deps?: Partial<ExecutorDeps> } = {}): Promise<{ ex: Executor; clock: ManualClock; device: DeviceIdentity }> {
  const device = testDevice(opts.name ?? 'dev-t');
  const clock = opts.clock ?? manualClock();
  const ex = await createExecutor(
    { dataDir, source: device.source, signer: device.signer, keyRecord: device.keyRecord, clock, networkClock: clock, newId: () => `x${process.pid}-${++ids}`, ...opts.deps },
    { heartbeatIntervalMs: 0, ...opts },
  );
  return { ex, clock, device };
}

/** The entries of a log over real HTTP (NDJSON), and the descriptor hash they chain from. */
export async function fetchLog(url: string, log: string): Promise<{ descriptorHash: string; entries: Entry[] }> {
  const base = `${url}/v1/logs/${encodeURIComponent(log)}`;
  const d = (await (await fetch(base)).json()) as { hash: string };
  const text = await (await fetch(`${base}/entries?from=1`)).text();
  const entries = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Entry);
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
