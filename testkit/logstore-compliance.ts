// testkit/logstore-compliance.ts: the one compliance suite every logstore driver passes (docs/design.md
// §6, §12a): runLogStoreCompliance(name, driver) registers the same vitest cases for LevelDB
// (logstore/compliance-level.test.ts) and PostgreSQL (logstore/postgres/compliance.test.ts):
// init and head, append groups (chain refusals, two appends from one head, group commit), roots
// and proofs checked against the verifier's in-memory tree, the (source, id) and subject
// indexes, reopen, checkpoints (cosignatures merged, fork_detected, store_behind_checkpoint,
// rewrite_detected), erasure with real byte removal (a small payload in the main storage and a
// large one, which PostgreSQL keeps in TOAST, searched for in the driver's raw files), and the
// crash guard at open (a head rolled back below a signed checkpoint). Leaves out what only one
// driver has (LevelDB's store_locked, PostgreSQL's lease: their own tests). Invariant: every
// case asserts the state before the operation too, so it can fail.

import { describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import {
  createMemoryTree,
  hashLeaf,
  inclusionProof,
  consistencyProof,
  verifyInclusion,
  verifyConsistency,
} from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash, parseHash } from '../verifier/encoding/wire.ts';
import { ProtocolError } from '../verifier/errors.ts';
import type { AppendItem, Head, LogStore } from '../logstore/types.ts';
import { checkpointKey, singleKey } from '../logstore/keys.ts';
import { encodeHead, encodeJson } from '../logstore/values.ts';
import {
  TEST_LOG,
  T0,
  cosigned,
  deviceSigner,
  errorCode,
  fixedSigner,
  itemFor,
  makeCheckpoint,
  makeDescriptor,
  makeEvent,
  makeItems,
  sequencerSigner,
  witnessSigner,
} from './logstore.ts';

export interface ComplianceDriver {
  /** A new store, initialized with makeDescriptor(mode), closed by the driver after the test. */
  fresh(mode?: 'full' | 'hash_only'): Promise<LogStore>;
  /** Close `s` and open the same log again. */
  reopen(s: LogStore): Promise<LogStore>;
  /** Close `s` and put these raw key/values (keys.ts layout) into its storage, as damage would. */
  tamper(s: LogStore, puts: Array<{ key: Buffer; value: Buffer }>): Promise<void>;
  /** Open the log of a closed (tampered) store; may reject. */
  open(s: LogStore): Promise<LogStore>;
  /** Do the driver's raw files (LevelDB tables and logs; PostgreSQL relation files) hold these bytes? */
  bytesPresent(s: LogStore, needle: Uint8Array): Promise<boolean>;
}

function raw(h: string): Uint8Array {
  const r = parseHash(h);
  if (!r.ok) throw new Error(r.detail);
  return r.value;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Random letters with no structure a compressor could use (Snappy, pglz). */
function noise(n: number): string {
  const abc = 'GHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz';
  let s = '';
  for (let i = 0; i < n; i++) s += abc[randomInt(abc.length)];
  return s;
}

/** Short slices of a long marker: TOAST splits values into ~2 kB chunks, so search slices. */
function slices(marker: string): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i + 40 <= marker.length; i += 500) out.push(Buffer.from(marker.slice(i, i + 40)));
  return out;
}

async function anyPresent(d: ComplianceDriver, s: LogStore, needles: Buffer[]): Promise<boolean> {
  for (const n of needles) if (await d.bytesPresent(s, n)) return true;
  return false;
}

function erasedItem(head: Head, seq: number, eventHash: string, id = `erase-${seq}`): AppendItem {
  const ce = makeEvent(id, {
    source: 'urn:cookwala:sequencer',
    type: 'cookwala.log.erased',
    data: { seq, eventHash, reason: 'consent withdrawn' },
  });
  return itemFor(TEST_LOG, head, ce, sequencerSigner());
}

async function cpAt(s: LogStore, seq: number, signedAt?: string) {
  const head = seq === 0 ? s.descriptor()!.hash : (await s.getEntry(seq))!.hash;
  return makeCheckpoint(TEST_LOG, seq, head, await s.rootAt(seq), signedAt);
}

const OTHER = 'sha256:' + '11'.repeat(32);

export function runLogStoreCompliance(name: string, d: ComplianceDriver): void {
  describe(`logstore compliance: ${name}`, () => {
    it('init: head {0, descriptor hash, empty root}; same descriptor again is a no-op, another one descriptor_mismatch', async () => {
      const s = await d.fresh('full');
      const desc = makeDescriptor('full');
      expect(s.descriptor()).toEqual(desc);
      expect(s.head()).toEqual({
        seq: 0,
        hash: desc.hash,
        root: 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      });
      await s.init(desc);
      expect(await errorCode(s.init(makeDescriptor('hash_only')))).toBe('descriptor_mismatch');
    });

    it('append groups: round trip, streamed ranges, chain refusals, two appends from one head', async () => {
      const s = await d.fresh();
      const items = makeItems(TEST_LOG, s.head(), 7);
      const h = await s.append(items.slice(0, 3));
      expect(h.seq).toBe(3);
      const h2 = await s.append(items.slice(3));
      expect(h2).toEqual(s.head());
      expect(h2.hash).toBe(items[6].entry.hash);
      expect(await s.getEntry(5)).toEqual(items[4].entry);
      expect(await s.getEntry(8)).toBeUndefined();
      expect((await collect(s.entries(2, 4))).map((e) => e.seq)).toEqual([2, 3, 4]);
      expect((await collect(s.payloads(6, 100))).map((p) => p.seq)).toEqual([6, 7]);
      expect(await s.getPayload(7)).toEqual({ event: items[6].payload });
      // not chaining from the head: refused, nothing written
      expect(await errorCode(s.append(makeItems(TEST_LOG, { seq: 3, hash: items[2].entry.hash }, 1, { prefix: 'x-' })))).toBe(
        'chain_broken',
      );
      const other = makeItems('other.example/log', s.head(), 1);
      expect(await errorCode(s.append(other))).toBe('log_mismatch');
      expect(s.head()).toEqual(h2);
      // two appends built from the same head, issued together: exactly one lands
      const a = makeItems(TEST_LOG, s.head(), 3, { prefix: 'a-' });
      const b = makeItems(TEST_LOG, s.head(), 3, { prefix: 'b-' });
      const r = await Promise.allSettled([s.append(a), s.append(b)]);
      expect(r.map((x) => x.status)).toEqual(['fulfilled', 'rejected']);
      expect(((r[1] as PromiseRejectedResult).reason as ProtocolError).code).toBe('chain_broken');
      expect((await s.getEntry(8))!.ce.id).toBe('a-8');
      // chained calls issued together share batches and all land
      let prev: Pick<Head, 'seq' | 'hash'> = s.head();
      const calls: Array<Promise<Head>> = [];
      for (let i = 0; i < 20; i++) {
        const its = makeItems(TEST_LOG, prev, 5, { prefix: `g${i}-` });
        prev = { seq: its[4].entry.seq, hash: its[4].entry.hash };
        calls.push(s.append(its));
      }
      const heads = await Promise.all(calls);
      expect(heads.map((x) => x.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 10 + 5 * (i + 1)));
      expect(s.head().seq).toBe(110);
    });

    it('roots equal the in-memory reference; inclusion and consistency proofs verify', async () => {
      const s = await d.fresh();
      const mem = createMemoryTree();
      const roots: string[] = [s.head().root];
      for (const n of [1, 6, 17, 3, 40]) {
        const items = makeItems(TEST_LOG, s.head(), n);
        for (const x of items) {
          mem.append(hashLeaf(entryLeaf(x.entry)));
          roots.push(formatHash(mem.root()));
        }
        expect((await s.append(items)).root).toBe(formatHash(mem.root()));
      }
      for (const [seq, size, from] of [
        [1, 1, 0],
        [5, 24, 7],
        [67, 67, 1],
        [33, 50, 32],
      ] as const) {
        expect(await s.rootAt(size)).toBe(roots[size]);
        const entry = (await s.getEntry(seq))!;
        const proof = await s.inclusionProof(seq, size);
        expect(proof).toEqual((await inclusionProof(mem, seq - 1, size)).map(formatHash));
        expect(verifyInclusion(hashLeaf(entryLeaf(entry)), seq - 1, size, proof.map(raw), raw(roots[size])).ok).toBe(true);
        const other = (await s.getEntry(seq === 1 ? 2 : 1))!;
        if (size > 1) expect(verifyInclusion(hashLeaf(entryLeaf(other)), seq - 1, size, proof.map(raw), raw(roots[size])).ok).toBe(false);
        const c = await s.consistencyProof(from, size);
        if (from > 0) {
          expect(c).toEqual((await consistencyProof(mem, from, size)).map(formatHash));
          expect(verifyConsistency(from, size, c.map(raw), raw(roots[from]), raw(roots[size])).ok).toBe(true);
        } else expect(c).toEqual([]);
      }
      expect(await errorCode(s.rootAt(68))).toBe('bad_request');
      expect(await errorCode(s.inclusionProof(1, 68))).toBe('bad_request');
      expect(await errorCode(s.consistencyProof(5, 4))).toBe('bad_request');
    });

    it('(source, id) and subject indexes: lookups, seqsOfSource, duplicates refused in a batch and against the store', async () => {
      const s = await d.fresh();
      const dev = deviceSigner();
      let prev = { seq: 0, hash: s.head().hash };
      const items: AppendItem[] = [];
      for (let i = 1; i <= 4; i++) {
        const x = itemFor(
          TEST_LOG,
          prev,
          makeEvent(`id-${i}`, {
            subject: i <= 2 ? 'exec-A' : 'exec-B',
            cookwalaseq: i,
            source: i === 4 ? 'urn:dev:oven-10' : 'urn:dev:oven-1',
          }),
          dev,
        );
        items.push(x);
        prev = { seq: x.entry.seq, hash: x.entry.hash };
      }
      await s.append(items);
      expect(await s.lookupId('urn:dev:oven-1', 'id-3')).toEqual({ seq: 3, eventHash: items[2].entry.eventHash });
      expect(await s.lookupId('urn:dev:oven-2', 'id-3')).toBeUndefined();
      expect(await s.lastSubjectSeq('exec-A')).toBe(2);
      expect(await s.lastSubjectSeq('exec-B')).toBe(4);
      expect(await s.lastSubjectSeq('exec-C')).toBeUndefined();
      expect(await s.seqsOfSource('urn:dev:oven-1')).toEqual([1, 2, 3]);
      expect(await s.seqsOfSource('urn:dev:oven-10')).toEqual([4]);
      const again = itemFor(TEST_LOG, s.head(), makeEvent('id-2'), dev);
      expect(await errorCode(s.append([again]))).toBe('duplicate_id');
      const twice = makeItems(TEST_LOG, s.head(), 2, { prefix: 'same-' });
      const dup = itemFor(TEST_LOG, { seq: twice[0].entry.seq, hash: twice[0].entry.hash }, twice[0].payload!, dev);
      expect(await errorCode(s.append([twice[0], dup]))).toBe('duplicate_id');
      expect(s.head().seq).toBe(4);
    });

    it('reopen restores descriptor, head, frontier, indexes, checkpoints and proofs', async () => {
      let s = await d.fresh('hash_only');
      await s.append(makeItems(TEST_LOG, s.head(), 13));
      await s.putCheckpoint(await cpAt(s, 13));
      const head = s.head();
      const proof = await s.inclusionProof(5, 13);
      s = await d.reopen(s);
      expect(s.descriptor()).toEqual(makeDescriptor('hash_only'));
      expect(s.head()).toEqual(head);
      expect(await s.inclusionProof(5, 13)).toEqual(proof);
      expect((await s.latestCheckpoint())?.seq).toBe(13);
      expect(await s.lookupId('urn:dev:oven-1', 'ev-4')).toMatchObject({ seq: 4 });
      const h = await s.append(makeItems(TEST_LOG, s.head(), 3));
      expect(h.seq).toBe(16);
    });

    it('checkpoints: by seq, latest, listed both ways; cosignatures merged; fork_detected; refusals', async () => {
      const s = await d.fresh();
      await s.append(makeItems(TEST_LOG, s.head(), 10));
      expect(await s.latestCheckpoint()).toBeUndefined();
      const c0 = await cpAt(s, 0);
      const c4 = await cpAt(s, 4);
      const c10 = await cpAt(s, 10);
      for (const c of [c10, c0, c4]) await s.putCheckpoint(c);
      expect((await s.latestCheckpoint())!.seq).toBe(10);
      expect((await collect(s.checkpoints())).map((c) => c.seq)).toEqual([0, 4, 10]);
      expect((await collect(s.checkpoints({ reverse: true }))).map((c) => c.seq)).toEqual([10, 4, 0]);
      const w1 = cosigned(c4, witnessSigner());
      const w2 = cosigned(c4, fixedSigner('wit-2', 9));
      await s.putCheckpoint(w1);
      await s.putCheckpoint(w2);
      expect((await s.checkpoint(4))!.signature.map((x) => x.kid).sort()).toEqual(['seq-1', 'wit-1', 'wit-2']);
      expect(await errorCode(s.putCheckpoint({ ...c4, root: OTHER }))).toBe('fork_detected');
      expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 4, OTHER, c4.root, '2026-11-30T11:00:00.000Z')))).toBe(
        'fork_detected',
      );
      expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 11, c10.head, c10.root)))).toBe('store_behind_checkpoint');
      expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 6, OTHER, c10.root)))).toBe('rewrite_detected');
      expect(await errorCode(s.putCheckpoint(makeCheckpoint('other.example/log', 6, c4.head, c4.root)))).toBe('log_mismatch');
      expect((await s.checkpoint(4))!.root).toBe(c4.root);
      expect(await s.checkpoint(6)).toBeUndefined();
    });

    it('crash guard at open: a head rolled back below a signed checkpoint, or a checkpoint the entries do not back, is store_behind_checkpoint', async () => {
      const s = await d.fresh();
      await s.append(makeItems(TEST_LOG, s.head(), 8));
      const cp = await cpAt(s, 8);
      await s.putCheckpoint(cp);
      const at5 = { seq: 5, hash: (await s.getEntry(5))!.hash, root: await s.rootAt(5) };
      const ok = await d.reopen(s); // so the refusal below is the tampering's doing
      expect(ok.head().seq).toBe(8);
      await d.tamper(ok, [{ key: singleKey.head, value: encodeHead(at5) }]);
      expect(await errorCode(d.open(ok))).toBe('store_behind_checkpoint');
      const t = await d.fresh();
      await t.append(makeItems(TEST_LOG, t.head(), 6));
      const c6 = await cpAt(t, 6);
      await d.tamper(t, [{ key: checkpointKey(6), value: encodeJson({ ...c6, head: OTHER }) }]);
      const e = await d.open(t).catch((x: unknown) => x as ProtocolError);
      expect((e as ProtocolError).code).toBe('store_behind_checkpoint');
    });

    it('erasure (hash_only): the payload bytes leave the raw files (small and TOAST-sized), record and erased entry come, entries and proofs stay', async () => {
      const s = await d.fresh('hash_only');
      const small = `SECRET-${noise(48)}`;
      const big = noise(12000);
      await s.append(makeItems(TEST_LOG, s.head(), 3));
      const t1 = itemFor(TEST_LOG, s.head(), makeEvent('personal-small', { data: { note: small } }), sequencerSigner());
      await s.append([t1]);
      const t2 = itemFor(TEST_LOG, s.head(), makeEvent('personal-big', { data: { note: big } }), sequencerSigner());
      await s.append([t2]);
      await s.append(makeItems(TEST_LOG, s.head(), 3, { prefix: 'late-' }));
      expect(await d.bytesPresent(s, Buffer.from(small))).toBe(true); // so the checks below can fail
      expect(await anyPresent(d, s, slices(big))).toBe(true);
      const before = s.head();
      const proofBefore = await s.inclusionProof(4, 8);
      const r1 = { seq: 4, eventHash: t1.entry.eventHash, reason: 'consent withdrawn', erasedAt: T0 };
      const e1 = erasedItem(s.head(), 4, t1.entry.eventHash);
      expect((await s.erasePayload(4, r1, e1)).seq).toBe(9);
      const r2 = { seq: 5, eventHash: t2.entry.eventHash, reason: 'consent withdrawn', erasedAt: T0 };
      const e2 = erasedItem(s.head(), 5, t2.entry.eventHash);
      const head = await s.erasePayload(5, r2, e2);
      expect(head.seq).toBe(10);
      expect(await s.getPayload(4)).toEqual({ erased: { ...r1, erasureSeq: 9 } });
      expect(await s.getPayload(5)).toEqual({ erased: { ...r2, erasureSeq: 10 } });
      expect(await s.getEntry(5)).toEqual(t2.entry);
      expect((await collect(s.payloads(1, 10))).map((p) => p.seq)).toEqual([1, 2, 3, 6, 7, 8, 9, 10]);
      expect(await s.inclusionProof(4, 8)).toEqual(proofBefore);
      expect(await s.rootAt(8)).toBe(before.root);
      expect(await d.bytesPresent(s, Buffer.from(small))).toBe(false);
      expect(await anyPresent(d, s, slices(big))).toBe(false);
      expect(await errorCode(s.erasePayload(4, r1, erasedItem(s.head(), 4, t1.entry.eventHash, 'erase-again')))).toBe('payload_erased');
      const r = await d.reopen(s);
      expect(await r.getPayload(5)).toEqual({ erased: { ...r2, erasureSeq: 10 } });
      expect(r.head()).toEqual(head);
    });

    it('erasure refusals change nothing: full mode, unknown seq, wrong record', async () => {
      const f = await d.fresh('full');
      await f.append(makeItems(TEST_LOG, f.head(), 2));
      const e = (await f.getEntry(1))!;
      expect(
        await errorCode(
          f.erasePayload(1, { seq: 1, eventHash: e.eventHash, reason: 'x', erasedAt: T0 }, erasedItem(f.head(), 1, e.eventHash)),
        ),
      ).toBe('mode_forbids_erasure');
      const s = await d.fresh('hash_only');
      await s.append(makeItems(TEST_LOG, s.head(), 2));
      const h = s.head();
      const x = (await s.getEntry(2))!;
      expect(
        await errorCode(s.erasePayload(7, { seq: 7, eventHash: x.eventHash, reason: 'x', erasedAt: T0 }, erasedItem(h, 7, x.eventHash))),
      ).toBe('not_found');
      expect(
        await errorCode(s.erasePayload(2, { seq: 2, eventHash: OTHER, reason: 'x', erasedAt: T0 }, erasedItem(h, 2, x.eventHash))),
      ).toBe('bad_request');
      expect(s.head()).toEqual(h);
      expect(await s.getPayload(2)).toMatchObject({ event: { id: 'ev-2' } });
    });
  });
}
