// conformance/topics/cookwala-ops-log.ts: vector ops over the log documents of docs/design.md §3-§4 through
// the project's verifier modules: strict reading (verifier/documents/read.ts), CloudEvents and
// device signatures (verifier/cloudevent/read.ts), the hash chain
// (verifier/documents/log-descriptor.ts, verifier/documents/entry.ts), checkpoints under a witness
// policy (verifier/documents/policy.ts, verifier/documents/checkpoint.ts) and fork proofs
// (verifier/documents/fork-proof.ts). Each op only sequences those
// functions the way a verifier would; it adds no rule of its own.

import {
  normalizeBinaryExtensions,
  readCloudEvent,
  eventHash,
  verifyEventSignature,
  type CloudEvent,
} from '../../verifier/cloudevent/index.ts';
import { verifyCheckpoint, type Checkpoint } from '../../verifier/documents/index.ts';
import { checkLink, verifyEntryEventSignature, verifyEntryHash, type Entry } from '../../verifier/documents/index.ts';
import { fail, ok, type Result } from '../../verifier/index.ts';
import { verifyForkProof, type ForkProof } from '../../verifier/documents/index.ts';
import { validKeyRecordShape, type KeyRecord } from '../../verifier/signing/index.ts';
import { verifyLogDescriptor } from '../../verifier/documents/index.ts';
import { readWitnessPolicy, DEFAULT_QUORUM, type WitnessPolicy } from '../../verifier/documents/index.ts';
import { parseJson, readDocument, type DocumentKind } from '../../verifier/documents/index.ts';
import { keyLookup } from './cookwala-ops-core.ts';
import { checkSignedAt, checkTimeOrder } from '../../verifier/documents/index.ts';
import { timeMs } from '../../verifier/encoding/index.ts';

type Input = Record<string, unknown>;

/** `{kind, document, allowLegacy?}`: strict reading of one document kind. */
export function readDocumentOp(input: Input): Result<unknown> {
  return readDocument(String(input.kind) as DocumentKind, input.document, { allowLegacy: input.allowLegacy === true });
}

/** `{text}`: JSON text to a value. */
export function parseJsonOp(input: Input): Result<unknown> {
  return parseJson(String(input.text));
}

/** `{event}`: strict CloudEvents 1.0 JSON-format reading. */
export function readEventOp(input: Input): Result<unknown> {
  return readCloudEvent(input.event);
}

/** `{event, binaryMode?, hash}`: the event hash (after binary-mode type restoration when asked) must be `hash`. */
export function eventHashOp(input: Input): Result<string> {
  const ev = input.binaryMode === true ? normalizeBinaryExtensions(input.event as object) : (input.event as CloudEvent);
  const r = readCloudEvent(ev);
  if (!r.ok) return r;
  const h = eventHash(r.value);
  if (!h.ok) return h;
  if (h.value !== input.hash) return fail('hash_mismatch', `event hash ${h.value}, the vector states ${String(input.hash)}`);
  return h;
}

/** `{event, keys}`: read the event, then its cookwalasig by a trusted device key owned by its source. */
export function verifyEventOp(input: Input): Result<unknown> {
  const lookup = keyLookup(input);
  if (!lookup.ok) return lookup;
  const r = readCloudEvent(input.event);
  if (!r.ok) return r;
  return verifyEventSignature(r.value, lookup.value);
}

/**
 * `{descriptor, sequencerKey, entries, keys}`: the descriptor read and verified against the trusted
 * sequencer key; then each entry read strictly, its hash recomputed, its link to the previous entry
 * (the descriptor for seq 1) and its device signature checked, then the log's clock: sequencedAt
 * never earlier than the previous entry's, and (when the descriptor declares timeBounds) signedAt
 * within them of sequencedAt (time-bounds.ts). The first failure is the result.
 */
export function verifyChainOp(input: Input): Result<{ seq: number; head: string }> {
  const seqKey = input.sequencerKey as KeyRecord;
  const shape = validKeyRecordShape(seqKey);
  if (!shape.ok) return shape;
  const d = readDocument('Log', input.descriptor);
  if (!d.ok) return d;
  const dv = verifyLogDescriptor(d.value, seqKey);
  if (!dv.ok) return dv;
  const lookup = keyLookup(input);
  if (!lookup.ok) return lookup;
  if (!Array.isArray(input.entries)) return fail('invalid_document', 'entries is a list');
  let prev = { seq: 0, hash: dv.value.hash };
  let prevEntry: Entry | undefined;
  const bounds = d.value.timeBounds;
  for (const raw of input.entries as unknown[]) {
    const e = readDocument('Event', raw);
    if (!e.ok) return e;
    const entry: Entry = e.value;
    if (entry.log !== d.value.log) return fail('log_mismatch', `entry ${entry.seq} is of ${entry.log}`);
    const h = verifyEntryHash(entry);
    if (!h.ok) return h;
    const l = checkLink(prev, entry);
    if (!l.ok) return l;
    const s = verifyEntryEventSignature(entry, lookup.value);
    if (!s.ok) return { ...s, seq: entry.seq };
    const order = prevEntry ? checkTimeOrder(prevEntry, entry) : ok(true);
    if (!order.ok) return { ...order, seq: entry.seq };
    const w = bounds ? checkSignedAt(timeMs(entry.eventSignature.signedAt), timeMs(entry.sequencedAt), bounds) : ok(true);
    if (!w.ok) return { ...w, seq: entry.seq };
    prev = { seq: entry.seq, hash: entry.hash };
    prevEntry = entry;
  }
  return ok({ seq: prev.seq, head: prev.hash });
}

/**
 * `{checkpoint, policy, policyUnchecked?}`: the checkpoint under a witness policy read strictly;
 * with `policyUnchecked` the policy is used as given (a policy built in code, not read from a file),
 * to show verifyCheckpoint's own rules hold even then.
 */
export function verifyCheckpointOp(input: Input): Result<unknown> {
  let policy: WitnessPolicy;
  if (input.policyUnchecked === true) {
    const p = input.policy as WitnessPolicy;
    policy = { ...p, quorum: p.quorum ?? DEFAULT_QUORUM };
  } else {
    const p = readWitnessPolicy(input.policy);
    if (!p.ok) return p;
    policy = p.value;
  }
  return verifyCheckpoint(input.checkpoint as Checkpoint, policy);
}

/** `{forkProof, sequencerKey}`: ok means a fork is proved by that sequencer key. */
export function verifyForkProofOp(input: Input): Result<unknown> {
  const key = input.sequencerKey as KeyRecord;
  const shape = validKeyRecordShape(key);
  if (!shape.ok) return shape;
  return verifyForkProof(input.forkProof as ForkProof, key);
}
