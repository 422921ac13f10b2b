// The worker pool gives exactly verifyRaw()'s verdict (node:crypto backend) for valid, corrupted,
// malformed and non-canonical signatures of both algorithms, coalesces calls made in one turn, and
// refuses work once closed. Items handed over as text (msgText, the signing header's JSON) get the
// verdict of their UTF-8 bytes, mixed with byte items in one call, on workers and inline.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSigPool, MAX_JOBS_PER_WORKER, MIN_SHARE, splitShares, type SigItem } from './sig-pool.ts';
import { verifyRaw } from '../verifier/signing/signature.ts';
import { createNodeBackend } from '../verifier/crypto/node.ts';
import { T8, identityForgery, keyOf, signScalar } from '../testkit/ed25519-adversarial.ts';

const node = createNodeBackend();
const pool = createSigPool({ size: 2 });
afterAll(() => pool.close());

// Ed25519 group order L, little-endian S: S + L is the non-canonical twin of a valid S.
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
function addL(sig: Uint8Array): Uint8Array {
  const out = Uint8Array.from(sig);
  let s = 0n;
  for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]);
  s += L;
  for (let i = 0; i < 32; i++) {
    out[32 + i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return out;
}
// P-256 order n: (r, n - s) is the high-S twin of a valid ECDSA signature (still valid for ES256).
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
function negS(sig: Uint8Array): Uint8Array {
  const out = Uint8Array.from(sig);
  let s = BigInt('0x' + Buffer.from(sig.subarray(32)).toString('hex'));
  s = N - s;
  out.set(Buffer.from(s.toString(16).padStart(64, '0'), 'hex'), 32);
  return out;
}

function edItem(seed: Uint8Array, msg: Uint8Array): SigItem {
  return { alg: 'EdDSA', publicKey: node.ed25519PublicKey(seed), msg, sig: node.ed25519Sign(seed, msg) };
}

const seedArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
const msgArb = fc.uint8Array({ maxLength: 200 });
// A mutation of an item: none, flip a bit anywhere, truncate, lengthen, change alg, canonical twins.
const mutArb = fc.tuple(fc.integer({ min: 0, max: 8 }), fc.nat(), fc.nat(7));

function mutate(it: SigItem, [kind, pos, bit]: [number, number, number]): SigItem {
  const flip = (b: Uint8Array) => {
    if (b.length === 0) return Uint8Array.of(1);
    const c = Uint8Array.from(b);
    c[pos % c.length] ^= 1 << bit;
    return c;
  };
  switch (kind) {
    case 1:
      return { ...it, sig: flip(it.sig) };
    case 2:
      return { ...it, msg: flip(it.msg) };
    case 3:
      return { ...it, publicKey: flip(it.publicKey) };
    case 4:
      return { ...it, sig: it.sig.subarray(0, pos % it.sig.length) };
    case 5:
      return { ...it, publicKey: Uint8Array.of(...it.publicKey, 0) };
    case 6:
      return { ...it, alg: it.alg === 'EdDSA' ? 'ES256' : 'EdDSA' };
    case 7:
      return { ...it, alg: 'RS256' };
    case 8:
      return it.alg === 'EdDSA' ? { ...it, sig: addL(it.sig) } : { ...it, sig: negS(it.sig) };
    default:
      return it;
  }
}

const raw = (it: SigItem) => (it.alg === 'EdDSA' || it.alg === 'ES256') && verifyRaw(it.alg, it.publicKey, it.msg, it.sig, node);

describe('sig-pool', () => {
  it('equals verifyRaw for Ed25519 items, mutated or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(seedArb, msgArb, mutArb), { minLength: 1, maxLength: 40 }), async (rows) => {
        const items = rows.map(([s, m, mut]) => mutate(edItem(s, m), mut));
        const got = await pool.verify(items);
        expect(got).toEqual(items.map(raw));
      }),
      { numRuns: 40 },
    );
  });

  it('takes the signed bytes as text (msgText): the verdict of their UTF-8, beside byte items in one call', async () => {
    const inline = createSigPool({ size: 0 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(seedArb, fc.string({ unit: 'grapheme', maxLength: 60 }), mutArb, fc.boolean()), { minLength: 1, maxLength: 30 }),
        async (rows) => {
          const items = rows.map(([s, text, mut, asText]) => {
            const it = mutate(edItem(s, new TextEncoder().encode(text)), mut);
            // Only an unchanged message can travel as its text (a flipped bit may not be UTF-8).
            return asText && mut[0] !== 2 ? { alg: it.alg, publicKey: it.publicKey, msgText: text, sig: it.sig } : it;
          });
          const want = items.map((it) => raw('msg' in it ? it : { ...it, msg: new TextEncoder().encode(it.msgText) }));
          expect(await pool.verify(items)).toEqual(want);
          expect(await inline.verify(items)).toEqual(want);
        },
      ),
      { numRuns: 30 },
    );
    await inline.close();
  });

  it('equals verifyRaw for ES256 items, including high-S twins (valid) and wrong lengths', async () => {
    const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const pub = node.p256PublicKey(secret);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(msgArb, mutArb), { minLength: 1, maxLength: 20 }), async (rows) => {
        const items = rows.map(([m, mut]) => mutate({ alg: 'ES256', publicKey: pub, msg: m, sig: node.p256Sign(secret, m) }, mut));
        expect(await pool.verify(items)).toEqual(items.map(raw));
      }),
      { numRuns: 30 },
    );
  });

  it('decides the edge cases the way verifyRaw does', async () => {
    const seed = new Uint8Array(32).fill(9);
    const good = edItem(seed, new TextEncoder().encode('cookwala'));
    const secret = new Uint8Array(32).fill(3);
    const m = new TextEncoder().encode('p256');
    const es = { alg: 'ES256', publicKey: node.p256PublicKey(secret), msg: m, sig: node.p256Sign(secret, m) };
    const cases: SigItem[] = [
      good,
      { ...good, sig: addL(good.sig) }, // non-canonical S: strict RFC 8032 refuses
      { ...good, publicKey: new Uint8Array(32).fill(0xff) }, // not a point encoding
      { ...good, sig: new Uint8Array(0) },
      es,
      { ...es, sig: negS(es.sig) }, // high S: ES256 does not require low S
      { ...es, publicKey: Uint8Array.of(2, ...es.publicKey.subarray(1, 33)) }, // compressed point refused
      { alg: 'EdDSA', msg: good.msg, publicKey: identityForgery(777n).pub, sig: identityForgery(777n).sig }, // raw OpenSSL in the worker would accept it
      ...Array.from({ length: 8 }, (_, i) => {
        const pub = keyOf(99n, T8); // mixed-order: raw OpenSSL accepts about 1 in 8 of these
        const msg = Uint8Array.of(i);
        return { alg: 'EdDSA', publicKey: pub, msg, sig: signScalar(99n, pub, msg, 5n + BigInt(i)) };
      }),
    ];
    const want = cases.map(raw);
    expect(want).toEqual([true, false, false, false, true, true, false, false, ...new Array(8).fill(false)]);
    expect(await pool.verify(cases)).toEqual(want);
  });

  it('coalesces calls made in one turn into few worker messages', async () => {
    const seed = new Uint8Array(32).fill(5);
    const before = { ...pool.stats };
    const calls = Array.from({ length: 100 }, (_, i) => pool.verify([edItem(seed, Uint8Array.of(i))]));
    const res = await Promise.all(calls);
    expect(res.every((r) => r.length === 1 && r[0] === true)).toBe(true);
    expect(pool.stats.items - before.items).toBe(100);
    expect(pool.stats.messages - before.messages).toBeLessThanOrEqual(2);
  });

  it('while its worker holds MAX_JOBS_PER_WORKER messages, single items wait and go out together', async () => {
    const p = createSigPool({ size: 1 });
    try {
      const seed = new Uint8Array(32).fill(6);
      // Large calls in turns of their own, up to the worker's limit: one message each.
      const big = (tag: number) => Array.from({ length: 400 }, (_, i) => edItem(seed, Uint8Array.of(tag, i & 0xff, i >> 8)));
      const large: Array<Promise<boolean[]>> = [];
      for (let j = 0; j < MAX_JOBS_PER_WORKER; j++) {
        large.push(p.verify(big(j + 1)));
        await new Promise((r) => setImmediate(r));
      }
      expect(p.stats.messages).toBe(MAX_JOBS_PER_WORKER);
      // Eleven single-item calls (the last one forged), each in a turn of its own, while hundreds
      // of verifications are owed.
      const bad = { ...edItem(seed, Uint8Array.of(4)), msg: Uint8Array.of(5) };
      const singles: Array<Promise<boolean[]>> = [];
      for (let i = 0; i < 11; i++) {
        singles.push(p.verify([i < 10 ? edItem(seed, Uint8Array.of(3, i)) : bad]));
        await new Promise((r) => setImmediate(r));
      }
      for (const l of await Promise.all(large)) expect(l.every(Boolean)).toBe(true);
      expect(await Promise.all(singles)).toEqual([...new Array(10).fill([true]), [false]]);
      expect(p.stats.items).toBe(400 * MAX_JOBS_PER_WORKER + 11);
      // The waiting calls went out together as answers came back (one message each would be 11
      // more): one message when the first answer came, at most one more for a call made after it.
      expect(p.stats.messages).toBeLessThanOrEqual(MAX_JOBS_PER_WORKER + 2);
    } finally {
      await p.close();
    }
  });

  it('splits waiting items up to one level over what each worker still owes', () => {
    expect(splitShares(100, [0, 0])).toEqual([50, 50]);
    // A worker busy with 60 items takes what brings it level with the free one.
    expect(splitShares(100, [60, 0])).toEqual([20, 80]);
    // Busy with as many as the batch (or nearly): the free worker takes it all.
    expect(splitShares(100, [100, 0])).toEqual([0, 100]);
    expect(splitShares(100, [90, 0])).toEqual([0, 100]);
    expect(splitShares(10, [0, 0])).toEqual([10, 0]);
    expect(splitShares(0, [0, 5])).toEqual([0, 0]);
    expect(splitShares(30, [0, 0, 0])).toEqual([10, 10, 10]);
    // Too few for two shares of MIN_SHARE: one worker takes them (a property counterexample, kept).
    expect(splitShares(10, [6, 6])).toEqual([10, 0]);
    // Levelled with the free worker, the busier one would take fewer than MIN_SHARE (7.5 and 6):
    // the free worker takes all, as the level says (counterexamples of an earlier form of the
    // property below, which asked for a split whenever both could take MIN_SHARE: seed 304950814).
    expect(splitShares(16, [0, 1])).toEqual([16, 0]);
    expect(splitShares(16, [0, 4])).toEqual([16, 0]);
    // Shares rounded one by one drifted onto the last: it took 6 (a property counterexample, kept).
    const owed7 = [2420, 1385, 2172, 1076, 2459, 1979, 2714];
    expect(Math.min(...splitShares(4853, owed7).filter((x) => x > 0))).toBeGreaterThanOrEqual(MIN_SHARE);
    fc.assert(
      fc.property(fc.nat(5000), fc.array(fc.nat(3000), { minLength: 1, maxLength: 8 }), (n, owed) => {
        const shares = splitShares(n, owed);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(n);
        const takers = shares.flatMap((x, i) => (x > 0 ? [i] : []));
        for (const i of takers) expect(takers.length === 1 || shares[i] >= MIN_SHARE).toBe(true);
        // A worker left out owes at least what every taker owes, and levelled in with the takers
        // it would have taken fewer than MIN_SHARE items.
        const owedByTakers = takers.reduce((a, i) => a + owed[i], 0);
        for (let j = 0; j < owed.length; j++)
          if (shares[j] === 0 && n > 0) {
            for (const i of takers) expect(owed[j]).toBeGreaterThanOrEqual(owed[i]);
            expect((n + owedByTakers + owed[j]) / (takers.length + 1) - owed[j]).toBeLessThan(MIN_SHARE);
          }
      }),
    );
  });

  it('answers an empty call, and refuses work once closed', async () => {
    const p = createSigPool({ size: 1 });
    expect(await p.verify([])).toEqual([]);
    await p.close();
    await expect(p.verify([edItem(new Uint8Array(32), Uint8Array.of(1))])).rejects.toThrow(/closed/);
  });

  it('size 0 verifies inline with the same verdicts', async () => {
    const p = createSigPool({ size: 0 });
    const seed = new Uint8Array(32).fill(7);
    const items = [edItem(seed, Uint8Array.of(1)), { ...edItem(seed, Uint8Array.of(2)), msg: Uint8Array.of(3) }];
    expect(await p.verify(items)).toEqual([true, false]);
    await p.close();
  });
});
