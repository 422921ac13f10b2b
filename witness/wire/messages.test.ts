// Witness protocol messages (messages.ts): requests and replies read and written, malformed ones
// refused with a named code, and frames read as I-JSON (duplicate_member with its path, members
// named after Object.prototype unknown, __proto__ never a prototype, too_deep).
import { describe, expect, it } from 'vitest';
import { encodeMessage, parseReply, parseRequest, replyOf } from './messages.ts';
import { fail } from '../../verifier/errors.ts';
import { createFakeLog } from '../../testkit/witness.ts';

const code = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('witness messages', () => {
  it('reads a well-formed request, with and without a descriptor', async () => {
    const log = createFakeLog('example.org/m');
    log.append(3);
    const req = await log.request(0);
    const r = parseRequest(encodeMessage(req));
    expect(r).toMatchObject({ ok: true, value: { oldSeq: 0, checkpoint: { seq: 3 }, descriptor: { kind: 'Log' } } });
    log.append(3);
    const r2 = parseRequest(encodeMessage(await log.request(3)));
    expect(r2.ok && r2.value.descriptor).toBeUndefined();
  });

  it('refuses malformed requests with a named code', async () => {
    const log = createFakeLog('example.org/m');
    log.append(2);
    const good = JSON.parse(JSON.stringify(await log.request(0)));
    const enc = (x: unknown) => encodeMessage(x);
    expect(code(parseRequest(new TextEncoder().encode('{"type":')))).toBe('bad_json');
    expect(code(parseRequest(Uint8Array.from([0xff, 0xfe, 0x7b])))).toBe('bad_json');
    expect(code(parseRequest(new Uint8Array(0)))).toBe('bad_json');
    expect(code(parseRequest(enc([1, 2])))).toBe('invalid_document');
    expect(code(parseRequest(enc({ oldSeq: 0 })))).toBe('invalid_document');
    expect(code(parseRequest(enc({ ...good, type: 'get-tree' })))).toBe('unknown_message_type');
    expect(code(parseRequest(enc({ ...good, extra: 1 })))).toBe('unknown_field');
    expect(code(parseRequest(enc({ ...good, 'x-acme-note': 'fine' })))).toBe('ok');
    expect(code(parseRequest(enc({ ...good, 'x-': 'no vendor' })))).toBe('unknown_field');
    expect(code(parseRequest(enc({ ...good, oldSeq: -1 })))).toBe('invalid_document');
    expect(code(parseRequest(enc({ ...good, oldSeq: 1.5 })))).toBe('invalid_document');
    expect(code(parseRequest(enc({ ...good, consistency: 'x' })))).toBe('invalid_document');
    expect(code(parseRequest(enc({ ...good, headProof: ['sha256:00'] })))).toBe('invalid_hash');
    expect(code(parseRequest(enc({ ...good, headProof: new Array(66).fill(good.checkpoint.root) })))).toBe('invalid_document');
    expect(code(parseRequest(enc({ ...good, checkpoint: { ...good.checkpoint, extra: true } })))).toBe('unknown_field');
    expect(code(parseRequest(enc({ ...good, checkpoint: { ...good.checkpoint, seq: -3 } })))).not.toBe('ok');
    expect(code(parseRequest(enc({ ...good, descriptor: { ...good.descriptor, coreVersion: '0.3.0' } })))).toBe('unsupported_version');
  });

  it('replies carry code, detail, knownSeq and forkProof; parseReply reads them back', () => {
    const r = replyOf(fail('conflict', 'moved', { knownSeq: 9 }));
    expect(r).toEqual({ ok: false, code: 'conflict', detail: 'moved', knownSeq: 9 });
    expect(parseReply(encodeMessage(r))).toEqual({ ok: true, value: r });
    expect(code(parseReply(encodeMessage({ ok: false, code: 'no_such_code' })))).toBe('invalid_document');
    expect(code(parseReply(encodeMessage({ ok: true, cosignature: { alg: 'EdDSA' } })))).toBe('malformed_signature');
    expect(code(parseReply(new TextEncoder().encode('nope')))).toBe('bad_json');
  });
});

describe('witness frames are read as I-JSON', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  /** The request text with `insert` written right after the first `at`. */
  const inject = (text: string, at: string, insert: string) => {
    expect(text.includes(at), at).toBe(true);
    return text.replace(at, at + insert);
  };

  it('refuses a request with a member twice (top level, checkpoint, descriptor, escaped) with duplicate_member and its path', async () => {
    const log = createFakeLog('example.org/m');
    log.append(2);
    const text = JSON.stringify(await log.request(0));
    expect(code(parseRequest(bytes(text)))).toBe('ok');
    const cases: Array<[string, string]> = [
      [inject(text, '{', '"oldSeq":0,'), '/oldSeq'],
      [inject(text, '"checkpoint":{', '"seq":1,'), '/checkpoint/seq'],
      [inject(text, '"checkpoint":{', '"\\u0072oot":"x",'), '/checkpoint/root'],
      [inject(text, '"descriptor":{', '"log":"example.org/other",'), '/descriptor/log'],
      [inject(text, '"descriptor":{', '"__proto__":1,"__proto__":2,'), '/descriptor/__proto__'],
    ];
    for (const [t, path] of cases) {
      expect(() => JSON.parse(t)).not.toThrow();
      expect(parseRequest(bytes(t)), path).toMatchObject({ ok: false, code: 'duplicate_member', path });
    }
  });

  it('refuses members named after Object.prototype as unknown, and __proto__ never reaches a prototype', async () => {
    const log = createFakeLog('example.org/m');
    log.append(2);
    const text = JSON.stringify(await log.request(0));
    expect(parseRequest(bytes(inject(text, '"checkpoint":{', '"__proto__":{"seq":9},')))).toMatchObject({
      ok: false,
      code: 'unknown_field',
      path: '/__proto__',
    });
    expect(parseRequest(bytes(inject(text, '"checkpoint":{', '"toString":1,')))).toMatchObject({
      ok: false,
      code: 'unknown_field',
      path: '/toString',
    });
    expect(parseRequest(bytes(inject(text, '{', '"constructor":{},')))).toMatchObject({ ok: false, code: 'unknown_field' });
    expect(parseRequest(bytes(inject(text, '{', '"__proto__":{},')))).toMatchObject({ ok: false, code: 'unknown_field' });
  });

  it('refuses a reply with a member twice, and nesting past the frame bound with too_deep', () => {
    expect(parseReply(bytes('{"ok":false,"code":"conflict","detail":"x","knownSeq":3,"knownSeq":9}'))).toMatchObject({
      ok: false,
      code: 'duplicate_member',
      path: '/knownSeq',
    });
    expect(parseReply(bytes('{"ok":true,"ok":false,"code":"conflict"}'))).toMatchObject({
      ok: false,
      code: 'duplicate_member',
      path: '/ok',
    });
    const deep = '{"type":"add-checkpoint","x-a-b":' + '['.repeat(70) + ']'.repeat(70) + '}';
    expect(parseRequest(bytes(deep))).toMatchObject({ ok: false, code: 'too_deep' });
  });
});

describe('the cosignature/v1 form in replies (docs/design.md §4)', () => {
  const cosignature = { alg: 'EdDSA', kid: 'wit-abc', signedAt: '2026-12-01T09:00:00.123Z', sig: 'A'.repeat(86) };
  const note = { alg: 'cosignature/v1', kid: 'witness.example/w1+0123abcd', signedAt: '2026-12-01T09:00:00.000Z', sig: 'B'.repeat(86) };
  it('reads a reply with a noteCosignature and one without', () => {
    expect(parseReply(encodeMessage({ ok: true, cosignature, noteCosignature: note }))).toEqual({
      ok: true,
      value: { ok: true, cosignature, noteCosignature: note },
    });
    expect(parseReply(encodeMessage({ ok: true, cosignature }))).toEqual({ ok: true, value: { ok: true, cosignature } });
  });
  it.each([
    ['a time with milliseconds', { ...note, signedAt: '2026-12-01T09:00:00.500Z' }],
    ['a kid without key id', { ...note, kid: 'witness.example/w1' }],
    ['a short sig', { ...note, sig: 'B'.repeat(40) }],
    ['another alg', { ...note, alg: 'EdDSA' }],
    ['an extra member', { ...note, extra: 1 }],
  ])('refuses %s', (_n, bad) => {
    expect(parseReply(encodeMessage({ ok: true, cosignature, noteCosignature: bad })).ok).toBe(false);
  });
});
