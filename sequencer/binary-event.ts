// sequencer/binary-event.ts: a CloudEvent received in HTTP binary content mode (CloudEvents HTTP
// protocol binding §3.1: attributes in ce-* headers, datacontenttype in Content-Type, the data in
// the body) turned into the JSON event format that the event hash is defined over (docs/design.md §4).
// The attributes come from the cloudevents SDK (HTTP.toEvent), then verifier/cloudevent/read.ts
// normalizeBinaryExtensions restores types (cookwalaseq back to an Integer, `time` taken verbatim
// from ce-time and never the one the SDK invents). The body is NOT given to the SDK: its parsers
// rewrite data (a JSON number body becomes a string, `application/json; charset=utf-8` is not
// parsed as JSON), which would change the hash. Instead, per docs/design.md §4: JSON media types
// (json-format §3.1: subtype json or +json) put the parsed body in `data`; any other type puts the
// bytes in `data_base64`; an empty body means no data. JSON data is read as I-JSON
// (duplicate_member, too_deep: verifier/encoding/strict-json.ts), and every ce-* header must name an
// attribute the JSON format can carry, so no header is silently dropped on the way to the hash.
// Left out: percent-decoding of header values (the SDK neither encodes nor decodes them, so
// devices using it interoperate).

import { HTTP } from 'cloudevents';
import { fail, ok, type Result } from '../verifier/index.ts';
import { ATTRIBUTE_NAME_RE, normalizeBinaryExtensions, type CloudEvent } from '../verifier/cloudevent/index.ts';
import { isJsonMediaType, toBase64 } from '../verifier/cloudevent/index.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/index.ts';
import { fromUtf8 } from '../verifier/encoding/index.ts';

export type Headers = Record<string, string | string[] | undefined>;

/** True when the request carries an event in binary mode (a ce-specversion or ce-id header). */
export function isBinaryMode(headers: Headers): boolean {
  return headers['ce-specversion'] !== undefined || headers['ce-id'] !== undefined;
}

export function readBinaryEvent(headers: Headers, body: Uint8Array | undefined): Result<unknown> {
  for (const [k, v] of Object.entries(headers)) {
    if (!k.startsWith('ce-')) continue;
    if (typeof v !== 'string') return fail('invalid_event', `header ${k} appears more than once`);
    // The SDK would drop `ce-__proto__` (its setter) or `ce-data` silently; the event would then
    // be hashed without an attribute the sender sent. Names are the JSON format's (1-20 a-z0-9).
    if (!ATTRIBUTE_NAME_RE.test(k.slice(3)) || k === 'ce-data')
      return fail(
        'invalid_event',
        `header ${k.slice(0, 40)} does not name a CloudEvents attribute (1 to 20 lower-case letters or digits, not data)`,
      );
  }
  if (headers['ce-specversion'] === undefined) return fail('invalid_event', 'specversion is required (ce-specversion header)');
  if (headers['ce-id'] === undefined) return fail('invalid_event', 'id is required (ce-id header)');
  if (headers['ce-datacontenttype'] !== undefined)
    return fail('invalid_event', 'in binary mode datacontenttype travels as Content-Type, not ce-datacontenttype');
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.startsWith('ce-') || k === 'content-type') attrs[k] = v as string;
  let sdk: object;
  try {
    sdk = HTTP.toEvent({ headers: attrs, body: undefined }) as object;
  } catch (e) {
    return fail('invalid_event', `binary mode: ${(e as Error).message.split('\n')[0]}`);
  }
  const ce: Record<string, unknown> = normalizeBinaryExtensions(sdk, { headers: attrs });
  delete ce.data;
  delete ce.data_base64;
  if (body && body.length > 0) {
    const ct = typeof ce.datacontenttype === 'string' ? ce.datacontenttype : '';
    if (ct !== '' && isJsonMediaType(ct)) {
      let text: string;
      try {
        text = fromUtf8(body);
      } catch {
        return fail('bad_json', 'the JSON body is not UTF-8');
      }
      const j = parseJson(text, { maxDepth: MAX_JSON_DEPTH - 1 }); // data sits one level inside the event
      if (!j.ok) return j;
      ce.data = j.value;
    } else ce.data_base64 = toBase64(body);
  }
  return ok(ce as CloudEvent);
}
