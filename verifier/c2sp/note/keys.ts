// verifier/c2sp/note/keys.ts: C2SP signed-note keys. A verifier key (vkey) is
// `<name>+<8 hex key ID>+<base64(signature type || public key)>`, a signer key (skey)
// `PRIVATE+KEY+<name>+<key ID>+<base64(type || 32-byte seed)>`. Key IDs are
// SHA-256(name || 0x0A || type || public key)[:4] for Ed25519 (0x01), cosignature/v1 (0x04) and
// ML-DSA-44 subtree/v1 cosignatures (0x06, a 1312-byte key; subtree.ts), and SHA-256(DER SPKI)[:4]
// for ECDSA (0x02, P-256 only). An ML-DSA-44 skey holds the 32-byte FIPS 204 seed, the form other
// implementations share (the same seed gives the same key everywhere). Other types (0x05 RFC 6962
// STH, future ones) parse with `supported: false` and their key ID taken as given: such a key
// cannot verify, so createNoteVerifier refuses it ('unsupported_alg').
// An Ed25519 or cosignature/v1 key that breaks the one Ed25519 key rule (verifier/crypto/ed25519-rules.ts:
// small-order, mixed-order, non-canonical) is refused with 'weak_key'.
// It leaves out the note format (signed.ts). Invariant: a vkey that parses has a key ID that matches
// its key for every supported type, so (name, key ID) names exactly one public key; the two
// cosignature types sign checkpoint bodies only.

import { defaultBackend, sha256, type CryptoBackend } from '../../crypto/default.ts';
import { concatBytes, decodeUtf8, toHex, utf8 } from '../../encoding/wire.ts';
import { fail, ok, type Result } from '../../errors.ts';
import { fromBase64Std, toBase64Std } from './base64.ts';
import { parseCheckpointBody } from './checkpoint.ts';
import { cosignatureMessage, encodeCosignature, parseCosignature } from './cosignature.ts';
import { ecdsaDerToRaw, p256PointFromSpki } from './ecdsa.ts';
import { isValidKeyName } from './text.ts';
import { MLDSA44_PUBLIC_KEY_BYTES } from '../../crypto/mldsa44.ts';
import { encodeMldsaCosignature, parseMldsaCosignature, subtreeMessage, subtreeNamesFit } from './subtree.ts';
import { checkEd25519PublicKey, verifyEd25519 } from '../../crypto/ed25519-rules.ts';

export const SIG_ED25519 = 0x01;
export const SIG_ECDSA = 0x02;
export const SIG_COSIGNATURE_V1 = 0x04;
/** ML-DSA-44 subtree/v1 cosignatures (c2sp.org/tlog-cosignature), also a log's checkpoint signature. */
export const SIG_MLDSA44 = 0x06;

/** The two cosignature types: they sign checkpoint bodies only, with a timestamp. */
export const isCosignatureType = (type: number): boolean => type === SIG_COSIGNATURE_V1 || type === SIG_MLDSA44;

export interface VerifierKey {
  name: string;
  /** 8 lowercase hex digits: the big-endian uint32 that prefixes each signature. */
  keyId: string;
  type: number;
  /** The key material after the type byte (for 0x02, the DER SPKI). */
  publicKey: Uint8Array;
  /** Whether this implementation can verify signatures of this type. */
  supported: boolean;
}

export interface NoteVerifier {
  readonly name: string;
  readonly keyId: string;
  readonly type: number;
  /** Check one signature (the bytes after the key ID) over the note text bytes. Never throws. */
  verify(text: Uint8Array, sig: Uint8Array): boolean;
}

export interface NoteSigner {
  readonly name: string;
  readonly keyId: string;
  readonly type: number;
  /** The signature bytes (without the key ID) over the note text bytes. */
  sign(text: Uint8Array): Uint8Array;
}

const KEY_ID_RE = /^[0-9a-fA-F]{8}$/;

/** The recommended C2SP key ID: SHA-256(name || 0x0A || type || publicKey)[:4], as hex. */
export function noteKeyId(name: string, type: number, publicKey: Uint8Array): string {
  return toHex(sha256(concatBytes(utf8(name + '\n'), Uint8Array.of(type), publicKey)).subarray(0, 4));
}

function expectedKeyId(name: string, type: number, publicKey: Uint8Array): string | undefined {
  if (type === SIG_ED25519 || type === SIG_COSIGNATURE_V1 || type === SIG_MLDSA44) return noteKeyId(name, type, publicKey);
  if (type === SIG_ECDSA) return toHex(sha256(publicKey).subarray(0, 4));
  return undefined;
}

function bad(detail: string): Result<never> {
  return fail('malformed_vkey', detail);
}

/**
 * keyRule false: an Ed25519 key is checked for length only, its key rule (a scalar
 * multiplication, about 1 ms) left to the note verifier made from it (createNoteVerifier always
 * runs it), for readers of many keys checked before (a witness's 40,000 admitted logs).
 */
export function parseVerifierKey(vkey: string, keyRule = true): Result<VerifierKey> {
  if (typeof vkey !== 'string') return bad('a vkey is a string');
  const p1 = vkey.indexOf('+');
  const p2 = p1 < 0 ? -1 : vkey.indexOf('+', p1 + 1);
  if (p2 < 0) return bad('a vkey is <name>+<key ID>+<base64 key>');
  const name = vkey.slice(0, p1);
  const id = vkey.slice(p1 + 1, p2);
  if (!isValidKeyName(name)) return bad(`invalid key name ${JSON.stringify(name.slice(0, 80))}`);
  if (!KEY_ID_RE.test(id)) return bad(`key ID ${JSON.stringify(id.slice(0, 20))} is not 8 hex digits`);
  const material = fromBase64Std(vkey.slice(p2 + 1));
  if (!material.ok || material.value.length < 2) return bad('the key material is not standard base64 of a type byte and a key');
  const type = material.value[0];
  const publicKey = material.value.slice(1);
  const keyId = id.toLowerCase();
  let supported = false;
  if (type === SIG_ED25519 || type === SIG_COSIGNATURE_V1) {
    if (publicKey.length !== 32) return bad(`an Ed25519 key is 32 bytes, got ${publicKey.length}`);
    // The one Ed25519 key rule (docs/design.md §3): no small-order, mixed-order or non-canonical key.
    const w = keyRule ? checkEd25519PublicKey(publicKey) : undefined;
    if (w && !w.ok) return fail('weak_key', `vkey ${name}+${keyId}: ${w.detail}`);
    supported = true;
  } else if (type === SIG_MLDSA44) {
    if (publicKey.length !== MLDSA44_PUBLIC_KEY_BYTES)
      return bad(`an ML-DSA-44 key is ${MLDSA44_PUBLIC_KEY_BYTES} bytes, got ${publicKey.length}`);
    // The key name is the cosigner name of every signed message: longer than 255 bytes, nothing verifies.
    supported = subtreeNamesFit(name, 'x');
  } else if (type === SIG_ECDSA) {
    supported = p256PointFromSpki(publicKey) !== undefined;
  }
  const want = expectedKeyId(name, type, publicKey);
  if (want !== undefined && want !== keyId) return bad(`key ID ${keyId} does not match the key (expected ${want})`);
  return ok({ name, keyId, type, publicKey, supported });
}

export function formatVerifierKey(name: string, type: number, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw new TypeError(`invalid key name ${JSON.stringify(name)}`);
  const id = expectedKeyId(name, type, publicKey) ?? noteKeyId(name, type, publicKey);
  return `${name}+${id}+${toBase64Std(concatBytes(Uint8Array.of(type), publicKey))}`;
}

export function createNoteVerifier(key: string | VerifierKey, backend: CryptoBackend = defaultBackend()): Result<NoteVerifier> {
  // An object is re-read through its vkey spelling, so its key ID and support are checked too.
  const parsed = parseVerifierKey(
    typeof key === 'string' ? key : `${key.name}+${key.keyId}+${toBase64Std(concatBytes(Uint8Array.of(key.type), key.publicKey))}`,
  );
  if (!parsed.ok) return parsed;
  const { name, keyId, type, publicKey, supported } = parsed.value;
  if (!supported)
    return fail(
      'unsupported_alg',
      `signed-note signature type 0x${type.toString(16).padStart(2, '0')} of key ${name}+${keyId} cannot be verified here`,
    );
  let verify: (text: Uint8Array, sig: Uint8Array) => boolean;
  if (type === SIG_ED25519) {
    verify = (text, sig) => sig.length === 64 && verifyEd25519(backend, publicKey, text, sig);
  } else if (type === SIG_COSIGNATURE_V1) {
    verify = (text, sig) => {
      const c = parseCosignature(sig);
      if (!c.ok) return false;
      // cosignature/v1 signs checkpoints only (C2SP tlog-cosignature). The body is decoded only to
      // check that; the signed message is built from the received bytes.
      const body = decodeUtf8(text);
      if (!body.ok || !parseCheckpointBody(body.value).ok) return false;
      return verifyEd25519(backend, publicKey, cosignatureMessage(text, c.value.timestamp), c.value.signature);
    };
  } else if (type === SIG_MLDSA44) {
    verify = (text, sig) => {
      const c = parseMldsaCosignature(sig);
      if (!c.ok) return false;
      // The message is built from the body's origin, size and root; extension lines are not signed.
      const body = decodeUtf8(text);
      const cp = body.ok ? parseCheckpointBody(body.value) : undefined;
      if (!cp?.ok || !subtreeNamesFit(name, cp.value.origin)) return false;
      const msg = subtreeMessage({
        cosignerName: name,
        timestamp: c.value.timestamp,
        origin: cp.value.origin,
        start: 0,
        end: cp.value.size,
        hash: cp.value.rootHash,
      });
      return backend.mldsa44Verify(publicKey, msg, c.value.signature);
    };
  } else {
    const point = p256PointFromSpki(publicKey) as Uint8Array;
    verify = (text, sig) => {
      const raw = ecdsaDerToRaw(sig);
      return raw !== undefined && backend.p256Verify(point, text, raw);
    };
  }
  const safe = (text: Uint8Array, sig: Uint8Array): boolean => {
    try {
      return verify(text, sig);
    } catch {
      return false;
    }
  };
  return ok({ name, keyId, type, verify: safe });
}

/** Parse an skey (Ed25519 0x01, cosignature/v1 0x04 or ML-DSA-44 0x06, each a 32-byte seed) and check its key ID. */
export function parseSignerKey(
  skey: string,
  backend: CryptoBackend = defaultBackend(),
): Result<{ name: string; keyId: string; type: number; seed: Uint8Array; publicKey: Uint8Array }> {
  if (typeof skey !== 'string' || !skey.startsWith('PRIVATE+KEY+')) return bad('an skey starts with PRIVATE+KEY+');
  const rest = skey.slice('PRIVATE+KEY+'.length);
  const p1 = rest.indexOf('+');
  const p2 = p1 < 0 ? -1 : rest.indexOf('+', p1 + 1);
  if (p2 < 0) return bad('an skey is PRIVATE+KEY+<name>+<key ID>+<base64 key>');
  const name = rest.slice(0, p1);
  const id = rest.slice(p1 + 1, p2);
  if (!isValidKeyName(name) || !KEY_ID_RE.test(id)) return bad('invalid skey name or key ID');
  const material = fromBase64Std(rest.slice(p2 + 1));
  if (!material.ok || material.value.length !== 33) return bad('skey material is not base64 of a type byte and a 32-byte seed');
  const type = material.value[0];
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1 && type !== SIG_MLDSA44)
    return fail('unsupported_alg', `skey type 0x${type.toString(16)} cannot sign here`);
  const seed = material.value.slice(1);
  const publicKey = type === SIG_MLDSA44 ? backend.mldsa44PublicKey(seed) : backend.ed25519PublicKey(seed);
  if (noteKeyId(name, type, publicKey) !== id.toLowerCase()) return bad('skey key ID does not match its key');
  return ok({ name, keyId: id.toLowerCase(), type, seed, publicKey });
}

/**
 * A signer from an skey. A cosignature/v1 signer stamps POSIX seconds from `now` (milliseconds,
 * default Date.now) and signs the cosignature message; callers give it checkpoint bodies only.
 */
export function createNoteSigner(
  skey: string,
  opts: { backend?: CryptoBackend; now?: () => number } = {},
): Result<NoteSigner & { vkey: string }> {
  const backend = opts.backend ?? defaultBackend();
  const k = parseSignerKey(skey, backend);
  if (!k.ok) return k;
  const { name, keyId, type, seed, publicKey } = k.value;
  const vkey = formatVerifierKey(name, type, publicKey);
  if (type === SIG_ED25519) return ok({ name, keyId, type, vkey, sign: (text) => backend.ed25519Sign(seed, text) });
  const now = opts.now ?? Date.now;
  if (type === SIG_MLDSA44)
    return ok({
      name,
      keyId,
      type,
      vkey,
      sign(text) {
        const body = decodeUtf8(text);
        const cp = body.ok ? parseCheckpointBody(body.value) : undefined;
        if (!cp?.ok) throw new TypeError('an ML-DSA-44 cosigner signs checkpoint bodies only');
        const timestamp = Math.floor(now() / 1000);
        const msg = subtreeMessage({
          cosignerName: name,
          timestamp,
          origin: cp.value.origin,
          start: 0,
          end: cp.value.size,
          hash: cp.value.rootHash,
        });
        return encodeMldsaCosignature({ timestamp, signature: backend.mldsa44Sign(seed, msg) });
      },
    });
  return ok({
    name,
    keyId,
    type,
    vkey,
    sign(text) {
      const timestamp = Math.floor(now() / 1000);
      return encodeCosignature({ timestamp, signature: backend.ed25519Sign(seed, cosignatureMessage(text, timestamp)) });
    },
  });
}

/** An skey string for a 32-byte seed (Ed25519 0x01 or 0x04, ML-DSA-44 0x06; tests and `init`). */
export function formatSignerKey(name: string, type: number, seed: Uint8Array, backend: CryptoBackend = defaultBackend()): string {
  if (!isValidKeyName(name) || seed.length !== 32 || (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1 && type !== SIG_MLDSA44))
    throw new TypeError('an skey needs a valid name, type 0x01, 0x04 or 0x06, and a 32-byte seed');
  const pub = type === SIG_MLDSA44 ? backend.mldsa44PublicKey(seed) : backend.ed25519PublicKey(seed);
  return `PRIVATE+KEY+${name}+${noteKeyId(name, type, pub)}+${toBase64Std(concatBytes(Uint8Array.of(type), seed))}`;
}
