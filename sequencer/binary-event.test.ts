// Binary content mode to the JSON event format: attributes from ce-* headers (via the cloudevents
// SDK), cookwalaseq restored to an Integer, time verbatim and never invented, JSON bodies parsed
// (any json/+json type, numbers stay numbers), other bodies as data_base64, empty body = no data.
import { expect, it } from 'vitest';
import { isBinaryMode, readBinaryEvent } from './binary-event.ts';

const h = (extra: Record<string, string> = {}) => ({ 'ce-specversion': '1.0', 'ce-id': 'e1', 'ce-source': 'cookwala:device/d', 'ce-type': 't.x', ...extra });

it('maps headers to attributes and restores cookwalaseq', () => {
  const r = readBinaryEvent(h({ 'ce-subject': 'exec-1', 'ce-cookwalaseq': '12', 'ce-cookwalalatency': 'local_safety', 'content-type': 'application/json' }), Buffer.from('{"a":[1,2]}'));
  expect(r).toEqual({ ok: true, value: { specversion: '1.0', id: 'e1', source: 'cookwala:device/d', type: 't.x', subject: 'exec-1', cookwalaseq: 12, cookwalalatency: 'local_safety', datacontenttype: 'application/json', data: { a: [1, 2] } } });
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
