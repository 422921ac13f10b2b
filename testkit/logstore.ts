// testkit/logstore.ts: helpers for the store's tests, its child-process fixtures and the append
// bench: temp directories, a fixed sequencer key, a descriptor, chained AppendItems built with the
// project's own document code (buildEntry, signHash), so what is stored is a real log, and a
// spawner for test/logstore-child.ts. Not imported by the store itself. Invariant: items built from a head chain from exactly that head.

import fs from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createSigner, generateSecretKey, signHash, type Signer } from '../verifier/signing/signature.ts';
import { computeHash, type JsonObject } from '../verifier/signing/document-hash.ts';
import { buildEntry, type Entry } from '../verifier/documents/entry.ts';
import { buildLogDescriptor, type LogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { buildCheckpoint, cosignCheckpoint, addCosignature, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import type { AppendItem, Head, LogStore } from '../logstore/types.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { makeTempDirSync, removeDirSync } from './tmp.ts';

export const TEST_LOG = 'test.cookwala.example/logs/l1';
export const T0 = '2026-11-30T10:00:00.000Z';

export function tempDir(prefix = 'cookwala-logstore-'): string {
  return makeTempDirSync(prefix);
}

export function removeDir(dir: string): void {
  removeDirSync(dir);
}

export function fixedSigner(kid: string, seedByte: number): Signer {
  return createSigner(generateSecretKey('EdDSA', kid, undefined, new Uint8Array(32).fill(seedByte)));
}

export const sequencerSigner = (): Signer => fixedSigner('seq-1', 1);
export const deviceSigner = (): Signer => fixedSigner('dev-1', 2);
export const witnessSigner = (): Signer => fixedSigner('wit-1', 3);

export function makeDescriptor(mode: 'full' | 'hash_only', log = TEST_LOG): LogDescriptor {
  return buildLogDescriptor({ log, mode, createdAt: T0 }, sequencerSigner());
}

export interface EventOpts {
  source?: string;
  subject?: string;
  cookwalaseq?: number;
  type?: string;
  /** Bytes carried as data_base64 (the bench's 600-byte block). */
  block?: Uint8Array;
  data?: unknown;
}

export function makeEvent(id: string, o: EventOpts = {}): CloudEvent {
  const ce: Record<string, unknown> = {
    specversion: '1.0',
    id,
    source: o.source ?? 'urn:dev:oven-1',
    type: o.type ?? 'cookwala.execution.running',
  };
  if (o.subject !== undefined) ce.subject = o.subject;
  if (o.cookwalaseq !== undefined) ce.cookwalaseq = o.cookwalaseq;
  if (o.block) {
    ce.datacontenttype = 'application/octet-stream';
    ce.data_base64 = Buffer.from(o.block).toString('base64');
  } else {
    ce.datacontenttype = 'application/json';
    ce.data = o.data ?? { step: id };
  }
  return ce as CloudEvent;
}

/** An entry for `ce` at head+1, signed (as eventSignature) by `signer`. */
export function entryFor(log: string, prev: { seq: number; hash: string }, ce: CloudEvent, signer: Signer, sequencedAt = T0): Entry {
  const eventHash = computeHash(ce as unknown as JsonObject);
  if (!eventHash.ok) throw new TypeError(eventHash.detail);
  const c: Entry['ce'] = { source: ce.source, id: ce.id, type: ce.type };
  if (ce.subject !== undefined) c.subject = ce.subject;
  if (ce.cookwalaseq !== undefined) c.cookwalaseq = ce.cookwalaseq;
  return buildEntry({
    log,
    seq: prev.seq + 1,
    prev: prev.hash,
    sequencedAt,
    ce: c,
    eventHash: eventHash.value,
    eventSignature: signHash(eventHash.value, 'Event', signer, sequencedAt),
  });
}

export function itemFor(log: string, prev: { seq: number; hash: string }, ce: CloudEvent, signer: Signer): AppendItem {
  const entry = entryFor(log, prev, ce, signer);
  const item: AppendItem = { entry, payload: ce, dedup: { source: ce.source, id: ce.id } };
  if (ce.subject !== undefined && ce.cookwalaseq !== undefined) item.subject = { subject: ce.subject, cookwalaseq: ce.cookwalaseq };
  return item;
}

/** `count` chained items from `head`; event ids are `${prefix}${seq}`. */
export function makeItems(
  log: string,
  head: Pick<Head, 'seq' | 'hash'>,
  count: number,
  o: EventOpts & { prefix?: string } = {},
  signer = deviceSigner(),
): AppendItem[] {
  const out: AppendItem[] = [];
  let prev = { seq: head.seq, hash: head.hash };
  for (let i = 0; i < count; i++) {
    const item = itemFor(log, prev, makeEvent(`${o.prefix ?? 'ev-'}${prev.seq + 1}`, o), signer);
    out.push(item);
    prev = { seq: item.entry.seq, hash: item.entry.hash };
  }
  return out;
}

/** Erase the payload at `seq` of a hash_only store as the sequencer does: record and cookwala.log.erased entry (reason 'test'). */
export async function erasePayloadOf(s: LogStore, seq: number): Promise<void> {
  const e = await s.getEntry(seq);
  if (!e) throw new Error(`erasePayloadOf: no entry at ${seq}`);
  const ce = makeEvent(`erase-${seq}`, {
    source: 'urn:cookwala:sequencer',
    type: 'cookwala.log.erased',
    data: { seq, eventHash: e.eventHash },
  });
  await s.erasePayload(
    seq,
    { seq, eventHash: e.eventHash, reason: 'test', erasedAt: T0 },
    itemFor(TEST_LOG, s.head(), ce, sequencerSigner()),
  );
}

export function makeCheckpoint(log: string, seq: number, head: string, root: string, signedAt = T0): Checkpoint {
  return buildCheckpoint({ log, seq, head, root }, sequencerSigner(), signedAt);
}

export function cosigned(cp: Checkpoint, signer: Signer, signedAt = T0): Checkpoint {
  return addCosignature(cp, cosignCheckpoint(cp, signer, signedAt));
}

/**
 * A random marker for payloads whose bytes a test looks for in the LevelDB files: letters outside
 * the hex alphabet and no repeats, so Snappy cannot split it by matching parts elsewhere.
 */
export function secret(): string {
  const abc = 'GHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz';
  let s = 'SECRET-';
  for (let i = 0; i < 48; i++) s += abc[randomInt(abc.length)];
  return s;
}

/** Does any file under `dir` contain these bytes (LevelDB tables, logs, manifests)? */
export function dirContains(dir: string, needle: Uint8Array): boolean {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (!fs.statSync(p).isFile()) continue;
    if (fs.readFileSync(p).indexOf(Buffer.from(needle)) >= 0) return true;
  }
  return false;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Start test/logstore-child.ts (see its header for the modes) under tsx, output as lines. */
export function spawnChild(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'logstore-child.ts'), ...args], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then((code) => {
    if (code) process.stderr.write(`child ${args.join(' ')} exited ${code}: ${err}\n`);
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return { child, lines, exited };
}

/** The reason code a promise rejects with (a ProtocolError), or 'no error'; anything else rethrows. */
export async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return 'no error';
}
