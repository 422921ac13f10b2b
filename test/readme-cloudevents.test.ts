// docs/design.md §3 says what is true for CloudEvents: documents refuse unknown members
// and ignore x-<vendor>- ones, but a CloudEvent's other attributes are extensions (kept, hashed),
// and a name outside 1-20 lower-case letters or digits, `x-acme-foo` among them, is invalid_event.
// Each claim the design makes is checked against the reader.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCloudEvent } from '../verifier/cloudevent/read.ts';
import { readDocument } from '../verifier/documents/read.ts';

const design = readFileSync(new URL('../docs/design.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const base = { specversion: '1.0', id: 'e1', source: 'urn:cookwala:device:d', type: 'cookwala.x' };

describe('docs/design.md on unknown fields', () => {
  it('no longer says x- fields are ignored for CloudEvents', () => {
    expect(design).toContain('`x-acme-foo` (a hyphen) or `AcmeFoo` is refused `invalid_event`, never ignored');
    expect(design).toContain('any other attribute is an extension, kept and hashed');
  });
  it('CloudEvents: a lower-case extension is kept; x-acme-foo and AcmeFoo are invalid_event; an object value too', () => {
    const ok = readCloudEvent({ ...base, acmefoo: 'v' });
    expect(ok.ok && (ok.value as Record<string, unknown>).acmefoo).toBe('v');
    for (const name of ['x-acme-foo', 'AcmeFoo', 'a'.repeat(21)])
      expect(readCloudEvent({ ...base, [name]: 'v' }), name).toMatchObject({ ok: false, code: 'invalid_event' });
    expect(readCloudEvent({ ...base, acmefoo: { a: 1 } })).toMatchObject({ ok: false, code: 'invalid_event' });
  });
  it('documents: an unknown member is unknown_field, an x-<vendor>- member is ignored', () => {
    const key = {
      kind: 'KeyRecord',
      kid: 'dev-1',
      alg: 'EdDSA',
      publicKey: 'O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik',
      owner: 'urn:cookwala:device:d',
      role: 'device',
      validFrom: '2026-01-01T00:00:00.000Z',
    };
    expect(readDocument('KeyRecord', { ...key, colour: 'red' })).toMatchObject({ ok: false, code: 'unknown_field' });
    expect(readDocument('KeyRecord', { ...key, 'x-acme-colour': 'red' }).ok).toBe(true);
  });
});
