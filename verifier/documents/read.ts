// verifier/documents/read.ts: strict reading (docs/design.md §3; Core §2, §9), one entry point per document kind.
// In order: a JSON object (invalid_document); the right `kind` (invalid_document); a declared
// `coreVersion` must be 0.2.x (unsupported_version, checked before the schema, since a newer
// version may well define members this reader does not know); a 0.2.0 declaration is refused
// (legacy_signature) unless allowLegacy, because 0.2.0 signed the bare hash (docs/design.md §3); then the
// schema (unknown_field with the JSON Pointer in `path`, invalid_hash, unsupported_alg,
// invalid_document) and what a schema cannot say (key lengths per alg, policy roles). `x-<vendor>-…`
// members pass and stay covered by hashes. Reading never changes the input; signatures and hashes
// are checked by the verify functions, not here. parseJson (verifier/encoding/strict-json.ts, re-exported
// here) turns text into JSON under I-JSON: a repeated member name is duplicate_member, never
// JSON.parse's "the last wins", so every part reads one document one way.

import { fail, ok, type Result } from '../errors.ts';
import { createKeyCache, validKeyRecordShape, type KeyCache, type KeyRecord } from '../signing/keys.ts';
import type { Signature } from '../signing/signature.ts';
import type { LogDescriptor } from './log-descriptor.ts';
import type { Entry } from './entry.ts';
import type { Checkpoint } from './checkpoint.ts';
import type { ForkProof } from './fork-proof.ts';
import { readWitnessPolicy, type WitnessPolicy } from './policy.ts';
import { schemaValidator } from './schemas/validate.ts';
import { DOCUMENT_KINDS, type DocumentKind } from './schemas/bundle.ts';

export type { DocumentKind };

export interface DocumentOf {
  Log: LogDescriptor;
  Event: Entry;
  Checkpoint: Checkpoint;
  KeyRecord: KeyRecord;
  ForkProof: ForkProof;
  Signature: Signature;
  WitnessPolicy: WitnessPolicy;
  KeyCache: KeyCache;
}

export interface ReadOptions {
  /** Read documents declaring coreVersion 0.2.0 (bare-hash signatures, reported as weaker). */
  allowLegacy?: boolean;
  /** 'on-use': a KeyRecord's Ed25519 key rule waits for the key's first signature check (../signing/keys.ts publicKeyBytes). */
  keyRule?: 'now' | 'on-use';
}

/** The Core versions this reader accepts: any patch of 0.2 (Core §9). */
export const CORE_VERSION_RE = /^0\.2\.(?:0|[1-9][0-9]*)$/;

/** coreVersion check alone (also used by bundle readers for their own headers' declared version). */
export function checkCoreVersion(v: unknown, opts: ReadOptions = {}): Result<true> {
  if (typeof v !== 'string') return fail('invalid_document', 'coreVersion is a string', { path: '/coreVersion' });
  if (!CORE_VERSION_RE.test(v)) return fail('unsupported_version', `coreVersion ${v.slice(0, 40)} is not 0.2.x`, { path: '/coreVersion' });
  if (v === '0.2.0' && !opts.allowLegacy) {
    return fail('legacy_signature', 'a coreVersion 0.2.0 document is signed over the bare hash; pass --allow-legacy-signatures to accept', {
      path: '/coreVersion',
    });
  }
  return ok(true);
}

function checkKeys(keys: KeyRecord[], base: string): Result<true> {
  for (let i = 0; i < keys.length; i++) {
    const r = validKeyRecordShape(keys[i]);
    if (!r.ok) return fail(r.code === 'weak_key' ? 'weak_key' : 'invalid_document', `${base}${i}: ${r.detail}`, { path: `${base}${i}` });
  }
  return ok(true);
}

export function readDocument<K extends DocumentKind>(kind: K, json: unknown, opts: ReadOptions = {}): Result<DocumentOf[K]> {
  if (!DOCUMENT_KINDS.includes(kind)) throw new TypeError(`unknown document kind ${String(kind)}`);
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return fail('invalid_document', `a ${kind} is a JSON object`, { path: '/' });
  const o = json as Record<string, unknown>;
  if (kind !== 'Signature' && o.kind !== kind)
    return fail('invalid_document', `kind is ${JSON.stringify(o.kind) ?? 'absent'}, expected "${kind}"`, { path: '/kind' });
  if (o.coreVersion !== undefined || kind === 'Log') {
    const v = checkCoreVersion(o.coreVersion, opts);
    if (!v.ok) return v;
  }
  if (kind === 'WitnessPolicy') return readWitnessPolicy(json) as Result<DocumentOf[K]>;
  const s = schemaValidator().validate(kind, json);
  if (!s.ok) return s;
  if (kind === 'KeyRecord') {
    const k = validKeyRecordShape(json as KeyRecord, opts.keyRule !== 'on-use');
    if (!k.ok) return { ...k, path: '/' };
  }
  if (kind === 'KeyCache') {
    const keys = (json as { keys: KeyRecord[] }).keys;
    const k = checkKeys(keys, '/keys/');
    if (!k.ok) return k;
    return ok(createKeyCache(keys)) as Result<DocumentOf[K]>;
  }
  return ok(json as DocumentOf[K]);
}

export { parseJson, MAX_JSON_DEPTH, type JsonLimits } from '../encoding/strict-json.ts';
