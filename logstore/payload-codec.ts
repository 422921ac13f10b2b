// logstore/payload-codec.ts: the stored form of a payload (a CloudEvent in the JSON event format,
// DESIGN §4). An event carrying binary data (`data_base64`, canonical standard base64) keeps the
// data as raw bytes after its JSON text, with "" in the data_base64 member as the placeholder, so
// the stored bytes are 3/4 of the base64 and the member order is kept; every other event is stored
// as its JSON text. Leaves out: validating the event (the sequencer read it strictly) and its hash.
// Invariant: decodePayload(encodePayload(ce)) deep-equals ce, member order included.

import type { CloudEvent } from '../verifier/cloudevent/read.ts';

const RAW_DATA = 0x01;
const JSON_OPEN = 0x7b; // '{'

/** Throws TypeError for a value with no JSON form (the append plan maps it to invalid_event). */
export function encodePayload(ce: CloudEvent): Buffer {
  const b64 = ce?.data_base64;
  if (typeof b64 === 'string' && b64.length >= 64) {
    const raw = Buffer.from(b64, 'base64');
    if (raw.toString('base64') === b64) {
      const text = JSON.stringify({ ...ce, data_base64: '' });
      const n = Buffer.byteLength(text, 'utf8');
      const b = Buffer.allocUnsafe(5 + n + raw.length);
      b[0] = RAW_DATA;
      b.writeUInt32BE(n, 1);
      b.write(text, 5, 'utf8');
      raw.copy(b, 5 + n);
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
