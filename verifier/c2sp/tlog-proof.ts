// verifier/c2sp/tlog-proof.ts: one event's proof as a c2sp.org/tlog-proof@v1 file (docs/design.md §7a;
// C2SP tlog-proof at commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the header line, `extra
// <base64 of the entry JSON>` (so the verifier recomputes the leaf: SHA-256(0x00 || the entry's
// 32-byte hash), after checking the entry hashes to its `hash`), `index <seq - 1>`, the RFC 6962
// inclusion path as base64 lines, a blank line, and the checkpoint as a signed note with every
// C2SP signature it carries. Verification (the spec's four steps, against the auditor's policy):
// the leaf from `extra`; the note signed by a log key of the policy (its Ed25519 vkey, origin =
// policy.log, or its ML-DSA-44 `logMldsaVkey`); the
// cosignature/v1 of policy witnesses, found by key (../signing/witness-identity.ts), each counted once, at least policy.quorum of them
// (quorum_not_met); the inclusion path to the note's root; then the device signature on the entry
// when the auditor's keys hold its key (otherwise the verdict says it was not checked: `extra` is
// not authenticated, but the inclusion binds it to the witnessed root).
// Limits: 1 MiB, 64 proof lines, an entry nested at most MAX_JSON_DEPTH. Errors: malformed_proof
// for the format, then the codes of the parts (bad_signature, unknown_key, quorum_not_met,
// bad_proof, entry_hash_mismatch, log_mismatch). It leaves out the payload (the EventProof has it).
// Invariant: nothing is trusted from the file but what the policy's keys verify.

import { fail, ok, type Result } from '../errors.ts';
import { decodeUtf8, parseHash, utf8 } from '../encoding/wire.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { parseJson } from '../encoding/strict-json.ts';
import type { CryptoBackend } from '../crypto/default.ts';
import { fromBase64Std, toBase64Std } from './note/base64.ts';
import { parseNote, verifyCheckpointNote } from './note/signed.ts';
import { parseCheckpointBody } from './note/checkpoint.ts';
import { formatVerifierKey, isCosignatureType, SIG_COSIGNATURE_V1, SIG_MLDSA44 } from './note/keys.ts';
import { policyLogKeys } from '../documents/checkpoint-log-mldsa.ts';
import { isValidKeyName } from './note/text.ts';
import { sameWitness, witnessDisplayName, witnessEd25519Key, witnessOfC2spKid } from '../signing/witness-identity.ts';
import { hashLeaf, verifyInclusion } from '../merkle/index.ts';
import { checkpointToNote, logVkeyOf, witnessCosignatureKey } from '../documents/checkpoint-c2sp.ts';
import type { Checkpoint } from '../documents/checkpoint.ts';
import { entryLeaf, verifyEntryEventSignature, verifyEntryHash, type Entry } from '../documents/entry.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import { readDocument } from '../documents/read.ts';

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';
export const MAX_TLOG_PROOF_BYTES = 1 << 20;
const MAX_PROOF_LINES = 64;

export interface TlogProof {
  extra: Uint8Array | undefined;
  index: number;
  proof: Uint8Array[];
  /** The checkpoint note, verbatim. */
  note: string;
}

export interface TlogProofVerdict {
  log: string;
  seq: number;
  eventHash: string;
  checkpoint: { size: number; witnesses: string[] };
  /** The entry's device (or sequencer) signature: the kid when verified, else why not. */
  signedBy: string | undefined;
  signatureNotChecked?: string;
}

const bad = (detail: string): Result<never> => fail('malformed_proof', detail);

/** The tlog-proof text of one entry, its inclusion path (sha256: strings) and the checkpoint. */
export function formatTlogProof(f: { entry: Entry; proof: readonly string[]; checkpoint: Checkpoint }): Result<string> {
  const note = checkpointToNote(f.checkpoint);
  if (!note.ok) return note;
  const entry = canonicalize(f.entry);
  if (!entry.ok) return entry;
  const lines = [TLOG_PROOF_HEADER, `extra ${toBase64Std(utf8(entry.value))}`, `index ${f.entry.seq - 1}`];
  for (const h of f.proof) {
    const b = parseHash(h);
    if (!b.ok) return b;
    lines.push(toBase64Std(b.value));
  }
  return ok(`${lines.join('\n')}\n\n${note.value}`);
}

export function parseTlogProof(text: string | Uint8Array): Result<TlogProof> {
  if (text.length > MAX_TLOG_PROOF_BYTES) return bad(`a proof over ${MAX_TLOG_PROOF_BYTES} bytes`);
  const d = typeof text === 'string' ? ok(text) : decodeUtf8(text);
  if (!d.ok) return bad('not UTF-8');
  const s = d.value;
  const blank = s.indexOf('\n\n');
  if (blank < 0) return bad('no blank line before the checkpoint');
  const head = s.slice(0, blank).split('\n');
  if (head[0] !== TLOG_PROOF_HEADER) return bad(`the first line is not ${TLOG_PROOF_HEADER}`);
  let i = 1;
  let extra: Uint8Array | undefined;
  if (head[i]?.startsWith('extra ')) {
    const e = fromBase64Std(head[i].slice(6));
    if (!e.ok) return bad('the extra line is not standard base64');
    extra = e.value;
    i++;
  }
  const m = /^index (0|[1-9][0-9]{0,15})$/.exec(head[i] ?? '');
  if (!m || !Number.isSafeInteger(Number(m[1]))) return bad('no `index N` line (decimal, no leading zeros)');
  const proofLines = head.slice(i + 1);
  if (proofLines.length > MAX_PROOF_LINES) return bad(`${proofLines.length} proof lines; at most ${MAX_PROOF_LINES}`);
  const proof: Uint8Array[] = [];
  for (const [k, l] of proofLines.entries()) {
    const h = fromBase64Std(l);
    if (!h.ok || h.value.length !== 32) return bad(`proof line ${k + 1} is not the base64 of a 32-byte hash`);
    proof.push(h.value);
  }
  return ok({ extra, index: Number(m[1]), proof, note: s.slice(blank + 2) });
}

/** Verify a tlog-proof of one entry against the auditor's policy (and key cache for the entry signature). */
export function verifyTlogProof(
  text: string | Uint8Array,
  policy: WitnessPolicy,
  opts: { keys?: readonly KeyRecord[]; backend?: CryptoBackend; allowLegacy?: boolean } = {},
): Result<TlogProofVerdict> {
  const p = parseTlogProof(text);
  if (!p.ok) return p;
  const { extra, index, proof, note } = p.value;
  // 1. The leaf, from the entry JSON in `extra`.
  if (!extra) return bad('no extra line: the entry JSON is needed to recompute the leaf');
  const ej = decodeUtf8(extra);
  if (!ej.ok) return bad('extra is not UTF-8 JSON');
  const json = parseJson(ej.value);
  if (!json.ok) return { ...json, detail: `extra: ${json.detail}` };
  const er = readDocument('Event', json.value, { allowLegacy: opts.allowLegacy });
  if (!er.ok) return { ...er, detail: `extra entry: ${er.detail}` };
  const e = er.value;
  const eh = verifyEntryHash(e);
  if (!eh.ok) return eh;
  if (e.log !== policy.log) return fail('log_mismatch', `the entry is of ${e.log}, the policy of ${policy.log}`, { seq: e.seq });
  if (index !== e.seq - 1) return fail('bad_proof', `index ${index} is not entry ${e.seq}'s (${e.seq - 1})`, { seq: e.seq });
  // 2, 3. The note: the log key of the policy, then the policy witnesses' cosignatures.
  const logVkey = logVkeyOf(policy.log, policy.sequencer);
  if (!logVkey.ok) return logVkey;
  // Witnesses by key (../signing/witness-identity.ts): each cosignature line's name and key ID are matched to
  // the policy witness whose Ed25519 key gives that key ID, whatever name the policy spells.
  for (const w of policy.witnesses) {
    const k = witnessCosignatureKey(w);
    if (!k.ok) return k;
  }
  const parsed = parseNote(note);
  if (!parsed.ok) return parsed;
  const byLine = new Map<string, KeyRecord>(); // name+keyId -> policy witness
  // The log's keys: the sequencer's Ed25519 one and, when the policy names it, its ML-DSA-44 one;
  // the note counts as the log's when either signs it, and a failing line of either refuses it.
  const lk = policyLogKeys(policy);
  if (!lk.ok) return lk;
  const vkeys = [...lk.value.vkeys];
  const logKeys = lk.value.ids;
  // An ML-DSA-44 witness signs under the name and key ID its vkey fixes (subtree/v1).
  for (const w of policy.witnesses) {
    const k = witnessCosignatureKey(w);
    if (!k.ok || !k.value || k.value.type !== SIG_MLDSA44 || !w.vkey) continue;
    byLine.set(`${k.value.name}+${k.value.keyId}`, w);
    vkeys.push(w.vkey);
  }
  for (const s of parsed.value.signatures) {
    const id = `${s.name}+${s.keyId}`;
    const w = byLine.has(id) ? undefined : witnessOfC2spKid(policy.witnesses, id);
    const key = w ? witnessEd25519Key(w) : undefined;
    if (!w || !key || !isValidKeyName(s.name)) continue;
    byLine.set(id, w);
    vkeys.push(formatVerifierKey(s.name, SIG_COSIGNATURE_V1, key));
  }
  const v = verifyCheckpointNote(note, vkeys, { origin: policy.log, backend: opts.backend });
  if (!v.ok) {
    // Name the checkpoint (its size is the seq of its last entry) when its body reads.
    const body = parseNote(note);
    const cp = body.ok ? parseCheckpointBody(body.value.text) : undefined;
    return cp?.ok ? { ...v, detail: `checkpoint ${cp.value.size}: ${v.detail}`, seq: cp.value.size } : v;
  }
  if (!v.value.note.verified.some((s) => logKeys.includes(`${s.name}+${s.keyId}`)))
    return fail('unknown_key', 'the checkpoint carries no signature by a log key of the policy');
  const counted: KeyRecord[] = [];
  for (const s of v.value.note.verified) {
    const w = isCosignatureType(s.type) ? byLine.get(`${s.name}+${s.keyId}`) : undefined;
    if (w && !counted.some((c) => sameWitness(c, w))) counted.push(w);
  }
  const witnesses = counted.map(witnessDisplayName);
  const size = v.value.checkpoint.size;
  if (witnesses.length < policy.quorum)
    return fail('quorum_not_met', `checkpoint ${size}: ${witnesses.length} witness cosignatures (quorum ${policy.quorum})`, {
      witnesses,
      quorum: policy.quorum,
      seq: size,
    });
  // 4. The inclusion of the leaf in the signed root.
  const inc = verifyInclusion(hashLeaf(entryLeaf(e)), index, size, proof, v.value.checkpoint.rootHash);
  if (!inc.ok) return { ...inc, detail: `entry ${e.seq} in the checkpoint of size ${size}: ${inc.detail}`, seq: e.seq };
  // The entry's own signature, with a key the auditor trusts.
  const keys = [policy.sequencer, ...(opts.keys ?? [])];
  const kid = e.eventSignature.kid;
  const key = keys.find((k) => k.kid === kid);
  const verdict: TlogProofVerdict = {
    log: e.log,
    seq: e.seq,
    eventHash: e.eventHash,
    checkpoint: { size, witnesses },
    signedBy: undefined,
  };
  if (!key) {
    verdict.signatureNotChecked = `no trusted key for ${kid} (give the device keys with --keys)`;
    return ok(verdict);
  }
  const bySequencer = key === policy.sequencer;
  const sig = verifyEntryEventSignature(
    e,
    (k) => keys.find((x) => x.kid === k),
    bySequencer
      ? { backend: opts.backend, allowLegacy: opts.allowLegacy, role: 'sequencer', checkSource: false }
      : { backend: opts.backend, allowLegacy: opts.allowLegacy },
  );
  if (!sig.ok) return { ...sig, seq: e.seq };
  verdict.signedBy = kid;
  return ok(verdict);
}
