// device/event-forms.ts: what a device does to a CloudEvent before it leaves (docs/design.md §4,
// §5; docs/devices.md): put selected values behind Disclosure digests (Core §8: household, health
// and religious data travel as selective disclosures; verifier/documents/disclosure.ts), sign it
// (verifier/cloudevent/read.ts signEvent, the one encoder), and render a signed event in HTTP
// binary content mode. Binary mode is refused, with the rule named, for any event whose binary
// rendering the sequencer would read back as another event (another hash, so a 403): the
// signature covers the JSON-format event, and in binary mode the sequencer rebuilds it from the
// ce-* headers (every extension but cookwalaseq read as a string), Content-Type (datacontenttype)
// and the body (JSON content types parsed into `data`, anything else kept as `data_base64`).
// Pure: no I/O.

import { fail, ok, type Result } from '../verifier/index.ts';
import { createDisclosure, type Revealed } from '../verifier/documents/index.ts';
import { atPointer, pointerTokens, type DisclosureReveal } from '../verifier/documents/index.ts';
import { readCloudEvent, type CloudEvent } from '../verifier/cloudevent/index.ts';
import { fromBase64, isJsonMediaType } from '../verifier/cloudevent/index.ts';
import { utf8 } from '../verifier/encoding/index.ts';

export interface BinaryForm {
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A header value that travels unchanged: visible ASCII and inner spaces (RFC 9110 §5.5), no edge whitespace. */
const HEADER_VALUE_RE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** The binary-mode request of a signed event, or the rule that stops it. */
export function binaryForm(ce: CloudEvent): Result<BinaryForm> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ce)) {
    if (k === 'data' || k === 'data_base64' || k === 'datacontenttype' || v === undefined || v === null) continue;
    if (typeof v !== 'string' && !(k === 'cookwalaseq' && typeof v === 'number'))
      return fail(
        'invalid_event',
        `binary mode: attribute ${k} is ${typeof v}; in ce-* headers every extension but cookwalaseq is read back as a string, so send it as a string or use structured mode`,
      );
    const text = String(v);
    if (!HEADER_VALUE_RE.test(text))
      return fail('invalid_event', `binary mode: attribute ${k} is not printable ASCII without edge spaces; use structured mode`);
    headers[`ce-${k}`] = text;
  }
  const ct = ce.datacontenttype;
  const hasData = Object.prototype.hasOwnProperty.call(ce, 'data');
  if (typeof ct === 'string') headers['content-type'] = ct;
  if (hasData) {
    if (typeof ct !== 'string' || !isJsonMediaType(ct))
      return fail(
        'invalid_event',
        'binary mode: `data` needs a JSON datacontenttype (application/json or …+json); put other data in data_base64 and sign that',
      );
    return ok({ headers, body: utf8(JSON.stringify(ce.data)) });
  }
  if (typeof ce.data_base64 === 'string') {
    const bytes = fromBase64(ce.data_base64);
    if (!bytes || bytes.length === 0) return fail('invalid_event', 'binary mode: data_base64 is non-empty padded base64');
    if (typeof ct !== 'string' || isJsonMediaType(ct))
      return fail('invalid_event', 'binary mode: data_base64 needs a non-JSON datacontenttype (a JSON body would be read back as `data`)');
    return ok({ headers, body: bytes });
  }
  return ok({ headers, body: new Uint8Array(0) });
}

/**
 * Replace the value at each JSON Pointer by {"disclosure": sha256(JCS([salt, value]))}; returns
 * the new event and, per pointer, the salt and value the device keeps. `salts` fixes the salts
 * (worked examples and tests).
 */
export function discloseFields(
  ce: CloudEvent,
  pointers: readonly string[],
  salts?: readonly Uint8Array[],
): Result<{ event: CloudEvent; kept: Array<{ pointer: string; revealed: Revealed }> }> {
  const event = structuredClone(ce) as CloudEvent;
  const kept: Array<{ pointer: string; revealed: Revealed }> = [];
  for (const [i, p] of pointers.entries()) {
    const tokens = pointerTokens(p);
    if (!tokens || tokens.length < 2 || tokens[0] !== 'data')
      return fail('invalid_document', `--disclose ${p}: a JSON Pointer inside data, such as /data/household`);
    const at = atPointer(event, p);
    if (!at.found) return fail('not_found', `--disclose ${p}: the event has nothing there`);
    const parent = atPointer(event, '/' + p.slice(1).split('/').slice(0, -1).join('/'));
    if (!parent.found || parent.value === null || typeof parent.value !== 'object')
      return fail('invalid_document', `--disclose ${p}: not inside an object or array`);
    const d = createDisclosure(at.value, undefined, salts?.[i]);
    const last = tokens[tokens.length - 1];
    (parent.value as Record<string, unknown>)[Array.isArray(parent.value) ? Number(last) : last] = d.digest;
    kept.push({ pointer: p, revealed: d.revealed });
  }
  const r = readCloudEvent(event);
  return r.ok ? ok({ event, kept }) : r;
}

/** The reveal documents a device stores beside a signed event, one per disclosed field. */
export function revealsOf(signed: CloudEvent, kept: Array<{ pointer: string; revealed: Revealed }>): DisclosureReveal[] {
  return kept.map((k) => ({ kind: 'DisclosureReveal', event: signed, pointer: k.pointer, revealed: k.revealed }));
}
