// monitor/served.ts: what a log serves as its latest checkpoint, read and verified against the
// auditor's witness policy (docs/design.md §4, §7a). For a Cookwala log, the JSON Checkpoint
// (`GET /v1/logs/{log}/checkpoint`, or `<copy>cookwala/checkpoint.json` of a static copy) through verifyCheckpoint: the sequencer's signature, each
// witness cosignature (JCS or cosignature/v1), the quorum. For any C2SP log, the signed note
// (`<prefix>checkpoint`, c2sp.org/tlog-checkpoint) through verifyNote: the log's own note signature
// by the policy's sequencer key (or by its ML-DSA-44 log key, `logMldsaVkey`) must verify, and cosignature/v1 lines of distinct policy
// witnesses (cosignature/v1 0x04, or ML-DSA-44 subtree/v1 0x06 for a witness known by that key) count toward the quorum; unknown lines are skipped, as the spec asks. The result says
// which of the two failed (quorum_not_met apart from every other reason), and carries the newest
// cosignature time, which the staleness check reads. Also the monitoring read of one witness
// (`GET <url>/<hex sha256(origin)>/checkpoint`) as a note whose log signature verifies. Left out:
// fetching payloads or entries (entries-step.ts), the comparisons (follow.ts, split-view.ts).
// Invariant: a view is returned (also beside quorum_not_met) only with a valid signature by the
// policy's sequencer key.

import { createHash } from 'node:crypto';
import { fail, ok, type Result } from '../verifier/index.ts';
import { parseJson } from '../verifier/documents/index.ts';
import { verifyCheckpoint, type Checkpoint } from '../verifier/documents/index.ts';
import { policyLogKeys, witnessCosignatureKey } from '../verifier/documents/index.ts';
import { formatVerifierKey, verifyNote, parseCheckpointBody, isCosignatureType, type VerifiedNote } from '../verifier/c2sp/note/index.ts';
import { formatHash, timeMs } from '../verifier/encoding/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import { FetchFailed, text, type HttpGet } from './http-get.ts';

/**
 * 502, 503 and 504 say the log is not answering now (a restart, a proxy without its upstream), not
 * that what it serves is wrong: the caller treats them as no answer (stale only after staleAfterMs).
 */
function unavailable(status: number, url: string): void {
  if (status === 502 || status === 503 || status === 504) throw new FetchFailed(`GET ${url}: HTTP ${status}`);
}

export type LogKind = 'cookwala' | 'c2sp';

export interface ServedView {
  size: number;
  /** `sha256:` + hex of the Merkle root. */
  root: string;
  /** The hash of entry `size` (Cookwala logs only). */
  head?: string;
  /** The JSON Checkpoint (Cookwala logs). */
  checkpoint?: Checkpoint;
  /** The signed note (C2SP logs; Cookwala logs when read from a witness). */
  note?: string;
  /** kids of the policy witnesses that counted. */
  witnesses: string[];
  /** The newest cosignature time, ms (NaN when none). */
  newestCosignatureMs: number;
}

export const MAX_CHECKPOINT_BYTES = 1 << 20;

export function originHash(origin: string): string {
  return createHash('sha256').update(origin, 'utf8').digest('hex');
}

/**
 * Read and verify the served checkpoint of a Cookwala log: from the sequencer at `base`, or from a
 * static copy (`cookwala tiles --entries`) at `copy`, its `cookwala/checkpoint.json`.
 */
export async function readCookwalaCheckpoint(
  get: HttpGet,
  from: { base?: string; copy?: string },
  policy: WitnessPolicy,
): Promise<Result<ServedView>> {
  const url =
    from.base !== undefined ? `${from.base}/v1/logs/${encodeURIComponent(policy.log)}/checkpoint` : `${from.copy}cookwala/checkpoint.json`;
  const r = await get(url, { accept: 'application/json', maxBytes: MAX_CHECKPOINT_BYTES });
  unavailable(r.status, url);
  if (r.status !== 200) return fail('not_found', `GET ${url}: HTTP ${r.status}`);
  const j = parseJson(text(r.body));
  if (!j.ok) return j;
  const cp = j.value as Checkpoint;
  const v = verifyCheckpoint(cp, policy);
  if (!v.ok) {
    // Short of the quorum, the sequencer's signature did verify: the checkpoint still binds the
    // log (a second root at a verified size is a fork however few witnesses saw it).
    if (v.code === 'quorum_not_met')
      return { ...v, view: { size: cp.seq, root: cp.root, head: cp.head, checkpoint: cp, witnesses: [], newestCosignatureMs: NaN } };
    return v;
  }
  const newest = Math.max(...v.value.cosignedAt.map(timeMs), -Infinity);
  return ok({
    size: cp.seq,
    root: cp.root,
    head: cp.head,
    checkpoint: cp,
    witnesses: v.value.witnesses,
    newestCosignatureMs: Number.isFinite(newest) ? newest : NaN,
  });
}

/** The note verifier keys (cosignature/v1 or ML-DSA-44) of the policy's witnesses, by `<name>+<key ID>` to the witness kid. */
function witnessKeys(policy: WitnessPolicy): Result<Map<string, { vkey: string; kid: string }>> {
  const out = new Map<string, { vkey: string; kid: string }>();
  for (const w of policy.witnesses) {
    const k = witnessCosignatureKey(w);
    if (!k.ok || !k.value) continue; // a witness without a C2SP vkey (0x04 or 0x06) is not counted from notes
    out.set(`${k.value.name}+${k.value.keyId}`, { vkey: formatVerifierKey(k.value.name, k.value.type, k.value.publicKey), kid: w.kid });
  }
  return ok(out);
}

/**
 * Verify a checkpoint note against the policy: the log's signature required, then the quorum of
 * cosignature lines (0x04 or 0x06) by distinct policy witnesses. `needQuorum` false for a witness's own read.
 */
export function verifyPolicyNote(note: string, policy: WitnessPolicy, needQuorum = true): Result<ServedView> {
  // The log's keys (Ed25519 and, when the policy names it, ML-DSA-44): either one signing is the log's.
  const lk = policyLogKeys(policy);
  if (!lk.ok) return lk;
  const wk = witnessKeys(policy);
  if (!wk.ok) return wk;
  const v = verifyNote(note, [...lk.value.vkeys, ...[...wk.value.values()].map((w) => w.vkey)]);
  if (!v.ok) return v;
  if (!v.value.verified.some((s) => lk.value.ids.includes(`${s.name}+${s.keyId}`)))
    return fail('bad_signature', `the checkpoint carries no valid signature of the log key ${lk.value.ids.join(' or ')}`);
  const body = parseCheckpointBody(v.value.text, { origin: policy.log });
  if (!body.ok) return body;
  const { witnesses, newest } = countWitnesses(v.value, wk.value);
  const quorum = policy.quorum ?? 1;
  if (needQuorum && witnesses.length < quorum)
    return fail('quorum_not_met', `checkpoint ${body.value.size}: ${witnesses.length} of ${quorum} witness cosignatures`, {
      seq: body.value.size,
      witnesses,
      quorum,
    });
  return ok({ size: body.value.size, root: formatHash(body.value.rootHash), note, witnesses, newestCosignatureMs: newest });
}

function countWitnesses(v: VerifiedNote, keys: Map<string, { kid: string }>): { witnesses: string[]; newest: number } {
  const witnesses: string[] = [];
  let newest = NaN;
  for (const s of v.verified) {
    if (!isCosignatureType(s.type)) continue;
    const w = keys.get(`${s.name}+${s.keyId}`);
    if (!w || witnesses.includes(w.kid)) continue;
    witnesses.push(w.kid);
    if (s.timestamp !== undefined && !(s.timestamp * 1000 <= newest)) newest = s.timestamp * 1000;
  }
  return { witnesses, newest };
}

/** Read and verify the served checkpoint note of any C2SP log under its tiles prefix. */
export async function readC2spCheckpoint(get: HttpGet, prefix: string, policy: WitnessPolicy): Promise<Result<ServedView>> {
  const r = await get(prefix + 'checkpoint', { accept: 'text/plain', maxBytes: MAX_CHECKPOINT_BYTES });
  unavailable(r.status, `${prefix}checkpoint`);
  if (r.status !== 200) return fail('not_found', `GET ${prefix}checkpoint: HTTP ${r.status}`);
  return verifyPolicyNote(text(r.body), policy);
}

/** A witness's monitoring read: the note it last cosigned for the log (undefined: none, 404). */
export async function readWitnessView(get: HttpGet, witnessUrl: string, policy: WitnessPolicy): Promise<Result<ServedView | undefined>> {
  const url = `${witnessUrl.replace(/\/+$/, '')}/${originHash(policy.log)}/checkpoint`;
  const r = await get(url, { accept: 'text/plain', maxBytes: MAX_CHECKPOINT_BYTES });
  if (r.status === 404) return ok(undefined);
  if (r.status !== 200) return fail('not_found', `GET ${url}: HTTP ${r.status}`);
  return verifyPolicyNote(text(r.body), policy, false);
}
