// conformance/gen/log-vectors.ts: builds hash-chain.json (docs/design.md §4: seq from 1 without gaps, prev =
// the previous entry's hash, the descriptor's for seq 1, entry hashes, device signatures over the
// event hash), checkpoints.json (sequencer signature[0], witness cosignatures under a policy, the
// quorum, and the sequencer's own key never counting as a witness) and fork-proofs.json (two
// checkpoints of one log at one seq, both signed by its sequencer key, that differ). hash-chain.json
// also holds the log's clock (verifier/documents/time-bounds.ts): signedAt against sequencedAt within the descriptor's
// timeBounds, bounds inclusive, and sequencedAt never going backwards. Verdicts are
// written by hand from docs/design.md §4 and Core §5; the runner checks them against the code.

import { addCosignature, buildCheckpoint, cosignCheckpoint, type Checkpoint } from '../../verifier/documents/index.ts';
import { signEvent } from '../../verifier/cloudevent/index.ts';
import { buildEntry, type Entry } from '../../verifier/documents/index.ts';
import type { ReasonCode } from '../../verifier/index.ts';
import { buildForkProof } from '../../verifier/documents/index.ts';
import { buildLogDescriptor } from '../../verifier/documents/index.ts';
import { signDocument, signHash } from '../../verifier/signing/index.ts';
import { documentHash, type JsonObject } from '../../verifier/signing/index.ts';
import { backend, clone, invalid, LOG, OTHER_LOG, shiftMs, T, testKey, valid, type Keys, type VectorFile } from './fixtures.ts';
import { chain, createLogFixture, deviceEvent, rootOf, signatureOf, TIME_BOUNDS } from './log-fixture.ts';

/** An entry rebuilt with changes (its hash recomputed). */
function rebuilt(e: Entry, change: Partial<Entry>): Entry {
  const { kind: _k, hash: _h, ...rest } = { ...e, ...change };
  return buildEntry(rest);
}

/** Entries re-chained after entry `i` was replaced, so only the intended fault remains. */
function rechain(entries: Entry[], i: number, replacement: Entry): Entry[] {
  const out = entries.slice(0, i);
  out.push(replacement);
  let prev = replacement.hash;
  for (const e of entries.slice(i + 1)) {
    const r = rebuilt(e, { prev });
    out.push(r);
    prev = r.hash;
  }
  return out;
}

export function hashChainFile(k: Keys): VectorFile {
  const f = createLogFixture(k);
  const [e1, e2, e3] = f.entries;
  const base = { op: 'verify-chain', descriptor: f.descriptor, sequencerKey: k.seq.record, keys: [k.dev.record] };
  const ok = (id: string, d: string, entries: Entry[], extra: Record<string, unknown> = {}) => valid(id, d, { ...base, entries, ...extra });
  const bad = (id: string, code: ReasonCode, d: string, entries: Entry[], extra: Record<string, unknown> = {}) =>
    invalid(id, code, d, { ...base, entries, ...extra });
  const otherEvent = deviceEvent(9, k.dev.signer);
  const foreignDescriptor = buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: T.genesis }, k.seqOther.signer);
  const forged = signDocument(
    { kind: 'Log', coreVersion: f.descriptor.coreVersion, log: LOG, mode: 'hash_only', sequencer: 'seq-1', createdAt: T.genesis },
    { ...k.seqOther.signer, kid: 'seq-1' },
    T.genesis,
    backend,
  );
  const otherLogDescriptor = buildLogDescriptor(
    { log: OTHER_LOG, mode: 'hash_only', createdAt: T.genesis, timeBounds: TIME_BOUNDS },
    k.seq.signer,
  );
  // Entry 2 with its device signature made at another signedAt (the event itself unchanged).
  const signedAt2 = (ms: number) => {
    const { cookwalasig: _c, ...ce } = f.events[1];
    return rechain(f.entries, 1, rebuilt(e2, { eventSignature: signatureOf(signEvent(ce, k.dev.signer, shiftMs(e2.sequencedAt, ms))) }));
  };
  const oldDescriptor = buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: T.genesis }, k.seq.signer);
  const { cookwalasig: _c2, ...ce2 } = f.events[1];
  const oldChain = chain(LOG, oldDescriptor.hash, f.events);
  const oldBackdated = rechain(
    oldChain,
    1,
    rebuilt(oldChain[1], {
      eventSignature: signatureOf(signEvent(ce2, k.dev.signer, shiftMs(e2.sequencedAt, -TIME_BOUNDS.maxDeliveryDelayMs - 1))),
    }),
  );
  return {
    topic: 'hash-chain',
    description:
      "The entry chain (docs/design.md §4): the descriptor verifies under the trusted sequencer key; entry seq starts at 1 with no gaps, prev is the previous entry's hash (the descriptor's for seq 1), each hash is the document hash of the entry, and each eventSignature is the device's over the eventHash.",
    cases: [
      ok('three-entries', 'a descriptor and three chained, device-signed entries', f.entries),
      ok('descriptor-only', 'a log with no entries yet', []),
      bad('entry-changed-hash-stale', 'entry_hash_mismatch', 'entry 2 changed after sequencing, its hash left as it was', [
        e1,
        { ...e2, sequencedAt: shiftMs(e2.sequencedAt, 1) },
        e3,
      ]),
      bad('entry-changed-rehashed', 'chain_broken', 'entry 2 changed and rehashed: entry 3 no longer links to it', [
        e1,
        rebuilt(e2, { sequencedAt: shiftMs(e2.sequencedAt, 1) }),
        e3,
      ]),
      bad('entry-dropped', 'chain_broken', 'entry 2 removed: seq 3 follows seq 1', [e1, e3]),
      bad('entries-swapped', 'chain_broken', 'entries 2 and 3 in the wrong order', [e1, e3, e2]),
      bad('entry-duplicated', 'chain_broken', 'entry 2 appears twice', [e1, e2, e2, e3]),
      bad(
        'first-prev-not-descriptor',
        'chain_broken',
        'entry 1 links to something other than the descriptor hash',
        rechain(f.entries, 0, rebuilt(e1, { prev: e3.hash })),
      ),
      bad('first-seq-not-one', 'invalid_document', 'entry seq starts at 1: seq 0 is not an entry', [rebuilt(e1, { seq: 0 })]),
      bad(
        'event-signature-of-another-event',
        'bad_signature',
        'entry 2 carries the device signature of another event (the chain is otherwise intact)',
        rechain(f.entries, 1, rebuilt(e2, { eventSignature: signatureOf(otherEvent) })),
      ),
      bad(
        'event-hash-replaced',
        'bad_signature',
        "entry 2 names event 1's eventHash, which its device signature does not cover",
        rechain(f.entries, 1, rebuilt(e2, { eventHash: e1.eventHash })),
      ),
      bad('device-key-untrusted', 'unknown_key', 'the auditor has no KeyRecord for the device', f.entries, { keys: [k.devP256.record] }),
      bad(
        'descriptor-of-another-sequencer',
        'descriptor_mismatch',
        'a descriptor that names and is signed by another sequencer key than the trusted one',
        chain(LOG, foreignDescriptor.hash, f.events),
        { descriptor: foreignDescriptor },
      ),
      bad(
        'descriptor-forged',
        'bad_signature',
        'a descriptor naming the trusted kid but signed with another secret key',
        chain(LOG, forged.hash, f.events),
        { descriptor: forged },
      ),
      bad('descriptor-changed', 'hash_mismatch', 'the descriptor mode changed after signing', f.entries, {
        descriptor: { ...f.descriptor, mode: 'full' },
      }),
      bad(
        'entries-of-another-log',
        'log_mismatch',
        "entries of another log chained to this log's descriptor",
        chain(OTHER_LOG, f.descriptor.hash, f.events),
      ),
      ok(
        'other-log-own-descriptor',
        "the same events sequenced into another log, with that log's descriptor",
        chain(OTHER_LOG, otherLogDescriptor.hash, f.events),
        { descriptor: otherLogDescriptor },
      ),
      bad(
        'signed-in-future',
        'signed_in_future',
        "entry 2's signedAt is maxClockSkew + 1 ms after its sequencedAt (the descriptor declares the bounds)",
        signedAt2(TIME_BOUNDS.maxClockSkewMs + 1),
      ),
      ok('signed-at-skew-bound', "entry 2's signedAt is exactly maxClockSkew after its sequencedAt", signedAt2(TIME_BOUNDS.maxClockSkewMs)),
      bad(
        'delivered-too-late',
        'delivery_too_late',
        "entry 2's signedAt is maxDeliveryDelay + 1 ms before its sequencedAt: backdated past the delivery window",
        signedAt2(-TIME_BOUNDS.maxDeliveryDelayMs - 1),
      ),
      ok(
        'delivered-at-delay-bound',
        "entry 2's signedAt is exactly maxDeliveryDelay before its sequencedAt (an offline outbox delivering late)",
        signedAt2(-TIME_BOUNDS.maxDeliveryDelayMs),
      ),
      bad(
        'sequenced-at-regresses',
        'time_regression',
        "entry 3's sequencedAt is 1 ms before entry 2's (rehashed and rechained)",
        rechain(f.entries, 2, rebuilt(e3, { sequencedAt: shiftMs(e2.sequencedAt, -1) })),
      ),
      ok(
        'no-time-bounds-declared',
        'a descriptor from before time bounds declares none: a backdated signedAt is not judged (the sequencedAt order still is)',
        oldBackdated,
        { descriptor: oldDescriptor },
      ),
    ].map(clone),
  };
}

export function checkpointFile(k: Keys): VectorFile {
  const f = createLogFixture(k);
  const cp = f.checkpoint;
  const cos = (cp0: Checkpoint, w: { signer: Parameters<typeof cosignCheckpoint>[1] }, at = T.t3) =>
    cosignCheckpoint(cp0, w.signer, shiftMs(at, 10));
  const withSigs = (...sigs: Checkpoint['signature']) => ({ ...cp, signature: [cp.signature[0], ...sigs] });
  const policy = {
    kind: 'WitnessPolicy',
    log: LOG,
    sequencer: k.seq.record,
    witnesses: [k.w1.record, k.w2.record, k.w3.record],
    quorum: 2,
  };
  const c1 = cos(cp, k.w1);
  const c2 = cos(cp, k.w2);
  const c3 = cos(cp, k.w3);
  const other = buildCheckpoint({ log: LOG, seq: 2, head: f.entries[1].hash, root: rootOf(f.entries.slice(0, 2)) }, k.seq.signer, T.t2);
  const movedC2 = cos(other, k.w2);
  const seqAsWitness = signHash(cp.hash, 'Checkpoint', k.seq.signer, shiftMs(T.t3, 10));
  const alias = { ...k.seq.record, kid: 'seq-1-as-witness', role: 'witness' as const };
  const aliasSig = signHash(cp.hash, 'Checkpoint', { ...k.seq.signer, kid: alias.kid }, shiftMs(T.t3, 10));
  const w2Revoked = { ...k.w2.record, revokedAt: T.t3 };
  const ok = (id: string, d: string, checkpoint: unknown, extra: Record<string, unknown> = {}) =>
    valid(id, d, { op: 'verify-checkpoint', checkpoint, policy, ...extra });
  const bad = (id: string, code: ReasonCode, d: string, checkpoint: unknown, extra: Record<string, unknown> = {}) =>
    invalid(id, code, d, { op: 'verify-checkpoint', checkpoint, policy, ...extra });
  const foreign = buildCheckpoint({ log: OTHER_LOG, seq: 3, head: cp.head, root: cp.root }, k.seq.signer, T.t3);
  const bySeqOther = buildCheckpoint({ log: LOG, seq: 3, head: cp.head, root: cp.root }, k.seqOther.signer, T.t3);
  return {
    topic: 'checkpoints',
    description:
      'Checkpoints under a witness policy (docs/design.md §4, Core §5): signature[0] is the sequencer\'s, the rest are witness cosignatures over the same header {alg, hash, kid, kind:"Checkpoint", signedAt}; a cosignature counts only from a policy witness key that is not the sequencer\'s (public keys compared), one key counts once, and fewer than the quorum is quorum_not_met.',
    cases: [
      ok('quorum-2-eddsa-and-es256', 'two witnesses (EdDSA and ES256) for a quorum of 2', withSigs(c1, c3)),
      ok('quorum-2-of-3', 'all three witnesses cosign', withSigs(c1, c2, c3)),
      ok('quorum-1-default', 'a policy without quorum needs one witness (Core §5)', withSigs(c2), {
        policy: (({ quorum: _q, ...p }) => p)(policy),
      }),
      bad('no-cosignature', 'quorum_not_met', 'only the sequencer signed', cp),
      bad('one-of-two', 'quorum_not_met', 'one witness for a quorum of 2', withSigs(c1)),
      bad('same-witness-twice', 'quorum_not_met', 'the same cosignature twice: one key counts once', withSigs(c1, c1)),
      bad(
        'cosignature-moved-from-another-checkpoint',
        'quorum_not_met',
        "w-2's cosignature of the seq-2 checkpoint attached to seq 3",
        withSigs(c1, movedC2),
      ),
      bad(
        'cosignature-kind-moved',
        'quorum_not_met',
        'a w-2 signature over the checkpoint hash with kind Log does not count',
        withSigs(c1, signHash(cp.hash, 'Log', k.w2.signer, shiftMs(T.t3, 10))),
      ),
      bad(
        'sequencer-cosigns-itself',
        'quorum_not_met',
        'the sequencer key cosigning under its own kid is not a witness',
        withSigs(c1, seqAsWitness),
      ),
      bad(
        'sequencer-key-listed-as-witness',
        'quorum_not_met',
        "even a policy (built in code, unchecked) that lists the sequencer's public key under a witness kid gets no count from it",
        withSigs(c1, aliasSig),
        { policy: { ...policy, witnesses: [k.w1.record, alias] }, policyUnchecked: true },
      ),
      bad('witness-revoked', 'quorum_not_met', 'w-2 was revoked before it cosigned', withSigs(c1, c2), {
        policy: { ...policy, witnesses: [k.w1.record, w2Revoked, k.w3.record] },
      }),
      bad(
        'policy-lists-sequencer-key',
        'invalid_document',
        "a policy file that lists the sequencer's public key as a witness is refused when read",
        withSigs(c1, aliasSig),
        { policy: { ...policy, witnesses: [k.w1.record, alias] } },
      ),
      bad('root-changed', 'hash_mismatch', 'the root changed after signing', { ...withSigs(c1, c3), root: f.checkpoint.head }),
      bad(
        'other-log',
        'log_mismatch',
        'a checkpoint of another log',
        addCosignature(addCosignature(foreign, cos(foreign, k.w1)), cos(foreign, k.w3)),
      ),
      bad(
        'not-the-sequencer',
        'bad_signature',
        "signature[0] by another sequencer key than the policy's",
        addCosignature(addCosignature(bySeqOther, cos(bySeqOther, k.w1)), cos(bySeqOther, k.w3)),
      ),
      bad('unknown-member', 'unknown_field', 'a member the schema does not define', { ...withSigs(c1, c3), note: 'x' }),
    ].map(clone),
  };
}

export function forkProofFile(k: Keys): VectorFile {
  const f = createLogFixture(k);
  const a = f.checkpoint;
  // A second history: entry 3 is another event, so seq 3 has another head and root.
  const forked = [...f.entries.slice(0, 2), ...chain(LOG, f.entries[1].hash, [deviceEvent(7, k.dev.signer)], 3)];
  const b = buildCheckpoint({ log: LOG, seq: 3, head: forked[2].hash, root: rootOf(forked) }, k.seq.signer, shiftMs(T.t3, 5));
  const sameAgain = buildCheckpoint({ log: LOG, seq: 3, head: a.head, root: a.root }, k.seq.signer, shiftMs(T.t3, 60_000));
  const headOnly = buildCheckpoint({ log: LOG, seq: 3, head: forked[2].hash, root: a.root }, k.seq.signer, shiftMs(T.t3, 6));
  const rootOnly = buildCheckpoint({ log: LOG, seq: 3, head: a.head, root: rootOf(forked) }, k.seq.signer, shiftMs(T.t3, 7));
  const atSeq2 = buildCheckpoint({ log: LOG, seq: 2, head: f.entries[1].hash, root: rootOf(f.entries.slice(0, 2)) }, k.seq.signer, T.t2);
  const otherLog = buildCheckpoint({ log: OTHER_LOG, seq: 3, head: b.head, root: b.root }, k.seq.signer, shiftMs(T.t3, 5));
  const bySeqOther = buildCheckpoint({ log: LOG, seq: 3, head: b.head, root: b.root }, k.seqOther.signer, shiftMs(T.t3, 5));
  const seqRevoked = testKey('seq-1', 'EdDSA', 'sequencer', 'kitchen.example.org', { revokedAt: shiftMs(T.t3, 5) }).record;
  const edited = { ...b, head: forked[1].hash };
  const fp = (x: Checkpoint, y: Checkpoint, log = LOG) => ({ kind: 'ForkProof', log, a: x, b: y });
  const ok = (id: string, d: string, forkProof: unknown, sequencerKey: unknown = k.seq.record) =>
    valid(id, d, { op: 'verify-fork-proof', forkProof, sequencerKey });
  const bad = (id: string, code: ReasonCode, d: string, forkProof: unknown, sequencerKey: unknown = k.seq.record) =>
    invalid(id, code, d, { op: 'verify-fork-proof', forkProof, sequencerKey });
  return {
    topic: 'fork-proofs',
    description:
      'Fork proofs (docs/design.md §4, Core §5): {kind:"ForkProof", log, a, b} proves a fork when a and b are checkpoints of that log at one seq, both validly signed by the log\'s sequencer key, with a different head or root. Self-contained: checked with the sequencer key alone.',
    cases: [
      ok('fork', 'two histories at seq 3: different head and root', buildForkProof(a, b)),
      ok('head-differs', 'only the head differs', buildForkProof(a, headOnly)),
      ok('root-differs', 'only the root differs', buildForkProof(a, rootOnly)),
      bad('same-head-and-root', 'not_a_fork', 'the same head and root signed twice at different times is no fork', fp(a, sameAgain)),
      bad('different-seq', 'not_a_fork', 'checkpoints at seq 3 and seq 2', fp(a, atSeq2)),
      bad('different-log', 'not_a_fork', 'checkpoints of two logs', fp(a, otherLog)),
      bad('b-not-by-sequencer', 'bad_signature', 'b signed by another sequencer key', fp(a, bySeqOther)),
      bad(
        'b-changed-after-signing',
        'hash_mismatch',
        "b's head edited after signing (hash left as it was)",
        fp(a, { ...b, head: forked[1].hash }),
      ),
      bad(
        'b-changed-and-rehashed',
        'bad_signature',
        "b's head edited and its hash recomputed: the sequencer never signed that hash",
        fp(a, { ...edited, hash: documentHash(edited as unknown as JsonObject) }),
      ),
      bad(
        'signed-at-revocation',
        'key_revoked',
        "b was signed at the sequencer key's revokedAt: a compromised key proves no fork",
        buildForkProof(a, b),
        seqRevoked,
      ),
      bad('unknown-member', 'unknown_field', 'a member the schema does not define', { ...buildForkProof(a, b), note: 'x' }),
    ].map(clone),
  };
}
