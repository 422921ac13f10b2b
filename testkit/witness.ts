// testkit/witness.ts: test and bench doubles for the witness protocol: deterministic keys, and a
// "fake log" that plays a sequencer (descriptor, an in-memory RFC 6962 tree over synthetic entry
// hashes, signed checkpoints, add-checkpoint requests with real proofs) without a logstore. A
// witness checks only checkpoints and proofs, never entries, so synthetic heads are enough.
// `fork()` returns a second log sharing this one's history so far under the same key: the
// split-view attacker of the fork tests. Never imported by production code.

import { createHash, randomBytes } from 'node:crypto';
import { createSigner, keyRecordOf, type Signer } from '../verifier/signing/signature.ts';
import { formatHash, formatTime, toBase64url } from '../verifier/encoding/wire.ts';
import type { KeyRecord, KeyRole } from '../verifier/signing/keys.ts';
import { buildCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { buildLogDescriptor, type LogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { consistencyProof, createMemoryTree, hashLeaf, inclusionProof, rootAt, type MemoryTree } from '../verifier/merkle/index.ts';
import type { AddCheckpointRequest } from '../witness/wire/messages.ts';

export const TEST_EPOCH = '2020-01-01T00:00:00.000Z';

/** A deterministic Ed25519 signer and its KeyRecord (valid from TEST_EPOCH). */
export function testKey(name: string, role: KeyRole): { signer: Signer; keyRecord: KeyRecord } {
  const seed = createHash('sha256').update(`cookwala-test-key:${name}`).digest();
  const signer = createSigner({ alg: 'EdDSA', kid: `${role.slice(0, 3)}-${name}`, secretKey: toBase64url(seed) });
  return { signer, keyRecord: keyRecordOf(signer, { owner: `test:${name}`, role, validFrom: TEST_EPOCH }) };
}

export interface FakeLog {
  readonly origin: string;
  readonly descriptor: LogDescriptor;
  readonly signer: Signer;
  readonly keyRecord: KeyRecord;
  readonly size: number;
  /** heads[s] = the head at seq s (heads[0] = the descriptor hash). */
  readonly heads: string[];
  /** Append n synthetic entries (random entry hashes). */
  append(n: number): void;
  rootAt(seq: number): Promise<string>;
  checkpoint(seq?: number, signedAt?: string): Promise<Checkpoint>;
  /** An add-checkpoint request from oldSeq to cp (default: a fresh checkpoint at the current size). */
  request(oldSeq: number, cp?: Checkpoint): Promise<AddCheckpointRequest>;
  /** Another log with the same key and history so far; appends to it diverge from this one. */
  fork(): FakeLog;
}

function makeLog(origin: string, signer: Signer, keyRecord: KeyRecord, descriptor: LogDescriptor, history: string[]): FakeLog {
  const heads = [descriptor.hash];
  const tree: MemoryTree = createMemoryTree();
  const push = (h: string) => {
    heads.push(h);
    tree.append(hashLeaf(Buffer.from(h.slice(7), 'hex')));
  };
  for (const h of history) push(h);
  const rootOf = async (seq: number) => formatHash(await rootAt(tree, seq));
  const log: FakeLog = {
    origin,
    descriptor,
    signer,
    keyRecord,
    heads,
    get size() {
      return tree.size;
    },
    append(n) {
      for (let i = 0; i < n; i++) push(formatHash(randomBytes(32)));
    },
    rootAt: rootOf,
    async checkpoint(seq = tree.size, signedAt = formatTime(Date.now())) {
      return buildCheckpoint({ log: origin, seq, head: heads[seq], root: await rootOf(seq) }, signer, signedAt);
    },
    async request(oldSeq, cp) {
      const c = cp ?? (await log.checkpoint());
      const consistency = oldSeq > 0 && oldSeq < c.seq ? (await consistencyProof(tree, oldSeq, c.seq)).map(formatHash) : [];
      const headProof = c.seq > 0 ? (await inclusionProof(tree, c.seq - 1, c.seq)).map(formatHash) : [];
      const req: AddCheckpointRequest = { type: 'add-checkpoint', oldSeq, consistency, headProof, checkpoint: c };
      if (oldSeq === 0) req.descriptor = descriptor;
      return req;
    },
    fork() {
      return makeLog(origin, signer, keyRecord, descriptor, heads.slice(1));
    },
  };
  return log;
}

export function createFakeLog(origin: string, keyName = 'sequencer'): FakeLog {
  const { signer, keyRecord } = testKey(keyName, 'sequencer');
  const descriptor = buildLogDescriptor({ log: origin, mode: 'hash_only', createdAt: TEST_EPOCH }, signer);
  return makeLog(origin, signer, keyRecord, descriptor, []);
}

/** A FakeLog as the publisher's store: proofs from its tree, checkpoints kept in a map by seq. */
export function fakeStore(log: FakeLog) {
  const checkpoints = new Map<number, Checkpoint>();
  return {
    checkpoints,
    descriptor: () => log.descriptor,
    async inclusionProof(seq: number, size: number) {
      const req = await log.request(size, await log.checkpoint(size));
      if (seq !== size) throw new Error('fakeStore proves the head only');
      return req.headProof;
    },
    async consistencyProof(from: number, to: number) {
      return (await log.request(from, await log.checkpoint(to))).consistency;
    },
    async putCheckpoint(cp: Checkpoint) {
      const have = checkpoints.get(cp.seq);
      if (have && (have.head !== cp.head || have.root !== cp.root)) throw new Error('fork');
      if (!have || cp.signature.length >= have.signature.length) checkpoints.set(cp.seq, cp);
    },
  };
}
