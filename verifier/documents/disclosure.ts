// verifier/documents/disclosure.ts: selective disclosure (Core 0.2 §5). A signed document may hold
// {"disclosure":"sha256:…"} = sha256(JCS([salt, value])) in place of a sensitive value; the salt is
// 16 random bytes (base64url). Revealing [salt, value] proves the value without touching the
// signature. A salt of another length is refused: a short salt makes the digest guessable.

import { fail, ok, type Result } from '../errors.ts';
import { fromBase64url, toBase64url } from '../encoding/wire.ts';
import { jsonHash } from '../signing/document-hash.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';

export interface Disclosure {
  disclosure: string;
}
export type Revealed = [salt: string, value: unknown];

export function createDisclosure(
  value: unknown,
  backend: CryptoBackend = defaultBackend(),
  salt?: Uint8Array,
): { digest: Disclosure; revealed: Revealed } {
  const s = toBase64url(salt ?? backend.randomBytes(16));
  const h = jsonHash([s, value], backend);
  if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
  return { digest: { disclosure: h.value }, revealed: [s, value] };
}

export function verifyDisclosure(digest: Disclosure, revealed: unknown, backend: CryptoBackend = defaultBackend()): Result<unknown> {
  if (!Array.isArray(revealed) || revealed.length !== 2 || typeof revealed[0] !== 'string')
    return fail('bad_disclosure', 'a revealed disclosure is [salt, value]');
  const salt = fromBase64url(revealed[0]);
  if (!salt.ok || salt.value.length !== 16) return fail('bad_disclosure', 'the salt is 16 bytes of base64url');
  const h = jsonHash(revealed, backend);
  if (!h.ok) return h;
  if (h.value !== digest.disclosure)
    return fail('bad_disclosure', `sha256(JCS([salt, value])) is ${h.value}, the digest says ${digest.disclosure}`);
  return ok(revealed[1]);
}
