// Both CryptoBackends give identical bytes (SHA-256, Ed25519 keys and signatures, P-256 public
// keys) and accept each other's signatures; ES256 is randomized in node:crypto, so those are
// cross-verified rather than compared. The Ed25519 differential test feeds both backends the
// inputs on which verifiers split (small-order and mixed-order keys, non-canonical encodings,
// S + L, torsion and identity R, the issue-9 forgery) through verifyRaw and through ed25519Verify
// itself, and requires the verdict known by construction from both; fixed regression cases show
// that each family really splits the raw libraries (OpenSSL, @noble's own verify).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as nc from 'node:crypto';
import * as ed from '@noble/ed25519';
import { createNodeBackend } from './node.ts';

/** Node 20 ships OpenSSL 3.0, which accepts the identity-key forgery; Node 24's OpenSSL 3.5 refuses it. */
const OPENSSL_3_0 = /^3\.0\./.test(process.versions.openssl);
import { createNobleBackend } from './noble.ts';
import { verifyRaw } from '../signing/signature.ts';
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
  signScalar,
  withSPlusL,
} from '../../testkit/ed25519-adversarial.ts';

const node = createNodeBackend();
const noble = createNobleBackend();
const seed = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + n) & 0xff);

describe('node:crypto and @noble agree', () => {
  it('SHA-256 is identical', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (d) => {
        const h = node.sha256(d);
        expect(Buffer.from(h)).toEqual(Buffer.from(noble.sha256(d)));
        // A Buffer of its own 32 bytes (a caller may keep, transfer or slice it).
        expect(Buffer.isBuffer(h) && h.byteOffset === 0 && h.buffer.byteLength === 32).toBe(true);
        expect(Buffer.from(node.sha256(d))).toEqual(h);
      }),
      { numRuns: 200 },
    );
  });

  it('sha256Hex and sha256Text of text are identical and equal sha256(UTF-8)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (t) => {
        const want = Buffer.from(node.sha256(new TextEncoder().encode(t))).toString('hex');
        expect(node.sha256Hex(t)).toBe(want);
        expect(noble.sha256Hex(t)).toBe(want);
        expect(Buffer.from(node.sha256Text(t)).toString('hex')).toBe(want);
        expect(Buffer.from(noble.sha256Text(t)).toString('hex')).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('Ed25519 keys and signatures are identical, and each verifies the other', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 300 }), (s, m) => {
        const pkA = node.ed25519PublicKey(s);
        expect(Buffer.from(pkA)).toEqual(Buffer.from(noble.ed25519PublicKey(s)));
        const a = node.ed25519Sign(s, m);
        expect(Buffer.from(a)).toEqual(Buffer.from(noble.ed25519Sign(s, m)));
        expect(node.ed25519Verify(pkA, m, a)).toBe(true);
        expect(noble.ed25519Verify(pkA, m, a)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('P-256 public keys are identical and signatures cross-verify', () => {
    const s = seed(3);
    const pk = node.p256PublicKey(s);
    expect(Buffer.from(pk)).toEqual(Buffer.from(noble.p256PublicKey(s)));
    const m = new TextEncoder().encode('cookwala');
    const a = node.p256Sign(s, m);
    const b = noble.p256Sign(s, m);
    expect(a.length).toBe(64);
    expect(noble.p256Verify(pk, m, a)).toBe(true);
    expect(node.p256Verify(pk, m, b)).toBe(true);
    const bad = Uint8Array.from(a);
    bad[10] ^= 1;
    expect(node.p256Verify(pk, m, bad)).toBe(false);
    expect(noble.p256Verify(pk, m, bad)).toBe(false);
  });

  it('malformed inputs return false, never throw', () => {
    for (const b of [node, noble]) {
      expect(b.ed25519Verify(new Uint8Array(31), new Uint8Array(1), new Uint8Array(64))).toBe(false);
      expect(b.ed25519Verify(new Uint8Array(32), new Uint8Array(1), new Uint8Array(63))).toBe(false);
      expect(b.p256Verify(new Uint8Array(65), new Uint8Array(1), new Uint8Array(64))).toBe(false);
      expect(b.p256Verify(new Uint8Array(33), new Uint8Array(1), new Uint8Array(70))).toBe(false);
    }
  });
});

// OpenSSL and @noble called directly, without the rule: what the backends used to do.
const rawOpenSsl = (pub: Uint8Array, msg: Uint8Array, sig: Uint8Array) =>
  nc.verify(
    null,
    msg,
    nc.createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]), format: 'der', type: 'spki' }),
    sig,
  );
const rawNoble = (pub: Uint8Array, msg: Uint8Array, sig: Uint8Array, zip215 = false) => {
  try {
    return ed.verify(sig, msg, pub, { zip215 });
  } catch {
    return false;
  }
};

interface EdCase {
  kind: string;
  pub: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
  want: boolean;
}

/** Both backends, through verifyRaw (the rule, then the backend) and through ed25519Verify alone. */
function verdicts(c: EdCase): boolean[] {
  return [
    verifyRaw('EdDSA', c.pub, c.msg, c.sig, node),
    verifyRaw('EdDSA', c.pub, c.msg, c.sig, noble),
    node.ed25519Verify(c.pub, c.msg, c.sig),
    noble.ed25519Verify(c.pub, c.msg, c.sig),
  ];
}

const scalarArb = fc.bigInt({ min: 1n, max: L - 1n });
const KINDS = [
  'honest',
  'torsion R',
  'identity R',
  'S + L',
  'mixed-order key',
  'mixed-order key, torsion R',
  'small-order key',
  'small-order key, non-canonical',
  'y >= p key',
  'non-canonical R',
  'random key',
  'honest key, random sig',
  'honest, one bit flipped',
  'honest, other message',
  'issue-9 forgery',
] as const;

const edCaseArb = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    x: scalarArb,
    r: scalarArb,
    t: fc.integer({ min: 1, max: 7 }),
    pick: fc.nat(),
    msg: fc.uint8Array({ maxLength: 120 }),
    junk: fc.uint8Array({ minLength: 96, maxLength: 96 }),
  })
  .map(({ kind, x, r, t, pick, msg, junk }): EdCase => {
    const pub = keyOf(x);
    const honest = () => signScalar(x, pub, msg, r);
    const T = SMALL_ORDER[t];
    switch (kind) {
      case 'honest':
        return { kind, pub, msg, sig: honest(), want: true };
      case 'torsion R':
        return { kind, pub, msg, sig: signScalar(x, pub, msg, r, T), want: false };
      case 'identity R': // refused by the rule: OpenSSL's own verdict on it changed between 3.0 and 3.5
        return { kind, pub, msg, sig: signScalar(x, pub, msg, 0n), want: false };
      case 'S + L':
        return { kind, pub, msg, sig: withSPlusL(honest()), want: false };
      case 'mixed-order key': {
        const m = keyOf(x, T);
        return { kind, pub: m, msg, sig: signScalar(x, m, msg, r), want: false };
      }
      case 'mixed-order key, torsion R': {
        const m = keyOf(x, T);
        return { kind, pub: m, msg, sig: signScalar(x, m, msg, r, SMALL_ORDER[(t * 3) % 8]), want: false };
      }
      case 'small-order key': {
        const k = SMALL_ORDER[pick % 8].toBytes();
        // R = [r]B, S = r: the cofactorless equation holds whenever [k]A = identity, the cofactored one always.
        return { kind, msg, want: false, pub: k, sig: pick % 2 ? identityForgery(r).sig : junk.subarray(0, 64) };
      }
      case 'small-order key, non-canonical':
        return {
          kind,
          msg,
          want: false,
          pub: SMALL_ORDER_NONCANONICAL[pick % SMALL_ORDER_NONCANONICAL.length],
          sig: identityForgery(r).sig,
        };
      case 'y >= p key':
        return {
          kind,
          msg,
          want: false,
          pub: NONCANONICAL_Y[pick % NONCANONICAL_Y.length],
          sig: pick % 2 ? identityForgery(r).sig : junk.subarray(0, 64),
        };
      case 'non-canonical R': {
        const enc = [encodeY(P + 1n, false), encodeY(1n, true), encodeY(P + 1n, true)][pick % 3]; // identity R, spelled three wrong ways
        return { kind, pub, msg, sig: signScalar(x, pub, msg, 0n, undefined, enc), want: false };
      }
      case 'random key':
        return { kind, msg, want: false, pub: junk.subarray(64, 96), sig: junk.subarray(0, 64) };
      case 'honest key, random sig':
        return { kind, pub, msg, sig: junk.subarray(0, 64), want: false };
      case 'honest, one bit flipped': {
        const sig = honest();
        sig[pick % 64] ^= 1 << (pick % 8);
        return { kind, pub, msg, sig, want: false };
      }
      case 'honest, other message':
        return { kind, pub, msg: concat(msg, Uint8Array.of(pick & 0xff)), sig: honest(), want: false };
      case 'issue-9 forgery':
        return { kind, msg, want: false, ...identityForgery(r) };
    }
  });

describe('Ed25519: one verdict on adversarial inputs (differential, both backends)', () => {
  it('node and noble give the verdict known by construction on every adversarial family', () => {
    fc.assert(
      fc.property(edCaseArb, (c) => {
        expect(verdicts(c), c.kind).toEqual([c.want, c.want, c.want, c.want]);
      }),
      { numRuns: 400 },
    );
  });

  it('regression: the identity key with R = [a]B, S = a is refused by both; OpenSSL 3.0 (Node 20) alone accepts it for any message', () => {
    expect(Buffer.from(IDENTITY).toString('hex')).toBe('01' + '00'.repeat(31));
    for (const [a, text] of [
      [12345n, 'anything at all'],
      [1n, ''],
      [L - 1n, 'pay 1000 to mallory'],
    ] as const) {
      const f = identityForgery(a);
      const msg = new TextEncoder().encode(text);
      expect(rawOpenSsl(f.pub, msg, f.sig)).toBe(OPENSSL_3_0); // the split this fixes (OpenSSL 3.5 refuses it too)
      expect(rawNoble(f.pub, msg, f.sig)).toBe(false);
      expect(verdicts({ kind: 'identity key', pub: f.pub, msg, sig: f.sig, want: false })).toEqual([false, false, false, false]);
    }
  });

  it('regression: a mixed-order key splits raw OpenSSL (about 1 in 8) and raw @noble (always); both backends refuse', () => {
    const x = 987654321n;
    const pub = keyOf(x, T8);
    let openssl = 0;
    let nobleRaw = 0;
    for (let i = 0; i < 32; i++) {
      const msg = Uint8Array.of(i);
      const sig = signScalar(x, pub, msg, 1000n + BigInt(i));
      if (rawOpenSsl(pub, msg, sig)) openssl++;
      if (rawNoble(pub, msg, sig)) nobleRaw++;
      expect(verdicts({ kind: 'mixed', pub, msg, sig, want: false })).toEqual([false, false, false, false]);
    }
    expect(nobleRaw).toBe(32);
    expect(openssl).toBeGreaterThan(0);
    expect(openssl).toBeLessThan(32);
  });

  it('regression: R with a torsion part under an honest key: raw @noble (cofactored) accepts, OpenSSL refuses, both backends refuse', () => {
    const x = 55555n;
    const pub = keyOf(x);
    const msg = new TextEncoder().encode('torsion');
    const sig = signScalar(x, pub, msg, 77n, T8);
    expect(rawNoble(pub, msg, sig)).toBe(true);
    expect(rawOpenSsl(pub, msg, sig)).toBe(false);
    expect(verdicts({ kind: 'torsion R', pub, msg, sig, want: false })).toEqual([false, false, false, false]);
  });

  it('regression: a non-canonical identity R passes raw @noble with ZIP-215 only; both backends refuse', () => {
    const x = 4242n;
    const pub = keyOf(x);
    const msg = new TextEncoder().encode('zip215');
    const sig = signScalar(x, pub, msg, 0n, undefined, encodeY(P + 1n, false));
    expect(rawNoble(pub, msg, sig, true)).toBe(true);
    expect(verdicts({ kind: 'non-canonical R', pub, msg, sig, want: false })).toEqual([false, false, false, false]);
  });
});
