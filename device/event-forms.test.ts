// The binary rendering of a signed event: what travels as headers and body, and each binary-mode
// rule refused before anything is sent; disclosures put digests in place and keep [salt, value].
import { describe, expect, it } from 'vitest';
import { binaryForm, discloseFields, revealsOf } from './event-forms.ts';
import { verifyDisclosure } from '../verifier/documents/disclosure.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';

const base: CloudEvent = {
  specversion: '1.0',
  id: 'e-1',
  source: 'urn:cookwala:device:t',
  type: 'cookwala.execution.running',
  cookwalaseq: 4,
};

describe('binaryForm', () => {
  it('puts attributes in ce-* headers, datacontenttype in Content-Type and the data in the body', () => {
    const j = binaryForm({ ...base, datacontenttype: 'application/json', data: { a: 1 }, cookwalasig: 'c2ln' });
    expect(j).toMatchObject({
      ok: true,
      value: { headers: { 'ce-id': 'e-1', 'ce-cookwalaseq': '4', 'ce-cookwalasig': 'c2ln', 'content-type': 'application/json' } },
    });
    if (j.ok) expect(Buffer.from(j.value.body).toString()).toBe('{"a":1}');
    const b = binaryForm({ ...base, datacontenttype: 'image/png', data_base64: 'AAEC' });
    if (!b.ok) throw new Error(b.detail);
    expect([...b.value.body]).toEqual([0, 1, 2]);
    expect(b.value.headers['ce-data_base64']).toBeUndefined();
    const none = binaryForm(base);
    expect(none.ok && none.value.body.length).toBe(0);
  });

  it('refuses what the sequencer would read back as another event', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ flag: true }, /every extension but cookwalaseq is read back as a string/],
      [{ count: 3 }, /every extension but cookwalaseq/],
      [{ subject: ' padded' }, /printable ASCII without edge spaces/],
      [{ subject: 'é' }, /printable ASCII/],
      [{ datacontenttype: 'text/plain', data: 'hello' }, /put other data in data_base64/],
      [{ data: { a: 1 } }, /needs a JSON datacontenttype/],
      [{ datacontenttype: 'application/json', data_base64: 'AAEC' }, /non-JSON datacontenttype/],
      [{ datacontenttype: 'text/plain', data_base64: '' }, /non-empty/],
    ];
    for (const [over, why] of cases) {
      const r = binaryForm({ ...base, ...over } as CloudEvent);
      expect(r.ok, JSON.stringify(over)).toBe(false);
      if (!r.ok) expect(r.detail).toMatch(why);
    }
  });
});

describe('discloseFields', () => {
  it('replaces each value by its digest and keeps what opens it', () => {
    const ce = { ...base, datacontenttype: 'application/json', data: { household: { people: 3 }, health: ['diabetic'], step: 1 } };
    const r = discloseFields(ce, ['/data/household', '/data/health/0']);
    if (!r.ok) throw new Error(r.detail);
    const data = r.value.event.data as Record<string, unknown>;
    expect(data.step).toBe(1);
    expect(data.household).toEqual({ disclosure: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect((data.health as unknown[])[0]).toEqual({ disclosure: expect.any(String) });
    expect((ce.data as Record<string, unknown>).household).toEqual({ people: 3 }); // the input is not changed
    const [h] = r.value.kept;
    expect(verifyDisclosure(data.household as { disclosure: string }, h.revealed)).toMatchObject({ ok: true, value: { people: 3 } });
    expect(revealsOf(r.value.event, r.value.kept).map((x) => x.pointer)).toEqual(['/data/household', '/data/health/0']);
    expect(discloseFields(ce, ['/id'])).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(discloseFields(ce, ['/data/nothing'])).toMatchObject({ ok: false, code: 'not_found' });
  });
});
