// conformance/topics/cookwala-ops-core.ts: vector ops over the core integrity functions that exist
// from the start (Core 0.2 §5, RFC-0012): the document hash (verifier/signing/document-hash.ts), signatures
// (verifier/signing/signature.ts), key validity (verifier/signing/keys.ts) and selective disclosure
// (verifier/documents/disclosure.ts). Each op reads its self-contained input and returns the project's Result;
// it adds no rule of its own beyond comparing a stated hash with the recomputed one.

import { computeHash, type JsonObject } from '../../verifier/signing/index.ts';
import { fail, ok, type Result } from '../../verifier/index.ts';
import { checkKeyValidAt, createKeyCache, validKeyRecordShape, type KeyRecord, type KeyRole } from '../../verifier/signing/index.ts';
import { verifyDocument, verifyWithKeys } from '../../verifier/signing/index.ts';
import { verifyDisclosure, type Disclosure } from '../../verifier/documents/index.ts';

type Input = Record<string, unknown>;

/** The trusted keys of a case: `keys: [KeyRecord…]`, each checked for shape first. */
export function keyLookup(input: Input): Result<(kid: string) => KeyRecord | undefined> {
  const keys = (input.keys ?? []) as KeyRecord[];
  if (!Array.isArray(keys)) return fail('invalid_document', 'keys is a list of KeyRecords');
  for (const k of keys) {
    const v = validKeyRecordShape(k);
    if (!v.ok) return v;
  }
  const cache = createKeyCache(keys);
  return ok((kid: string) => cache.get(kid));
}

function verifyOpts(input: Input): { allowLegacy?: boolean; role?: KeyRole } {
  const o: { allowLegacy?: boolean; role?: KeyRole } = {};
  if (input.allowLegacy === true) o.allowLegacy = true;
  if (typeof input.role === 'string') o.role = input.role as KeyRole;
  return o;
}

/** `{document, hash}`: the Core §5 hash of `document` must be `hash`. */
export function documentHashOp(input: Input): Result<string> {
  const h = computeHash(input.document as JsonObject);
  if (!h.ok) return h;
  if (h.value !== input.hash) return fail('hash_mismatch', `computed ${h.value}, the vector states ${String(input.hash)}`);
  return h;
}

/** `{document, keys, allowLegacy?, role?}`: the document's own signature over its recomputed hash. */
export function verifyDocumentOp(input: Input): Result<unknown> {
  const lookup = keyLookup(input);
  if (!lookup.ok) return lookup;
  return verifyDocument(input.document as JsonObject, lookup.value, verifyOpts(input));
}

/** `{hash, kind?, signature, keys, allowLegacy?, role?}`: one Signature over a given hash and kind. */
export function verifySignatureOp(input: Input): Result<unknown> {
  const lookup = keyLookup(input);
  if (!lookup.ok) return lookup;
  const kind = typeof input.kind === 'string' ? input.kind : undefined;
  return verifyWithKeys(String(input.hash), kind, input.signature, lookup.value, verifyOpts(input));
}

/** `{key, signedAt}`: the KeyRecord validity rule at one instant. */
export function keyValidAtOp(input: Input): Result<unknown> {
  const key = input.key as KeyRecord;
  const shape = validKeyRecordShape(key);
  if (!shape.ok) return shape;
  return checkKeyValidAt(key, String(input.signedAt));
}

function at(doc: unknown, pathParts: unknown): unknown {
  if (!Array.isArray(pathParts)) return undefined;
  let cur = doc;
  for (const p of pathParts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[String(p)];
  }
  return cur;
}

/**
 * `{digest, revealed}` or `{document, keys, path, revealed}`: a revealed [salt, value] against its
 * digest; with a document, its signature must verify first and the digest is read at `path`.
 */
export function verifyDisclosureOp(input: Input): Result<unknown> {
  let digest = input.digest as Disclosure;
  if (input.document !== undefined) {
    const lookup = keyLookup(input);
    if (!lookup.ok) return lookup;
    const v = verifyDocument(input.document as JsonObject, lookup.value, verifyOpts(input));
    if (!v.ok) return v;
    digest = at(input.document, input.path) as Disclosure;
  }
  if (!digest || typeof digest.disclosure !== 'string') return fail('bad_disclosure', 'no {"disclosure": …} digest there');
  return verifyDisclosure(digest, input.revealed);
}
