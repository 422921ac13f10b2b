// testkit/audit.ts: a real audited log for the audit tests. buildAuditedLog() runs
// `cookwala init` into a temp dir, writes a witness policy with three witnesses and quorum 2, and
// opens the real sequencer (LevelDB, fastify) whose checkpoint publisher has the three witness keys
// cosign each checkpoint (an in-process stand-in for the libp2p witnesses: the sequencer stores the
// cosigned checkpoint as it would with real ones). Devices register through the operator endpoint
// and post signed events; a payload is erased through DELETE. Also: running the `cookwala` CLI as
// a child process, and NDJSON line edits for tampering, down to a whole re-sealed forgery
// (resign: a new device signature; reseal: checkpoints rebuilt over the edited entries, signed by
// the sequencer key and cosigned by the witness keys), so only the check under test can catch it.

import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { addCosignature, buildCheckpoint, cosignCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { encodeCookwalasig } from '../verifier/cloudevent/read.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { createFrontier, hashLeaf } from '../verifier/merkle/index.ts';
import { formatHash, formatTime } from '../verifier/encoding/wire.ts';
import { computeHash, type JsonObject } from '../verifier/signing/document-hash.ts';
import { createSigner, signHash, type Signer } from '../verifier/signing/signature.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { createManualClock, type ManualClock } from './clock.ts';
import { deviceKey, signerKey, type TestKey } from './keys.ts';
import { eventStream } from './events.ts';
import { logPath } from './sequencer.ts';
import { makeTempDir } from './tmp.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const AUDIT_LOG = 'audit.example/missions/m-7';
export const OTHER_LOG = 'audit.example/missions/m-8';

export interface AuditedLog {
  dir: string;
  policyPath: string;
  clock: ManualClock;
  seq: Sequencer;
  token: string;
  sequencer: Signer;
  witnesses: TestKey[];
  devices: TestKey[];
  /** Post `n` events per device stream, then sign (and cosign) a checkpoint. */
  round(n: number, log?: string): Promise<void>;
  erase(seq: number, log?: string): Promise<void>;
  bundle(log?: string): Promise<string>;
  close(): Promise<void>;
}

export async function buildAuditedLog(opts: { quorum?: number } = {}): Promise<AuditedLog> {
  const dir = await makeTempDir('cookwala-audit-');
  // A day in the past, so that a real-time export (the CLI in a child process) is later than every stamp.
  const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000 - 86_400_000);
  await initDataDir({ dir, logs: [AUDIT_LOG, OTHER_LOG], mode: 'hash_only', now: () => clock.now() });
  const keyRecord = JSON.parse(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const sequencer = createSigner(JSON.parse(await readFile(join(dir, DATA_FILES.key), 'utf8')));
  const token = (await readFile(join(dir, DATA_FILES.token), 'utf8')).trim();
  const witnesses = [1, 2, 3].map((i) => signerKey(`w${i}`, 'witness'));
  const policy = {
    kind: 'WitnessPolicy',
    log: AUDIT_LOG,
    sequencer: keyRecord,
    witnesses: witnesses.map((w) => w.record),
    quorum: opts.quorum ?? 2,
  };
  const policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, JSON.stringify(policy, null, 2) + '\n');
  const cosign = {
    async publish(cp: Checkpoint) {
      let c = cp;
      for (const w of witnesses) c = addCosignature(c, cosignCheckpoint(c, w.signer, formatTime(clock.now())));
      return c;
    },
  };
  const seq = await openSequencer(dir, { clock, timers: false, publisherFor: () => cosign });
  const devices = [deviceKey(1), deviceKey(2)];
  for (const log of [AUDIT_LOG, OTHER_LOG]) {
    for (const d of devices) {
      const r = await seq.app.inject({
        method: 'POST',
        url: logPath(log, '/keys'),
        headers: { authorization: `Bearer ${token}` },
        payload: d.record,
      });
      if (r.statusCode !== 201 && r.statusCode !== 200) throw new Error(`register ${d.record.kid}: ${r.statusCode} ${r.body}`);
    }
  }
  const streams = new Map<string, ReturnType<typeof eventStream>[]>();
  let posted = 0;
  const a: AuditedLog = {
    dir,
    policyPath,
    clock,
    seq,
    token,
    sequencer,
    witnesses,
    devices,
    async round(n, log = AUDIT_LOG) {
      // Devices sign on the sequencer's clock, as a device with a synchronised clock would.
      if (!streams.has(log))
        streams.set(
          log,
          devices.map((d) => eventStream(d, { signedAt: () => formatTime(clock.now()) })),
        );
      const [s1, s2] = streams.get(log)!;
      for (let i = 0; i < n; i++) {
        clock.advance(7);
        for (const ce of [s1.next(i % 2 === 0 ? 'exec-a' : 'exec-b'), s2.next('exec-c', { data: { step: i, note: 'é ✓ 𝄞' } })]) {
          const r = await seq.app.inject({
            method: 'POST',
            url: logPath(log, '/events'),
            headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `k-${++posted}` },
            payload: JSON.stringify(ce),
          });
          if (r.statusCode !== 201) throw new Error(`post: ${r.statusCode} ${r.body}`);
        }
      }
      clock.advance(1000);
      await seq.tick();
    },
    async erase(n, log = AUDIT_LOG) {
      const r = await seq.app.inject({
        method: 'DELETE',
        url: logPath(log, `/events/${n}/payload`),
        headers: { authorization: `Bearer ${token}` },
        payload: { reason: 'consent withdrawn' },
      });
      if (r.statusCode !== 200) throw new Error(`erase: ${r.statusCode} ${r.body}`);
      clock.advance(1000);
      await seq.tick();
    },
    async bundle(log = AUDIT_LOG) {
      const r = await seq.app.inject({ method: 'GET', url: logPath(log, '/bundle') });
      if (r.statusCode !== 200) throw new Error(`bundle: ${r.statusCode} ${r.body}`);
      return r.body;
    },
    close: () => seq.close(),
  };
  return a;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/cookwala.js …args` as a child process, from the project root. */
export function cookwala(args: string[], opts: { env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/cookwala.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `tasks` with at most `n` at a time (the machine has two cores shared with others). */
export async function limited<T>(n: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]();
      }
    }),
  );
  return out;
}

// ---- NDJSON edits -------------------------------------------------------------------------------

export type Doc = Record<string, any>;

export function toLines(text: string): string[] {
  const l = text.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}
export const fromLines = (lines: string[]) => lines.map((l) => l + '\n').join('');

export function find(lines: string[], pred: (d: Doc) => boolean): number {
  const i = lines.findIndex((l) => {
    try {
      return pred(JSON.parse(l));
    } catch {
      return false;
    }
  });
  if (i < 0) throw new Error('no such line');
  return i;
}
export const entryLine = (lines: string[], seq: number) => find(lines, (d) => d.kind === 'Event' && d.seq === seq);
export const payloadLine = (lines: string[], seq: number) => find(lines, (d) => d.kind === 'Payload' && d.seq === seq);
export const checkpointLine = (lines: string[], seq: number) => find(lines, (d) => d.kind === 'Checkpoint' && d.seq === seq);

export function edit(lines: string[], i: number, f: (d: Doc) => void): string[] {
  const out = lines.slice();
  const d = JSON.parse(out[i]);
  f(d);
  out[i] = JSON.stringify(d);
  return out;
}

export function rehash(d: Doc): void {
  const h = computeHash(d as JsonObject);
  if (h.ok) d.hash = h.value;
}

/** What a sequencer rewriting history does: from line `from` on, every entry's prev and hash recomputed. */
export function rechain(lines: string[], from: number): string[] {
  const out = lines.slice();
  let prev: string | undefined;
  for (let i = 0; i < out.length; i++) {
    let d: Doc;
    try {
      d = JSON.parse(out[i]);
    } catch {
      continue;
    }
    if (d.kind !== 'Event') continue;
    if (i >= from) {
      if (prev) d.prev = prev;
      rehash(d);
      out[i] = JSON.stringify(d);
    }
    prev = d.hash;
  }
  return out;
}

export function flipChar(s: string, at = 10): string {
  const c = s[at];
  return s.slice(0, at) + (c === 'A' ? 'B' : 'A') + s.slice(at + 1);
}

/** A new device signature at `signedAt` on entry `seq` (and its payload's cookwalasig), entry rehashed. */
export function resign(lines: string[], seq: number, signer: Signer, signedAt: string): string[] {
  const i = find(lines, (d) => d.kind === 'Event' && d.seq === seq);
  let sig: ReturnType<typeof signHash> | undefined;
  let out = edit(lines, i, (d) => {
    sig = signHash(d.eventHash, 'Event', signer, signedAt);
    d.eventSignature = sig;
    rehash(d);
  });
  const p = out.findIndex((l) => l.includes('"kind":"Payload"') && JSON.parse(l).seq === seq);
  if (p >= 0) out = edit(out, p, (d) => (d.event.cookwalasig = encodeCookwalasig(sig!)));
  return out;
}

/**
 * Every checkpoint rebuilt over the entries as they now stand (head and Merkle root at its seq),
 * signed by `sequencer` at its old signedAt and cosigned by each witness signer whose kid it
 * carried, at that cosignature's old signedAt unless `cosignAt` gives another.
 */
export function reseal(
  lines: string[],
  sequencer: Signer,
  witnesses: Signer[],
  cosignAt?: (cp: Doc, old: string, kid: string) => string,
): string[] {
  const heads = new Map<number, { head: string; root: string }>();
  const frontier = createFrontier();
  const out = lines.slice();
  for (const l of lines) {
    let d: Doc;
    try {
      d = JSON.parse(l);
    } catch {
      continue;
    }
    if (d.kind !== 'Event') continue;
    frontier.append(hashLeaf(entryLeaf(d as { hash: string })));
    heads.set(d.seq, { head: d.hash, root: formatHash(frontier.root()) });
  }
  for (let i = 0; i < out.length; i++) {
    let d: Doc;
    try {
      d = JSON.parse(out[i]);
    } catch {
      continue;
    }
    if (d.kind !== 'Checkpoint' || !heads.has(d.seq)) continue;
    const { head, root } = heads.get(d.seq)!;
    let cp = buildCheckpoint({ log: d.log, seq: d.seq, head, root }, sequencer, d.signature[0].signedAt);
    for (const old of d.signature.slice(1) as Array<{ kid: string; signedAt: string }>) {
      const w = witnesses.find((x) => x.kid === old.kid);
      if (w) cp = addCosignature(cp, cosignCheckpoint(cp, w, cosignAt ? cosignAt(d, old.signedAt, old.kid) : old.signedAt));
    }
    out[i] = JSON.stringify(cp);
  }
  return out;
}
