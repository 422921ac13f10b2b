// The one Ed25519 rule (ed25519-rules.ts): every small-order point in every encoding, mixed-order
// keys, y >= p, x = 0 with the sign bit and off-curve bytes are weak_key; honest keys pass; the
// key verdict equals an independent RFC 8032 §5.1.3 decoder with its own point arithmetic (not
// @noble's) on random and adversarial bytes; the signature rule is exactly S < L and a canonical R.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkEd25519PublicKey, checkEd25519Signature, ed25519InputsPass, isCanonicalY, isScalarBelowL } from './ed25519-rules.ts';
import {
  IDENTITY,
  L,
  NONCANONICAL_Y,
  P,
  SMALL_ORDER,
  SMALL_ORDER_NONCANONICAL,
  T8,
  concat,
  encodeY,
  identityForgery,
  keyOf,
  le32,
  leInt,
  signScalar,
  withSPlusL,
} from '../../testkit/ed25519-adversarial.ts';

// --- an independent oracle: RFC 8032 §5.1.3 decoding and extended twisted Edwards coordinates ---
const mod = (a: bigint) => ((a % P) + P) % P;
function pow(b: bigint, e: bigint): bigint {
  let r = 1n;
  b = mod(b);
  for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}
const D = mod(-121665n * pow(121666n, P - 2n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);
type Ext = [bigint, bigint, bigint, bigint];
function add([x1, y1, z1, t1]: Ext, [x2, y2, z2, t2]: Ext): Ext {
  // add-2008-hwcd-3 (a = -1): complete on ed25519, so it doubles too.
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(t1 * 2n * D * t2);
  const d = mod(z1 * 2n * z2);
  const e = b - a,
    f = d - c,
    g = d + c,
    h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}
function mul(p: Ext, n: bigint): Ext {
  let r: Ext = [0n, 1n, 1n, 0n];
  for (let q = p; n > 0n; n >>= 1n, q = add(q, q)) if (n & 1n) r = add(r, q);
  return r;
}
const isIdentity = ([x, y, z]: Ext) => x === 0n && y === z;
/** The oracle: 'ok', or why RFC 8032 decoding or the subgroup rule refuses the bytes. */
function oracle(b: Uint8Array): string {
  const y = leInt(Uint8Array.from(b, (v, i) => (i === 31 ? v & 0x7f : v)));
  const sign = (b[31] >> 7) as 0 | 1;
  if (y >= P) return 'noncanonical';
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  if (mod(v * x * x) !== u) {
    if (mod(v * x * x) !== mod(-u)) return 'offcurve';
    x = mod(x * SQRT_M1);
  }
  if (x === 0n && sign === 1) return 'noncanonical';
  if (Number(x & 1n) !== sign) x = P - x;
  const pt: Ext = [x, y, 1n, mod(x * y)];
  if (isIdentity(mul(pt, 8n))) return 'smallorder';
  if (!isIdentity(mul(pt, L))) return 'mixedorder';
  return 'ok';
}
const verdictOf = (b: Uint8Array) => {
  const r = checkEd25519PublicKey(b);
  if (r.ok) return 'ok';
  expect(r.code).toBe('weak_key');
  return /non-canonical/.test(r.detail)
    ? 'noncanonical'
    : /not a point/.test(r.detail)
      ? 'offcurve'
      : /small-order/.test(r.detail)
        ? 'smallorder'
        : /mixed-order/.test(r.detail)
          ? 'mixedorder'
          : r.detail;
};

const scalarArb = fc.bigInt({ min: 1n, max: L - 1n });

describe('the key rule', () => {
  it('refuses the identity key (01 then 31 zero bytes) with weak_key', () => {
    expect(Buffer.from(IDENTITY).toString('hex')).toBe('01' + '00'.repeat(31));
    expect(checkEd25519PublicKey(IDENTITY)).toMatchObject({ ok: false, code: 'weak_key', detail: expect.stringMatching(/identity/) });
  });

  it('refuses all 8 small-order points, canonical and non-canonical encodings', () => {
    const canonical = SMALL_ORDER.map((p) => p.toBytes());
    expect(new Set(canonical.map((b) => Buffer.from(b).toString('hex'))).size).toBe(8);
    for (const b of canonical) expect(verdictOf(b), Buffer.from(b).toString('hex')).toBe('smallorder');
    for (const b of SMALL_ORDER_NONCANONICAL) expect(verdictOf(b), Buffer.from(b).toString('hex')).toBe('noncanonical');
  });

  it('refuses mixed-order keys [x]B + T for each of the 7 torsion points, and passes [x]B', () => {
    fc.assert(
      fc.property(scalarArb, (x) => {
        expect(verdictOf(keyOf(x))).toBe('ok');
        for (const t of SMALL_ORDER.slice(1)) expect(verdictOf(keyOf(x, t))).toBe('mixedorder');
      }),
      { numRuns: 15 },
    );
  });

  it('judges a key object by its bytes now: one changed after a pass is judged again', () => {
    const honest = keyOf(12345n);
    const k = honest.slice();
    expect(checkEd25519PublicKey(k).ok).toBe(true);
    expect(checkEd25519PublicKey(k).ok).toBe(true); // the same object again
    k.set(IDENTITY);
    expect(checkEd25519PublicKey(k)).toMatchObject({ ok: false, code: 'weak_key', detail: expect.stringMatching(/identity/) });
    k.set(honest);
    expect(checkEd25519PublicKey(k).ok).toBe(true);
    // A view into a larger buffer is judged by its own 32 bytes.
    const big = concat(IDENTITY, honest);
    expect(checkEd25519PublicKey(big.subarray(32, 64)).ok).toBe(true);
    expect(checkEd25519PublicKey(big.subarray(0, 32)).ok).toBe(false);
  });

  it('refuses every y >= p encoding that would decode, and off-curve bytes', () => {
    expect(NONCANONICAL_Y.length).toBeGreaterThan(10);
    for (const b of NONCANONICAL_Y) expect(verdictOf(b)).toBe('noncanonical');
    expect(verdictOf(encodeY(2n, false))).toBe('offcurve'); // y = 2 is not on the curve
    expect(checkEd25519PublicKey(new Uint8Array(31))).toMatchObject({ ok: false, code: 'weak_key' });
    expect(checkEd25519PublicKey(new Uint8Array(33))).toMatchObject({ ok: false, code: 'weak_key' });
  });

  it('equals an independent RFC 8032 decoder with its own arithmetic, on random and adversarial bytes', () => {
    const near = fc.bigInt({ min: P - 40n, max: (1n << 255n) - 1n }).chain((y) => fc.boolean().map((s) => encodeY(y, s)));
    const keyArb = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      scalarArb.map((x) => keyOf(x)),
      fc.tuple(scalarArb, fc.integer({ min: 1, max: 7 })).map(([x, i]) => keyOf(x, SMALL_ORDER[i])),
      fc.constantFrom(...SMALL_ORDER.map((p) => p.toBytes()), ...SMALL_ORDER_NONCANONICAL, ...NONCANONICAL_Y),
      fc.bigInt({ min: 0n, max: 40n }).chain((y) => fc.boolean().map((s) => encodeY(y, s))),
      near,
    );
    fc.assert(
      fc.property(keyArb, (b) => {
        expect(verdictOf(b)).toBe(oracle(b));
      }),
      { numRuns: 300 },
    );
  });

  it('memoizes the verdict: the same bytes in another array give the same answer', () => {
    const k = keyOf(12345n, T8);
    expect(checkEd25519PublicKey(k)).toBe(checkEd25519PublicKey(Uint8Array.from(k)));
  });
});

describe('the signature rule (strict RFC 8032: canonical R, S < L)', () => {
  const x = 987654321n;
  const pub = keyOf(x);
  const msg = new TextEncoder().encode('cookwala');
  const good = signScalar(x, pub, msg, 4242n);

  it('passes an honest signature, S = L - 1 and S = 0; refuses S = L, S + L and wrong lengths', () => {
    expect(checkEd25519Signature(good)).toEqual({ ok: true, value: true });
    expect(checkEd25519Signature(concat(good.subarray(0, 32), le32(L - 1n))).ok).toBe(true);
    expect(checkEd25519Signature(concat(good.subarray(0, 32), le32(0n))).ok).toBe(true);
    expect(checkEd25519Signature(concat(good.subarray(0, 32), le32(L)))).toMatchObject({
      ok: false,
      code: 'bad_signature',
      detail: expect.stringMatching(/S is not below L/),
    });
    expect(checkEd25519Signature(withSPlusL(good))).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(checkEd25519Signature(good.subarray(0, 63))).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(checkEd25519Signature(concat(good, Uint8Array.of(0)))).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it('refuses R encoded with y >= p or as x = 0 with the sign bit, and identity R (OpenSSL 3.0 and 3.5 disagree on it)', () => {
    for (const r of [...NONCANONICAL_Y, encodeY(1n, true), encodeY(P - 1n, true)]) {
      expect(checkEd25519Signature(concat(r, good.subarray(32))), Buffer.from(r).toString('hex')).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/R is not a canonical/),
      });
    }
    expect(checkEd25519Signature(signScalar(x, pub, msg, 0n))).toMatchObject({ ok: false, detail: 'R is the identity point' });
    expect(checkEd25519Signature(signScalar(x, pub, msg, 1n)).ok).toBe(true);
  });

  it('isScalarBelowL and isCanonicalY equal BigInt comparisons, near the bounds too', () => {
    const around = (c: bigint) => fc.bigInt({ min: c - 300n, max: c + 300n });
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), around(L)), (s) => {
        expect(isScalarBelowL(le32(s))).toBe(s < L);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.bigInt({ min: 0n, max: (1n << 255n) - 1n }), fc.bigInt({ min: P - 300n, max: (1n << 255n) - 1n })),
        fc.boolean(),
        (y, s) => {
          expect(isCanonicalY(encodeY(y, s))).toBe(y < P);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('ed25519InputsPass is both rules: the issue-9 forgery fails on its key alone', () => {
    const f = identityForgery(31337n);
    expect(checkEd25519Signature(f.sig).ok).toBe(true);
    expect(ed25519InputsPass(f.pub, f.sig)).toBe(false);
    expect(ed25519InputsPass(pub, good)).toBe(true);
    expect(ed25519InputsPass(pub, withSPlusL(good))).toBe(false);
  });
});
