// verifier/encoding/index.ts: the public surface of verifier/encoding/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { canonicalize } from './jcs.ts';
export { MAX_JSON_DEPTH, MAX_JSON_LENGTH, parseJson, parseJsonArrayElements } from './strict-json.ts';
export {
  B64STD_VALUE,
  bytesEqual,
  concatBytes,
  decodeUtf8,
  formatHash,
  formatTime,
  fromBase64url,
  fromHex,
  fromUtf8,
  isHashString,
  isTime,
  parseHash,
  timeMs,
  toBase64url,
  toHex,
  utf8,
  writeBase64urlBytes,
  writeHashBytes,
} from './wire.ts';
