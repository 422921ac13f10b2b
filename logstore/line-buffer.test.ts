// The byte writers of line-buffer.ts against Node's own encoders, the oracle: decimal integers
// (String), hex and base64url (Buffer.toString), strings copied only when JSON.stringify writes them
// as they are, and lines never split across handed-over Buffers. fast-check prints the seed of a
// failure; FC_SEED replays it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineBuffer } from './line-buffer.ts';

const RUNS = { numRuns: 300, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) };

function written(put: (w: LineBuffer) => void): Buffer {
  const w = new LineBuffer();
  put(w);
  return w.take();
}

describe('LineBuffer', () => {
  it('writes safe integers as String does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 32)),
        (n) => {
          expect(written((w) => w.uint(n)).toString('latin1')).toBe(String(n));
        },
      ),
      RUNS,
    );
  });

  it('writes hex and base64url as Buffer.toString does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5 }), (bytes, cut) => {
        const b = Buffer.from(bytes);
        const at = Math.min(cut, b.length);
        expect(written((w) => w.hex(b, at, b.length - at)).toString('latin1')).toBe(b.toString('hex', at));
        expect(written((w) => w.base64url(b, at, b.length)).toString('latin1')).toBe(b.toString('base64url', at));
      }),
      RUNS,
    );
  });

  it('copies a string only when JSON.stringify writes it as it is, and else writes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 40 }), (s) => {
        const b = Buffer.from(s, 'utf8');
        const w = new LineBuffer();
        w.ascii('x');
        const ok = w.plainString(b, 0, b.length);
        const out = w.take().toString('utf8');
        expect(ok).toBe(JSON.stringify(s) === `"${s}"` && /^[\x20-\x7f]*$/.test(s));
        expect(out).toBe(ok ? `x${JSON.stringify(s)}` : 'x');
      }),
      RUNS,
    );
  });

  it('copies DEL (0x7f) as it is, as JSON.stringify writes it, and refuses the characters around the range', () => {
    // DEL is ASCII and not a JSON control character (those end at 0x1f).
    for (const [s, plain] of [
      ['\x7f', true],
      ['a\x7fb', true],
      ['\x1f', false],
      ['\x80', false],
      ['"', false],
      ['\\', false],
    ] as const) {
      const b = Buffer.from(s, 'utf8');
      const w = new LineBuffer();
      expect(w.plainString(b, 0, b.length), JSON.stringify(s)).toBe(plain);
      expect(w.take().toString('utf8')).toBe(plain ? JSON.stringify(s) : '');
    }
  });

  it('hands over whole lines in chunks of about 64 KiB', () => {
    const w = new LineBuffer();
    const line = Buffer.from('y'.repeat(999) + '\n');
    const chunks: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      w.bytes(line, 0, line.length);
      const c = w.full();
      if (c) chunks.push(c);
    }
    chunks.push(w.take());
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c.length % 1000).toBe(0);
    expect(Buffer.concat(chunks).equals(Buffer.concat(Array.from({ length: 200 }, () => line)))).toBe(true);
  });
});
