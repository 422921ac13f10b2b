// verifier/crypto/backend.ts: the primitive operations every part needs (SHA-256, Ed25519 per
// RFC 8032, ECDSA P-256 with SHA-256 in raw r||s form, ML-DSA-44 per FIPS 204 in its pure form with
// an empty context and keys as 32-byte KeyGen_internal seeds), behind one interface with two
// implementations: node:crypto (node.ts, the fast path) and @noble (noble.ts, the
// portable path that runs in a browser). Both are strict in the same way: Ed25519 first applies
// the one rule of ed25519-rules.ts (S < L, canonical R, and a canonical, prime-order, not
// small-order key; RFC 8032 §5.1.7, not ZIP-215), then the cofactorless equation with an encoding
// comparison of R; ES256 accepts high S and refuses anything that is not exactly 64 bytes. Verify
// functions return false for any malformed input and never throw; backend.test.ts proves
// the two agree, also differentially on adversarial Ed25519 inputs, and mldsa44.test.ts on valid,
// mutated and malformed ML-DSA-44 keys and signatures (and WebCrypto's verdict where it has ML-DSA).
// ML-DSA-44 inputs are length-checked (1312-byte key, 2420-byte signature, 32-byte seed) before
// any backend sees them (mldsa44.ts).

export interface CryptoBackend {
  readonly name: 'node' | 'noble';
  sha256(data: Uint8Array): Uint8Array;
  /** Lowercase hex of SHA-256(UTF-8(text)): the document-hash hot path, with no intermediate buffers. */
  sha256Hex(text: string): string;
  /** SHA-256 of the UTF-8 of text, as bytes (no UTF-8 copy on the node:crypto path). */
  sha256Text(text: string): Uint8Array;
  ed25519PublicKey(seed: Uint8Array): Uint8Array;
  ed25519Sign(seed: Uint8Array, msg: Uint8Array): Uint8Array;
  ed25519Verify(publicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean;
  /** Uncompressed SEC1 point (65 bytes, 0x04||x||y). */
  p256PublicKey(secret: Uint8Array): Uint8Array;
  /** ECDSA over SHA-256(msg); raw r||s (64 bytes). */
  p256Sign(secret: Uint8Array, msg: Uint8Array): Uint8Array;
  p256Verify(publicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean;
  /** The 1312-byte ML-DSA-44 public key of a 32-byte seed (FIPS 204 ML-DSA.KeyGen_internal). */
  mldsa44PublicKey(seed: Uint8Array): Uint8Array;
  /** A 2420-byte pure ML-DSA-44 signature (empty context; hedged, so not deterministic). */
  mldsa44Sign(seed: Uint8Array, msg: Uint8Array): Uint8Array;
  mldsa44Verify(publicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean;
  /** Which library computes ML-DSA-44 here ('noble' where node:crypto has none). */
  readonly mldsa44Impl: 'node' | 'noble';
  randomBytes(n: number): Uint8Array;
}
