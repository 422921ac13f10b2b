// verifier/documents/note-fork-proof.ts: the fork proof of a C2SP log (docs/design.md §7a), the
// signed-note counterpart of fork-proof.ts: {kind:"NoteForkProof", log, a, b} where `a` and `b`
// are two complete signed tlog-checkpoint notes (c2sp.org/signed-note and tlog-checkpoint at
// C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), each body with its signature lines.
// It proves a fork when both notes carry a valid signature of the log's key (a signed-note vkey the
// auditor supplies, never the proof), both checkpoints name `log` as origin, have one size and
// different root hashes. Other signature lines (cosignatures) are carried along and play no part.
// Left out: the JSON Checkpoint form (fork-proof.ts) and gossip (a witness keeps these and lists
// them in GET /v1/forks). Invariant: ok means a fork is proved; any doubt is a failure with a code.

import { fail, ok, type Result } from '../errors.ts';
import { formatHash } from '../encoding/wire.ts';
import { isVendorMember } from '../signing/document-hash.ts';
import { MAX_NOTE_BYTES, parseCheckpointBody, verifyNote, type NoteVerifier } from '../c2sp/note/index.ts';
import type { CryptoBackend } from '../crypto/default.ts';
import type { ForkVerdict } from './fork-proof.ts';
import type { KeyRecord } from '../signing/keys.ts';
import { logVkeyOf } from './checkpoint-c2sp.ts';

export const NOTE_FORK_PROOF = 'NoteForkProof';

export interface NoteForkProof {
  kind: typeof NOTE_FORK_PROOF;
  /** The checkpoint origin both notes carry. */
  log: string;
  /** The two signed notes, text and signature lines, exactly as the log signed them. */
  a: string;
  b: string;
}

export interface ProvedNoteFork {
  log: string;
  seq: number;
  a: { root: string };
  b: { root: string };
}

/** Strict reading: exactly kind, log, a, b (x- members ignored); each note within MAX_NOTE_BYTES. */
export function readNoteForkProof(json: unknown): Result<NoteForkProof> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return fail('invalid_document', 'a NoteForkProof is a JSON object');
  for (const k of Object.keys(o))
    if (!['kind', 'log', 'a', 'b'].includes(k) && !isVendorMember(k)) return fail('unknown_field', `NoteForkProof.${k}`);
  if (o.kind !== NOTE_FORK_PROOF) return fail('invalid_document', `kind is ${JSON.stringify(o.kind)}, expected "${NOTE_FORK_PROOF}"`);
  if (typeof o.log !== 'string' || o.log.length === 0 || o.log.length > 1024)
    return fail('invalid_document', 'log is the checkpoint origin');
  for (const k of ['a', 'b'] as const) {
    const n = o[k];
    if (typeof n !== 'string' || n.length === 0 || n.length > MAX_NOTE_BYTES)
      return fail('invalid_document', `${k} is a signed note (text)`);
  }
  return ok({ kind: NOTE_FORK_PROOF, log: o.log, a: o.a as string, b: o.b as string });
}

/** ok when both notes are validly signed by `vkey`, of `fp.log`, at one size, with different roots. */
export function verifyNoteForkProof(
  fp: NoteForkProof,
  vkey: string | NoteVerifier,
  opts: { backend?: CryptoBackend } = {},
): Result<ProvedNoteFork> {
  const shape = readNoteForkProof(fp);
  if (!shape.ok) return shape;
  const sides: Array<{ size: number; root: string }> = [];
  for (const name of ['a', 'b'] as const) {
    const v = verifyNote(fp[name], [vkey], opts);
    if (!v.ok) return { ...v, detail: `note ${name}: ${v.detail}` };
    const cp = parseCheckpointBody(v.value.text, { origin: fp.log });
    if (!cp.ok) {
      if (cp.code === 'origin_mismatch') return fail('not_a_fork', `note ${name}: ${cp.detail}`);
      return { ...cp, detail: `note ${name}: ${cp.detail}` };
    }
    sides.push({ size: cp.value.size, root: formatHash(cp.value.rootHash) });
  }
  const [a, b] = sides;
  if (a.size !== b.size) return fail('not_a_fork', `the checkpoints are of sizes ${a.size} and ${b.size}`);
  if (a.root === b.root) return fail('not_a_fork', `both checkpoints of size ${a.size} have the root ${a.root}`);
  return ok({ log: fp.log, seq: a.size, a: { root: a.root }, b: { root: b.root } });
}

/** Pair two signed notes of one log that a witness found to disagree (the caller has verified them). */
export function buildNoteForkProof(log: string, a: string, b: string): NoteForkProof {
  return { kind: NOTE_FORK_PROOF, log, a, b };
}

/**
 * The verdict on a C2SP log's proof under the auditor's trust (what `cookwala verify-fork` prints
 * and the verifier page shows): the log's vkey, or the note form of a sequencer KeyRecord, and the
 * log a policy is for (a proof about another log is log_mismatch).
 */
export function noteForkVerdict(fp: NoteForkProof, trust: { key?: KeyRecord; vkey?: string; log?: string }): ForkVerdict {
  const base = { proven: false, form: 'NoteForkProof' as const, log: fp.log };
  if (trust.log !== undefined && fp.log !== trust.log)
    return { ...base, code: 'log_mismatch', detail: `the proof is about ${fp.log}, the policy about ${trust.log}` };
  const vkey: Result<string> =
    trust.vkey !== undefined ? ok(trust.vkey) : trust.key ? logVkeyOf(fp.log, trust.key) : fail('unknown_key', 'no key of the log given');
  if (!vkey.ok) return { ...base, code: vkey.code, detail: vkey.detail };
  const v = verifyNoteForkProof(fp, vkey.value);
  if (!v.ok) return { ...base, code: v.code, detail: v.detail };
  return { proven: true, form: 'NoteForkProof', ...v.value };
}
