// verifier/bundle/event-proof.ts: one event proved offline in O(log n) (docs/design.md §8 "verify-event"):
// {kind:"EventProof", entry, event?, inclusion:{leafIndex, size, proof:[sha256:…]}, checkpoint,
// keys:[KeyRecord signed by the sequencer]}. Checked, in order: the entry's hash
// (entry_hash_mismatch) and log (log_mismatch); the checkpoint under the auditor's policy
// (sequencer signature, witness quorum: bad_signature, quorum_not_met); the RFC 6962 inclusion of
// the entry's leaf at index seq-1 in the checkpoint's root at size = checkpoint seq (bad_proof);
// the KeyRecords, admitted only when the policy's sequencer key signed them (verifier/bundle/trust.ts);
// the entry's event signature by a device key owned by the event source (or by the sequencer for
// its own entry types), valid at signedAt; and, when the event is included, its hash, attributes
// and cookwalasig against the entry (payload_hash_mismatch, bad_signature). Without the event
// (erased, or withheld) the entry and the signature still prove what was logged.
// Left out: anything needing the rest of the log (chain, order, uniqueness: verifier/bundle/verifier.ts).

import { fail, ok, type Result } from '../errors.ts';
import { isVendorMember } from '../signing/document-hash.ts';
import { readDocument } from '../documents/read.ts';
import { verifyEntryHash, entryCeOf, entryLeaf, verifyEntryEventSignature, type Entry } from '../documents/entry.ts';
import { verifyCheckpoint, type Checkpoint } from '../documents/checkpoint.ts';
import { encodeCookwalasig, eventHash, readCloudEvent, type CloudEvent } from '../cloudevent/read.ts';
import { hashLeaf, verifyInclusion } from '../merkle/index.ts';
import { parseHash } from '../encoding/wire.ts';
import { createTrust } from './trust.ts';
import { SEQUENCER_TYPES } from './entry-signatures.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import type { CryptoBackend } from '../crypto/default.ts';

export interface EventProof {
  kind: 'EventProof';
  entry: Entry;
  event?: CloudEvent;
  inclusion: { leafIndex: number; size: number; proof: string[] };
  checkpoint: Checkpoint;
  keys: KeyRecord[];
}

export interface EventProofVerdict {
  log: string;
  seq: number;
  eventHash: string;
  /** false when the proof carries no event (erased or withheld): only the entry is proved. */
  event: boolean;
  signedBy: string;
  checkpoint: { seq: number; root: string; witnesses: string[] };
  legacy: boolean;
}

const MEMBERS = ['kind', 'entry', 'event', 'inclusion', 'checkpoint', 'keys'];

export function buildEventProof(f: {
  entry: Entry;
  event?: CloudEvent;
  proof: string[];
  checkpoint: Checkpoint;
  keys: KeyRecord[];
}): EventProof {
  const p: EventProof = {
    kind: 'EventProof',
    entry: f.entry,
    inclusion: { leafIndex: f.entry.seq - 1, size: f.checkpoint.seq, proof: f.proof },
    checkpoint: f.checkpoint,
    keys: f.keys,
  };
  if (f.event !== undefined) p.event = f.event;
  return p;
}

function readShape(json: unknown): Result<EventProof> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o) || o.kind !== 'EventProof')
    return fail('invalid_document', 'an EventProof is {"kind":"EventProof",…}', { path: '/kind' });
  for (const k of Object.keys(o))
    if (!MEMBERS.includes(k) && !isVendorMember(k)) return fail('unknown_field', `unknown member /${k}`, { path: `/${k}` });
  const inc = o.inclusion as Record<string, unknown>;
  if (!inc || typeof inc !== 'object' || Array.isArray(inc))
    return fail('invalid_document', 'inclusion is {leafIndex, size, proof}', { path: '/inclusion' });
  for (const k of Object.keys(inc))
    if (!['leafIndex', 'size', 'proof'].includes(k) && !isVendorMember(k))
      return fail('unknown_field', `unknown member /inclusion/${k}`, { path: `/inclusion/${k}` });
  if (!Number.isSafeInteger(inc.leafIndex) || !Number.isSafeInteger(inc.size) || !Array.isArray(inc.proof))
    return fail('invalid_document', 'inclusion is {leafIndex, size, proof:[…]}', { path: '/inclusion' });
  if (!Array.isArray(o.keys)) return fail('invalid_document', 'keys is an array of KeyRecords', { path: '/keys' });
  return ok(o as unknown as EventProof);
}

export function verifyEventProof(
  json: unknown,
  policy: WitnessPolicy,
  opts: { keys?: readonly KeyRecord[]; allowLegacy?: boolean; backend?: CryptoBackend } = {},
): Result<EventProofVerdict> {
  const shape = readShape(json);
  if (!shape.ok) return shape;
  const p = shape.value;
  const vopts = { allowLegacy: opts.allowLegacy, backend: opts.backend };
  const er = readDocument('Event', p.entry, vopts);
  if (!er.ok) return { ...er, detail: `entry: ${er.detail}` };
  const e = er.value;
  const eh = verifyEntryHash(e);
  if (!eh.ok) return eh;
  if (e.log !== policy.log) return fail('log_mismatch', `the entry is of ${e.log}, the policy of ${policy.log}`, { seq: e.seq });

  const cr = readDocument('Checkpoint', p.checkpoint, vopts);
  if (!cr.ok) return { ...cr, detail: `checkpoint: ${cr.detail}` };
  const cp = cr.value;
  const cv = verifyCheckpoint(cp, policy, vopts);
  if (!cv.ok) return cv;

  const { leafIndex, size, proof } = p.inclusion;
  if (leafIndex !== e.seq - 1) return fail('bad_proof', `leafIndex ${leafIndex} is not entry ${e.seq}'s (${e.seq - 1})`, { seq: e.seq });
  if (size !== cp.seq)
    return fail('bad_proof', `the proof is for a tree of ${size} entries; the checkpoint is at seq ${cp.seq}`, { seq: e.seq });
  const hashes: Uint8Array[] = [];
  for (const h of proof) {
    const b = parseHash(h);
    if (!b.ok) return fail('bad_proof', `proof element ${String(h).slice(0, 80)} is not a sha256: hash`, { seq: e.seq });
    hashes.push(b.value);
  }
  const root = parseHash(cp.root);
  if (!root.ok) return root;
  const inc = verifyInclusion(hashLeaf(entryLeaf(e)), leafIndex, size, hashes, root.value);
  if (!inc.ok) return { ...inc, detail: `entry ${e.seq} in the checkpoint at seq ${cp.seq}: ${inc.detail}`, seq: e.seq };

  const trust = createTrust(policy, opts.keys ?? [], vopts);
  for (const k of p.keys) {
    const kr = readDocument('KeyRecord', k);
    if (!kr.ok) return { ...kr, detail: `KeyRecord: ${kr.detail}` };
    const a = trust.admit(kr.value);
    if (!a.ok) return a;
  }
  const key = trust.lookup(e.eventSignature.kid);
  const bySequencer = key !== undefined && trust.isSequencer(key);
  if (key && bySequencer !== SEQUENCER_TYPES.includes(e.ce.type))
    return fail('key_role_mismatch', `entry ${e.seq} of type ${e.ce.type} is signed by ${e.eventSignature.kid}`, { seq: e.seq });
  const sig = verifyEntryEventSignature(e, trust.lookup, bySequencer ? { ...vopts, role: 'sequencer', checkSource: false } : vopts);
  if (!sig.ok) return { ...sig, seq: e.seq };

  if (p.event !== undefined) {
    const ce = readCloudEvent(p.event);
    if (!ce.ok) return ce;
    const h = eventHash(ce.value);
    if (!h.ok) return h;
    if (h.value !== e.eventHash)
      return fail('payload_hash_mismatch', `the event hashes to ${h.value}, the entry says ${e.eventHash}`, {
        seq: e.seq,
        expected: e.eventHash,
        found: h.value,
      });
    const a = entryCeOf(ce.value);
    const b = e.ce;
    if (a.source !== b.source || a.id !== b.id || a.type !== b.type || a.subject !== b.subject || a.cookwalaseq !== b.cookwalaseq)
      return fail('payload_hash_mismatch', "the entry's ce attributes are not the event's", { seq: e.seq });
    if (ce.value.cookwalasig !== undefined && ce.value.cookwalasig !== null && ce.value.cookwalasig !== encodeCookwalasig(e.eventSignature))
      return fail('bad_signature', "the event's cookwalasig is not the entry's eventSignature", { seq: e.seq });
  }
  return ok({
    log: e.log,
    seq: e.seq,
    eventHash: e.eventHash,
    event: p.event !== undefined,
    signedBy: e.eventSignature.kid,
    checkpoint: { seq: cp.seq, root: cp.root, witnesses: cv.value.witnesses },
    legacy: sig.value.legacy || cv.value.legacy,
  });
}
