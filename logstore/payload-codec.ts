// logstore/payload-codec.ts: the stored form of a payload (a CloudEvent in the JSON event format,
// docs/design.md §4). An event carrying binary data (`data_base64`, canonical standard base64) keeps the
// data as raw bytes after its JSON text, with "" in the data_base64 member as the placeholder, so
// the stored bytes are 3/4 of the base64 and the member order is kept; every other event is stored
// as its JSON text (the text the sequencer received, when it passes it: append-plan.ts payloadOf).
// Leaves out: validating the event (the sequencer read it strictly) and its hash. Invariant: decodePayload(encodePayload(ce)) deep-equals ce, member order included.

import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { allocValue } from './slab.ts';

const RAW_DATA = 0x01;
const JSON_OPEN = 0x7b; // '{'

/** Throws TypeError for a value with no JSON form (the append plan maps it to invalid_event). */
export function encodePayload(ce: CloudEvent): Buffer {
  const b64 = ce?.data_base64;
  if (typeof b64 === 'string' && b64.length >= 64 && b64.length % 4 === 0) {
    // The raw bytes go straight into the stored form; the round trip below proves the text was
    // the canonical base64 of exactly them (Node's decoder skips what is not base64).
    const rawLen = (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
    const text = JSON.stringify({ ...ce, data_base64: '' });
    const n = Buffer.byteLength(text, 'utf8');
    const b = allocValue(5 + n + rawLen);
    if (b.write(b64, 5 + n, rawLen, 'base64') === rawLen && b.toString('base64', 5 + n) === b64) {
      b[0] = RAW_DATA;
      b.writeUInt32BE(n, 1);
      b.write(text, 5, 'utf8');
      return b;
    }
  }
  const text = JSON.stringify(ce);
  if (typeof text !== 'string') throw new TypeError('payload has no JSON form');
  return Buffer.from(text, 'utf8');
}

export function decodePayload(v: Uint8Array): CloudEvent {
  const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  // JSON.parse, not verifier/encoding/strict-json.ts: these are bytes our own encoder wrote (JSON.stringify
  // of a value read as I-JSON at ingest, so no name repeats), not untrusted text.
  if (b[0] === JSON_OPEN) return JSON.parse(b.toString('utf8')) as CloudEvent;
  if (b[0] !== RAW_DATA) throw new Error(`logstore: payload with an unknown encoding ${b[0]}`);
  const n = b.readUInt32BE(1);
  const ce = JSON.parse(b.toString('utf8', 5, 5 + n)) as CloudEvent;
  ce.data_base64 = b.toString('base64', 5 + n);
  return ce;
}
