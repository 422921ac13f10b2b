// witness/server/mldsa-cosigner.ts: the witness's optional second C2SP cosigner, ML-DSA-44
// (c2sp.org/tlog-cosignature type 0x06, subtree/v1, at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9; docs/design.md §7a), beside the Ed25519 cosignature/v1 one
// under the same key name, as litewitness answers: add-checkpoint then returns both lines. The key
// is a signed-note skey `PRIVATE+KEY+<name>+<key ID>+base64(0x06 || 32-byte seed)` (the seed is
// the FIPS 204 key, so another implementation holding it signs as this witness). It signs the
// message over origin, start 0, end = size and root with a non-zero timestamp (tlog-witness).
// It leaves out sign-subtree and mirror statements. Invariant: verifier/c2sp/note/subtree.ts is the one
// encoder of the signed bytes; a timestamp is never 0.

import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { defaultBackend } from '../../verifier/crypto/index.ts';
import { concatBytes, fromHex } from '../../verifier/encoding/index.ts';
import { fail, ok, type Result } from '../../verifier/index.ts';
import {
  encodeMldsaCosignature,
  formatVerifierKey,
  parseSignerKey,
  SIG_MLDSA44,
  subtreeMessage,
  toBase64Std,
} from '../../verifier/c2sp/note/index.ts';

export interface MldsaCosigner {
  readonly name: string;
  readonly keyId: string;
  /** The cosigner's vkey (type 0x06). */
  readonly vkey: string;
  /** The signature line (without em dash and newline) for a checkpoint's origin, size and root at nowMs. */
  cosign(cp: { origin: string; size: number; rootHash: Uint8Array }, nowMs: number): { line: string; timestamp: number };
}

/** A cosigner from an ML-DSA-44 skey; a wrong type or a key ID that does not match is refused. */
export function createMldsaCosigner(skey: string, backend: CryptoBackend = defaultBackend()): Result<MldsaCosigner> {
  const k = parseSignerKey(skey, backend);
  if (!k.ok) return k;
  if (k.value.type !== SIG_MLDSA44)
    return fail('unsupported_alg', `an ML-DSA-44 cosigner needs a type 0x06 skey, not 0x${k.value.type.toString(16)}`);
  const { name, keyId, seed, publicKey } = k.value;
  const idBytes = fromHex(keyId);
  if (!idBytes.ok) return idBytes;
  return ok({
    name,
    keyId,
    vkey: formatVerifierKey(name, SIG_MLDSA44, publicKey),
    cosign(cp, nowMs) {
      const timestamp = Math.max(1, Math.floor(nowMs / 1000));
      const msg = subtreeMessage({ cosignerName: name, timestamp, origin: cp.origin, start: 0, end: cp.size, hash: cp.rootHash });
      const sig = encodeMldsaCosignature({ timestamp, signature: backend.mldsa44Sign(seed, msg) });
      return { line: `${name} ${toBase64Std(concatBytes(idBytes.value, sig))}`, timestamp };
    },
  });
}
