// verifier/signing/index.ts: the public surface of verifier/signing/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { VENDOR_MEMBER_PATTERN, computeHash, documentHash, isVendorMember, jsonHash } from './document-hash.ts';
export type { JsonObject } from './document-hash.ts';
export { KEY_ROLES, checkKeyValidAt, createKeyCache, publicKeyBytes, sameKey, validKeyRecordShape } from './keys.ts';
export type { Alg, KeyRecord, KeyRole } from './keys.ts';
export {
  createSigner,
  generateSecretKey,
  keyRecordOf,
  parseSignature,
  signDocument,
  signHash,
  signingHeader,
  signingHeaderBytes,
  signingHeaderText,
  verifyDocument,
  verifyHashSignature,
  verifyRaw,
  verifyWithKeys,
} from './signature.ts';
export type { SecretKey, Signature, Signer } from './signature.ts';
export { findWitness, sameWitness, witnessDisplayName, witnessFingerprint, witnessKeyAgreement } from './witness-identity.ts';
