// witness/wire/messages.ts: the messages of `/cookwala/witness/1.0.0` (docs/design.md §7, after C2SP
// tlog-witness's add-checkpoint): request `{type:"add-checkpoint", oldSeq, consistency, headProof,
// checkpoint, descriptor?}`, reply `{ok:true, cosignature, noteCosignature?}` (noteCosignature: the
// cosignature/v1 form, docs/design.md §4) or `{ok:false, code, detail, knownSeq?, forkProof?}`. Parsing is strict (I-JSON: a repeated member name is duplicate_member; unknown
// members refused, every document read through verifier/documents/read.ts), so processAddCheckpoint only
// ever sees well-formed values, read one way. Pure code.
// Left out: other message types (answered `unknown_message_type`); C2SP's text wire format (the
// project speaks JSON; verifier/c2sp/note/index.ts covers the text formats for interop).

import { fail, isReasonCode, ok, type Failure, type ReasonCode, type Result } from '../../verifier/index.ts';
import { fromUtf8, isHashString, isTime, utf8 } from '../../verifier/encoding/index.ts';
import { readDocument } from '../../verifier/documents/index.ts';
import { MAX_JSON_DEPTH, parseJson } from '../../verifier/encoding/index.ts';
import type { Checkpoint } from '../../verifier/documents/index.ts';
import type { LogDescriptor } from '../../verifier/documents/index.ts';
import type { ForkProof } from '../../verifier/documents/index.ts';
import { parseSignature, type Signature } from '../../verifier/signing/index.ts';
import { isVendorMember } from '../../verifier/signing/index.ts';

export const WITNESS_PROTOCOL = '/cookwala/witness/1.0.0';
/** A proof for a tree of up to 2^64 leaves has at most 64 hashes (consistency: one more). */
export const MAX_PROOF_HASHES = 65;

export interface AddCheckpointRequest {
  type: 'add-checkpoint';
  oldSeq: number;
  consistency: string[];
  headProof: string[];
  checkpoint: Checkpoint;
  descriptor?: LogDescriptor;
}

/** The cosignature/v1 form of a cosignature (docs/design.md §4): kid `<name>+<key id hex>`, whole seconds. */
export interface NoteCosignatureObject {
  alg: 'cosignature/v1';
  kid: string;
  signedAt: string;
  sig: string;
}

export type Reply =
  | { ok: true; cosignature: Signature; noteCosignature?: NoteCosignatureObject }
  | { ok: false; code: ReasonCode; detail: string; knownSeq?: number; forkProof?: ForkProof };

const REQUEST_MEMBERS = new Set(['type', 'oldSeq', 'consistency', 'headProof', 'checkpoint', 'descriptor']);

export function encodeMessage(msg: unknown): Uint8Array {
  return utf8(JSON.stringify(msg));
}

/**
 * Bytes to JSON: `bad_json` for invalid UTF-8 or JSON; I-JSON (verifier/encoding/strict-json.ts): a member
 * name twice in one object is `duplicate_member`, and a frame nests at most one level more than
 * the documents it carries (`too_deep`). The frame layer has already bounded the length.
 */
export function decodeJson(bytes: Uint8Array): Result<unknown> {
  let text: string;
  try {
    text = fromUtf8(bytes);
  } catch (e) {
    return fail('bad_json', (e as Error).message.slice(0, 200));
  }
  return parseJson(text, { maxDepth: MAX_JSON_DEPTH + 1 });
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function readProof(x: unknown, name: string): Result<string[]> {
  if (!Array.isArray(x)) return fail('invalid_document', `${name} is an array of hash strings`);
  if (x.length > MAX_PROOF_HASHES) return fail('invalid_document', `${name} has ${x.length} hashes (max ${MAX_PROOF_HASHES})`);
  for (const h of x) if (!isHashString(h)) return fail('invalid_hash', `${name} holds ${String(h).slice(0, 80)}`);
  return ok(x as string[]);
}

/** A request frame's JSON value to a checked request. */
export function readRequest(json: unknown): Result<AddCheckpointRequest> {
  if (!isObject(json)) return fail('invalid_document', 'a request is a JSON object');
  if (typeof json.type !== 'string') return fail('invalid_document', 'a request has a string `type`');
  if (json.type !== 'add-checkpoint') return fail('unknown_message_type', `type ${json.type.slice(0, 60)}`);
  for (const k of Object.keys(json)) {
    if (!REQUEST_MEMBERS.has(k) && !isVendorMember(k)) return fail('unknown_field', `request.${k.slice(0, 60)}`);
  }
  if (!Number.isSafeInteger(json.oldSeq) || (json.oldSeq as number) < 0)
    return fail('invalid_document', 'oldSeq is a non-negative integer');
  const consistency = readProof(json.consistency, 'consistency');
  if (!consistency.ok) return consistency;
  const headProof = readProof(json.headProof, 'headProof');
  if (!headProof.ok) return headProof;
  const cp = readDocument('Checkpoint', json.checkpoint) as Result<Checkpoint>;
  if (!cp.ok) return cp;
  const req: AddCheckpointRequest = {
    type: 'add-checkpoint',
    oldSeq: json.oldSeq as number,
    consistency: consistency.value,
    headProof: headProof.value,
    checkpoint: cp.value,
  };
  if (json.descriptor !== undefined) {
    const d = readDocument('Log', json.descriptor) as Result<LogDescriptor>;
    if (!d.ok) return d;
    req.descriptor = d.value;
  }
  return ok(req);
}

export function parseRequest(bytes: Uint8Array): Result<AddCheckpointRequest> {
  const j = decodeJson(bytes);
  return j.ok ? readRequest(j.value) : j;
}

/** The reply for a processed request (structured facts such as knownSeq travel along). */
export function replyOf(r: Result<Signature>): Reply {
  if (r.ok) return { ok: true, cosignature: r.value };
  return failureReply(r);
}

export function failureReply(f: Failure): Reply {
  const out: Reply = { ok: false, code: f.code, detail: f.detail };
  if (typeof f.knownSeq === 'number') out.knownSeq = f.knownSeq;
  if (f.forkProof !== undefined) out.forkProof = f.forkProof as ForkProof;
  return out;
}

/** Shape of a cosignature/v1 object; its signature is checked by whoever holds the witness's vkey. */
export function readNoteCosignatureObject(x: unknown): Result<NoteCosignatureObject> {
  if (!isObject(x) || x.alg !== 'cosignature/v1')
    return fail('invalid_document', 'noteCosignature is {alg:"cosignature/v1", kid, signedAt, sig}');
  for (const k of Object.keys(x))
    if (!['alg', 'kid', 'signedAt', 'sig'].includes(k)) return fail('unknown_field', `noteCosignature.${k.slice(0, 60)}`);
  if (typeof x.kid !== 'string' || !/^[^\s+]{1,512}\+[0-9a-f]{8}$/.test(x.kid))
    return fail('invalid_document', 'noteCosignature.kid is <name>+<8 hex key id>');
  if (!isTime(x.signedAt) || !x.signedAt.endsWith('.000Z'))
    return fail('invalid_document', 'noteCosignature.signedAt is a time in whole seconds');
  if (typeof x.sig !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(x.sig))
    return fail('invalid_document', 'noteCosignature.sig is the base64url of a 64-byte signature');
  return ok({ alg: 'cosignature/v1', kid: x.kid, signedAt: x.signedAt, sig: x.sig });
}

/** A reply frame, as the client reads it: shape-checked, documents left to the caller to verify. */
export function parseReply(bytes: Uint8Array): Result<Reply> {
  const j = decodeJson(bytes);
  if (!j.ok) return j;
  const v = j.value;
  if (!isObject(v) || typeof v.ok !== 'boolean') return fail('invalid_document', 'a reply is {ok, …}');
  if (v.ok) {
    const s = parseSignature(v.cosignature);
    if (!s.ok) return s;
    if (v.noteCosignature === undefined) return ok({ ok: true, cosignature: s.value });
    const n = readNoteCosignatureObject(v.noteCosignature);
    return n.ok ? ok({ ok: true, cosignature: s.value, noteCosignature: n.value }) : n;
  }
  if (!isReasonCode(v.code)) return fail('invalid_document', `reply code ${String(v.code).slice(0, 60)}`);
  const out: Reply = { ok: false, code: v.code, detail: typeof v.detail === 'string' ? v.detail : '' };
  if (v.knownSeq !== undefined) {
    if (!Number.isSafeInteger(v.knownSeq) || (v.knownSeq as number) < 0) return fail('invalid_document', 'knownSeq');
    out.knownSeq = v.knownSeq as number;
  }
  if (v.forkProof !== undefined) out.forkProof = v.forkProof as ForkProof;
  return ok(out);
}
