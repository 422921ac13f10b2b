// tlog-checkpoint bodies: format and parse are inverse over random checkpoints (fast-check), and
// every rule of the body is a rejection test; an unexpected origin is 'origin_mismatch'.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCheckpointBody, parseCheckpointBody, toBase64Std } from './index.ts';

const ROOT = toBase64Std(new Uint8Array(32).fill(7));
const code = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('checkpoint bodies', () => {
  it('format and parse round-trip', () => {
    const line = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/[\u0000-\u001f]/.test(s));
    fc.assert(
      fc.property(
        line,
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.array(line, { maxLength: 3 }),
        (origin, size, rootHash, extensions) => {
          const text = formatCheckpointBody({ origin, size, rootHash, extensions });
          const r = parseCheckpointBody(text);
          expect(r.ok && r.value).toEqual({ origin, size, rootHash, extensions });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('parses sizes above 2^31 exactly', () => {
    const r = parseCheckpointBody(`o\n123456789012\n${ROOT}\n`);
    expect(r.ok && r.value.size).toBe(123456789012);
  });

  const bad: Array<[string, string]> = [
    ['two lines', `o\n1\n`],
    ['no final newline', `o\n1\n${ROOT}`],
    ['empty origin', `\n1\n${ROOT}\n`],
    ['leading zero', `o\n01\n${ROOT}\n`],
    ['plus sign', `o\n+1\n${ROOT}\n`],
    ['negative', `o\n-1\n${ROOT}\n`],
    ['hex size', `o\n0x1f\n${ROOT}\n`],
    ['space in size', `o\n 1\n${ROOT}\n`],
    ['size beyond 2^53 - 1', `o\n9007199254740992\n${ROOT}\n`],
    ['31-byte root', `o\n1\n${toBase64Std(new Uint8Array(31))}\n`],
    ['unpadded root', `o\n1\n${ROOT.replace('=', '')}\n`],
    ['base64url root', `o\n1\n${toBase64Std(new Uint8Array(32).fill(0xfb)).replace(/\+/g, '-').replace(/\//g, '_')}\n`],
    ['empty extension line', `o\n1\n${ROOT}\n\n`],
    ['control character', `o\u0001\n1\n${ROOT}\n`],
  ];
  it.each(bad)('refuses %s', (_n, body) => {
    expect(code(parseCheckpointBody(body))).toBe('malformed_note');
  });

  it('checks the origin when asked', () => {
    const body = `example.com/log\n5\n${ROOT}\n`;
    expect(code(parseCheckpointBody(body, { origin: 'example.com/log' }))).toBe('ok');
    expect(code(parseCheckpointBody(body, { origin: 'example.com/other' }))).toBe('origin_mismatch');
  });

  it('formatCheckpointBody refuses what it could not parse back', () => {
    expect(() => formatCheckpointBody({ origin: 'a\nb', size: 1, rootHash: new Uint8Array(32), extensions: [] })).toThrow(TypeError);
    expect(() => formatCheckpointBody({ origin: 'a', size: 1.5, rootHash: new Uint8Array(32), extensions: [] })).toThrow(TypeError);
    expect(() => formatCheckpointBody({ origin: 'a', size: 1, rootHash: new Uint8Array(31), extensions: [] })).toThrow(TypeError);
    expect(() => formatCheckpointBody({ origin: 'a', size: 1, rootHash: new Uint8Array(32), extensions: [''] })).toThrow(TypeError);
  });
});
