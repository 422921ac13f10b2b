// ML-DSA-44 gives one verdict from every backend: node:crypto (where it has ML-DSA-44, Node >= 24.6),
// @noble/post-quantum, and WebCrypto (where the runtime has the ML-DSA-44 algorithm), on valid,
// mutated and malformed keys and signatures; and the shared 32-byte seed gives one key pair, so a
// signature by either verifies with the other.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createNodeBackend, nodeHasMldsa44 } from './node.ts';
import { createNobleBackend } from './noble.ts';
import { MLDSA44_PUBLIC_KEY_BYTES, MLDSA44_SIGNATURE_BYTES } from './mldsa44.ts';

const noble = createNobleBackend();
const node = createNodeBackend();
const hasNode = nodeHasMldsa44();
const seed = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i * 13 + n) & 0xff);

type Subtle = {
  importKey(f: string, k: Uint8Array, a: { name: string }, e: boolean, u: string[]): Promise<unknown>;
  verify(a: { name: string }, k: unknown, s: Uint8Array, m: Uint8Array): Promise<boolean>;
};
const subtle = (globalThis.crypto as unknown as { subtle?: Subtle }).subtle;

/** WebCrypto's verdict (a key it cannot import is a refusal). */
async function webVerify(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean> {
  if (!subtle) return false;
  let key: unknown;
  try {
    key = await subtle.importKey('raw-public', pub, { name: 'ML-DSA-44' }, false, ['verify']);
  } catch {
    return false;
  }
  try {
    return await subtle.verify({ name: 'ML-DSA-44' }, key, sig, msg);
  } catch {
    return false;
  }
}

let webHas: boolean | undefined;
async function webcryptoHasMldsa(): Promise<boolean> {
  if (webHas === undefined) {
    // It has ML-DSA-44 when it imports a valid key and verifies a valid signature.
    const s = seed(1);
    const m = new Uint8Array(1);
    webHas = subtle !== undefined && (await webVerify(noble.mldsa44PublicKey(s), m, noble.mldsa44Sign(s, m)).catch(() => false));
  }
  return webHas;
}

/** Every backend's verdict; they must agree (WebCrypto only sees inputs of the right lengths, as ours do). */
async function verdicts(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean[]> {
  const out = [noble.mldsa44Verify(pub, msg, sig)];
  if (hasNode) out.push(node.mldsa44Verify(pub, msg, sig));
  if (pub.length === MLDSA44_PUBLIC_KEY_BYTES && sig.length === MLDSA44_SIGNATURE_BYTES && (await webcryptoHasMldsa())) {
    out.push(await webVerify(pub, msg, sig));
  }
  return out;
}

describe('ML-DSA-44 backends', () => {
  it('report which implementation they use', async () => {
    // Printed so a run under Node 20 says why the node:crypto half is the noble one.
    console.log(
      `ML-DSA-44: node:crypto ${hasNode ? 'has it' : `has none on Node ${process.versions.node} (the node backend uses noble)`}; ` +
        `WebCrypto ${(await webcryptoHasMldsa()) ? 'has it' : 'has none'}`,
    );
    expect(node.mldsa44Impl).toBe(hasNode ? 'node' : 'noble');
    expect(noble.mldsa44Impl).toBe('noble');
  });

  it('derive one public key from one seed, and each verifies the other', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), (s, m) => {
        const pub = noble.mldsa44PublicKey(s);
        expect(pub.length).toBe(MLDSA44_PUBLIC_KEY_BYTES);
        expect(Buffer.from(node.mldsa44PublicKey(s))).toEqual(Buffer.from(pub));
        const a = node.mldsa44Sign(s, m);
        const b = noble.mldsa44Sign(s, m);
        expect(a.length).toBe(MLDSA44_SIGNATURE_BYTES);
        expect(noble.mldsa44Verify(pub, m, a)).toBe(true);
        expect(node.mldsa44Verify(pub, m, b)).toBe(true);
      }),
      { numRuns: 6 },
    );
  });

  it('give one verdict on valid, mutated and malformed keys and signatures', async () => {
    const s = seed(7);
    const pub = noble.mldsa44PublicKey(s);
    const msg = new TextEncoder().encode('subtree/v1 differential');
    const sig = (hasNode ? node : noble).mldsa44Sign(s, msg);
    const flip = (b: Uint8Array, i: number) => {
      const c = b.slice();
      c[i] ^= 0x01;
      return c;
    };
    const cases: Array<[string, Uint8Array, Uint8Array, Uint8Array, boolean]> = [
      ['valid', pub, msg, sig, true],
      ['other seed key', noble.mldsa44PublicKey(seed(8)), msg, sig, false],
      ['message byte flipped', pub, flip(msg, 3), sig, false],
      ['message extended', pub, Uint8Array.from([...msg, 0]), sig, false],
      ['empty message', pub, new Uint8Array(0), sig, false],
      ['key too short', pub.subarray(0, 1311), msg, sig, false],
      ['key too long', Uint8Array.from([...pub, 0]), msg, sig, false],
      ['empty key', new Uint8Array(0), msg, sig, false],
      ['signature too short', pub, msg, sig.subarray(0, 2419), false],
      ['signature too long', pub, msg, Uint8Array.from([...sig, 0]), false],
      ['empty signature', pub, msg, new Uint8Array(0), false],
      ['zero signature', pub, msg, new Uint8Array(MLDSA44_SIGNATURE_BYTES), false],
      ['0xff signature', pub, msg, new Uint8Array(MLDSA44_SIGNATURE_BYTES).fill(0xff), false],
      ['zero key', new Uint8Array(MLDSA44_PUBLIC_KEY_BYTES), msg, sig, false],
      // The hint section (the last 84 bytes) out of order or over its bound: malformed, not a signature.
      ['hint counts over omega', pub, msg, Uint8Array.from(sig.map((b, i) => (i >= MLDSA44_SIGNATURE_BYTES - 4 ? 0xff : b))), false],
    ];
    // One byte flipped in each part of the signature (c tilde, z, hints) and of the key (rho, t1).
    for (const i of [0, 31, 32, 1000, 2335, 2340, 2419]) cases.push([`signature byte ${i} flipped`, pub, msg, flip(sig, i), false]);
    for (const i of [0, 31, 32, 700, 1311]) cases.push([`key byte ${i} flipped`, flip(pub, i), msg, sig, false]);
    for (const [name, k, m, g, want] of cases) {
      const v = await verdicts(k, m, g);
      expect({ name, v }).toEqual({ name, v: v.map(() => want) });
    }
  });

  it('agree on random mutations of a valid signature', async () => {
    const s = seed(9);
    const pub = noble.mldsa44PublicKey(s);
    const msg = new TextEncoder().encode('mutations');
    const sig = noble.mldsa44Sign(s, msg);
    await fc.assert(
      fc.asyncProperty(fc.nat(MLDSA44_SIGNATURE_BYTES - 1), fc.integer({ min: 1, max: 255 }), async (i, x) => {
        const bad = sig.slice();
        bad[i] ^= x;
        const v = await verdicts(pub, msg, bad);
        expect(new Set(v).size).toBe(1);
      }),
      { numRuns: 25 },
    );
  });
});
