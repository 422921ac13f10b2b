// verifier/cloudevent/index.ts: the public surface of verifier/cloudevent/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { explainEvent } from './explain.ts';
export { fromBase64, isJsonMediaType, isUriReference, toBase64 } from './format.ts';
export {
  ATTRIBUTE_NAME_RE,
  EVENT_KIND,
  decodeCookwalasig,
  encodeCookwalasig,
  eventHash,
  normalizeBinaryExtensions,
  readCloudEvent,
  signEvent,
  verifyEventSignature,
} from './read.ts';
export type { CloudEvent } from './read.ts';
