// witness/server/key-import.ts: reading an existing witness key for `cookwala witness init --key
// FILE` (docs/design.md §7a), so an operator who already runs a witness keeps its identity (its
// public key, hence its vkey and kid). Forms, told apart by their bytes:
//   - a C2SP signed-note private key, `PRIVATE+KEY+<name>+<key ID>+<base64(type || 32-byte seed)>`
//     (the form of golang.org/x/mod/sumdb/note's GenerateKey, type 0x01, or a cosignature/v1 0x04
//     key; c2sp.org/signed-note at C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the
//     key ID must be the first 4 bytes of SHA-256(name || "\n" || type || public key), and its
//     name is the witness's C2SP name unless the operator gives the same one;
//   - a raw 32-byte Ed25519 seed (exactly 32 bytes), or its 64 hex digits;
//   - our own key file, {"alg":"EdDSA","kid":…,"secretKey":<base64url seed>} (DIR/witness.key.json).
// Pure: the caller reads the file. Left out: ML-DSA-44 keys (a form added beside these), and
// encrypted or ssh-agent keys. Invariant: the seed returned is exactly 32 bytes and nothing else of
// the file is kept; a file that is none of the forms is refused with a line naming them.

import { fail, ok, type Result } from '../../verifier/index.ts';
import { parseSignerKey } from '../../verifier/c2sp/note/index.ts';
import { parseJson } from '../../verifier/encoding/index.ts';
import { fromBase64url } from '../../verifier/encoding/index.ts';

export interface ImportedKey {
  alg: 'EdDSA';
  /** The 32-byte Ed25519 seed. */
  seed: Uint8Array;
  /** The C2SP key name the file keeps the key under (a PRIVATE+KEY file only). */
  name?: string;
  form: 'c2sp-private-key' | 'seed' | 'cookwala-key';
}

/** Largest key file read: every form is well under it. */
export const MAX_KEY_FILE_BYTES = 4096;

const FORMS =
  'a C2SP PRIVATE+KEY+<name>+<key ID>+<base64> line, a raw 32-byte Ed25519 seed (or its 64 hex digits), or a witness.key.json {"alg":"EdDSA","kid":…,"secretKey":…}';

export function importWitnessKey(bytes: Uint8Array): Result<ImportedKey> {
  if (bytes.length === 32) return ok({ alg: 'EdDSA', seed: Uint8Array.from(bytes), form: 'seed' });
  if (bytes.length > MAX_KEY_FILE_BYTES) return fail('invalid_document', `a key file of ${bytes.length} bytes; expected ${FORMS}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
  } catch {
    return fail('invalid_document', `not a key file: expected ${FORMS}`);
  }
  if (text.startsWith('PRIVATE+KEY+')) {
    const k = parseSignerKey(text);
    if (!k.ok) return fail(k.code, `C2SP private key: ${k.detail}`);
    return ok({ alg: 'EdDSA', seed: k.value.seed, name: k.value.name, form: 'c2sp-private-key' });
  }
  if (/^[0-9a-fA-F]{64}$/.test(text)) return ok({ alg: 'EdDSA', seed: Uint8Array.from(Buffer.from(text, 'hex')), form: 'seed' });
  if (text.startsWith('{')) {
    const j = parseJson(text);
    if (!j.ok) return fail(j.code, `key file: ${j.detail}`);
    const o = j.value as Record<string, unknown>;
    if (o && o.alg !== 'EdDSA' && typeof o.alg === 'string')
      return fail('unsupported_alg', `a witness key of alg ${o.alg.slice(0, 20)} cannot be imported here`);
    const s = typeof o?.secretKey === 'string' ? fromBase64url(o.secretKey) : undefined;
    if (!s?.ok || s.value.length !== 32) return fail('invalid_document', 'key file: secretKey is the base64url of a 32-byte seed');
    return ok({ alg: 'EdDSA', seed: s.value, form: 'cookwala-key' });
  }
  return fail('invalid_document', `not a key file: expected ${FORMS}`);
}
