// Binary content mode to the JSON event format: attributes from ce-* headers (via the cloudevents
// SDK), cookwalaseq restored to an Integer, time verbatim and never invented, JSON bodies parsed
// (any json/+json type, numbers stay numbers), other bodies as data_base64, empty body = no data.
import { expect, it } from 'vitest';
import { isBinaryMode, readBinaryEvent } from './binary-event.ts';

const h = (extra: Record<string, string> = {}) => ({
  'ce-specversion': '1.0',
  'ce-id': 'e1',
  'ce-source': 'cookwala:device/d',
  'ce-type': 't.x',
  ...extra,
});

it('maps headers to attributes and restores cookwalaseq', () => {
  const r = readBinaryEvent(
    h({ 'ce-subject': 'exec-1', 'ce-cookwalaseq': '12', 'ce-cookwalalatency': 'local_safety', 'content-type': 'application/json' }),
    Buffer.from('{"a":[1,2]}'),
  );
  expect(r).toEqual({
    ok: true,
    value: {
      specversion: '1.0',
      id: 'e1',
      source: 'cookwala:device/d',
      type: 't.x',
      subject: 'exec-1',
      cookwalaseq: 12,
      cookwalalatency: 'local_safety',
      datacontenttype: 'application/json',
      data: { a: [1, 2] },
    },
  });
});

it('keeps time verbatim and never invents one', () => {
  const withTime = readBinaryEvent(h({ 'ce-time': '2026-11-30T10:00:00Z' }), undefined);
  expect(withTime.ok && (withTime.value as Record<string, unknown>).time).toBe('2026-11-30T10:00:00Z');
  const without = readBinaryEvent(h(), undefined);
  expect(without.ok && 'time' in (without.value as object)).toBe(false);
  expect(without.ok && 'data' in (without.value as object)).toBe(false);
});

it('parses any JSON media type, numbers stay numbers; other types become data_base64', () => {
  const n = readBinaryEvent(h({ 'content-type': 'application/json; charset=utf-8' }), Buffer.from('42'));
  expect(n.ok && (n.value as Record<string, unknown>).data).toBe(42);
  const v = readBinaryEvent(h({ 'content-type': 'application/vnd.cookwala+json' }), Buffer.from('"s"'));
  expect(v.ok && (v.value as Record<string, unknown>).data).toBe('s');
  const b = readBinaryEvent(h({ 'content-type': 'application/octet-stream' }), Buffer.from([0, 255, 1]));
  expect(b.ok && b.value).toMatchObject({ data_base64: 'AP8B', datacontenttype: 'application/octet-stream' });
  const t = readBinaryEvent(h({ 'content-type': 'text/plain' }), Buffer.from('hi'));
  expect(t.ok && (t.value as Record<string, unknown>).data_base64).toBe('aGk=');
});

it('refuses what is not a binary-mode event', () => {
  expect(readBinaryEvent({ 'ce-id': 'x' }, undefined)).toMatchObject({ ok: false, code: 'invalid_event' });
  expect(readBinaryEvent({ 'ce-specversion': '1.0' }, undefined)).toMatchObject({ ok: false, code: 'invalid_event' });
  expect(readBinaryEvent(h({ 'ce-datacontenttype': 'application/json' }), undefined)).toMatchObject({ ok: false, code: 'invalid_event' });
  expect(readBinaryEvent({ ...h(), 'ce-subject': ['a', 'b'] } as never, undefined)).toMatchObject({ ok: false, code: 'invalid_event' });
  expect(readBinaryEvent(h({ 'content-type': 'application/json' }), Buffer.from('{bad'))).toMatchObject({ ok: false, code: 'bad_json' });
  expect(isBinaryMode({ 'content-type': 'application/json' })).toBe(false);
  expect(isBinaryMode({ 'ce-id': 'x' })).toBe(true);
});

it('refuses a ce-* header that names no attribute, instead of letting the SDK drop it', () => {
  // Regression: HTTP.toEvent assigned `__proto__` through the prototype setter and the header
  // vanished; ce-data and ce-data_base64 were dropped too. The event would hash without them.
  for (const name of ['ce-__proto__', 'ce-data', 'ce-data_base64', 'ce-', 'ce-a-b', 'ce-abcdefghijklmnopqrstu']) {
    expect(readBinaryEvent(h({ [name]: 'x' }), undefined), name).toMatchObject({ ok: false, code: 'invalid_event' });
  }
  // Names that only look like Object.prototype's are ordinary attributes and stay.
  const r = readBinaryEvent(h({ 'ce-constructor': 'c', 'ce-tostring': 't', 'ce-hasownproperty': 'o', 'ce-valueof': 'v' }), undefined);
  expect(r).toMatchObject({ ok: true, value: { constructor: 'c', tostring: 't', hasownproperty: 'o', valueof: 'v' } });
  expect(r.ok && Object.keys(r.value as object)).toEqual(expect.arrayContaining(['constructor', 'tostring', 'hasownproperty', 'valueof']));
});

it('reads JSON data as I-JSON: a duplicate member or nesting past 63 levels is refused', () => {
  const json = h({ 'content-type': 'application/json' });
  expect(readBinaryEvent(json, Buffer.from('{"t":1,"t":2}'))).toMatchObject({ ok: false, code: 'duplicate_member', path: '/t' });
  expect(readBinaryEvent(json, Buffer.from('{"a":{"__proto__":1,"__proto__":2}}'))).toMatchObject({
    ok: false,
    code: 'duplicate_member',
    path: '/a/__proto__',
  });
  const nest = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));
  expect(readBinaryEvent(json, nest(63)).ok).toBe(true);
  expect(readBinaryEvent(json, nest(64))).toMatchObject({ ok: false, code: 'too_deep' });
  const own = readBinaryEvent(json, Buffer.from('{"__proto__":{"x":1},"a":1}'));
  expect(own.ok && Object.keys((own.value as { data: object }).data)).toEqual(['__proto__', 'a']);
});
