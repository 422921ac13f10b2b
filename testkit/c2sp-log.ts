// testkit/c2sp-log.ts: an independent C2SP log and tlog-witness client for tests and the bench,
// written from the specs alone (C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9:
// signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness; RFC 6962 §2.1 for the tree) with
// node:crypto only: it imports nothing of ours, so a test that drives our witness with it checks
// our code against the spec, not against itself. It builds the Merkle tree (MTH, SUBPROOF), signs
// checkpoint notes with a raw Ed25519 key, builds add-checkpoint bodies, and verifies the
// cosignature/v1 lines a witness answers. Left out: ECDSA and ML-DSA keys, tiles. Never imported
// by product code.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export const leafHash = (d: Uint8Array): Buffer => sha256(Uint8Array.of(0), d);
const nodeHash = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Uint8Array.of(1), l, r);

/** The largest power of two smaller than n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 MTH over leaf hashes. */
export function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]) over leaf hashes. */
export function consistencyProof(m: number, leaves: readonly Buffer[]): Buffer[] {
  const sub = (m: number, d: readonly Buffer[], b: boolean): Buffer[] => {
    const n = d.length;
    if (m === n) return b ? [] : [mth(d)];
    const k = split(n);
    if (m <= k) return [...sub(m, d.slice(0, k), b), mth(d.slice(k))];
    return [...sub(m - k, d.slice(k), false), mth(d.slice(0, k))];
  };
  if (m === 0 || m === leaves.length) return [];
  return sub(m, leaves, true);
}

/** RFC 8410 PKCS#8 wrapping of a raw Ed25519 seed. */
function fromSeed(seed: Uint8Array): { privateKey: KeyObject; publicKey: KeyObject } {
  if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

const rawPublic = (k: KeyObject): Buffer => Buffer.from(k.export({ format: 'jwk' }).x as string, 'base64url');
const keyId = (name: string, type: number, pub: Uint8Array): Buffer =>
  sha256(Buffer.from(name + '\n'), Uint8Array.of(type), pub).subarray(0, 4);

export interface SpecSigner {
  name: string;
  vkey: string;
  /** A note signature line (with em dash and newline) over `text`. */
  line(text: string): string;
  /** The same key, a signature that does not verify. */
  readonly bad: SpecSigner;
}

/** An Ed25519 note signer (type 0x01) under `name`; a 32-byte `seed` makes the key deterministic. */
export function specSigner(name: string, seed?: Uint8Array): SpecSigner {
  const { privateKey, publicKey } = seed ? fromSeed(seed) : generateKeyPairSync('ed25519');
  const pub = rawPublic(publicKey);
  const id = keyId(name, 0x01, pub);
  const vkey = `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(1), pub]).toString('base64')}`;
  const make = (tamper: boolean) => (text: string) => {
    const sig = sign(null, Buffer.from(text, 'utf8'), privateKey);
    if (tamper) sig[0] ^= 1;
    return `\u2014 ${name} ${Buffer.concat([id, sig]).toString('base64')}\n`;
  };
  const bad: SpecSigner = {
    name,
    vkey,
    line: make(true),
    get bad() {
      return bad;
    },
  };
  return { name, vkey, line: make(false), bad };
}

export class SpecLog {
  readonly leaves: Buffer[] = [];
  constructor(
    readonly origin: string,
    readonly signer: SpecSigner = specSigner(origin),
  ) {}

  append(n: number): this {
    for (let i = 0; i < n; i++) this.leaves.push(leafHash(Buffer.from(`${this.origin} leaf ${this.leaves.length}`)));
    return this;
  }

  root(size: number): Buffer {
    return mth(this.leaves.slice(0, size));
  }

  /** The checkpoint body (tlog-checkpoint: origin, size, base64 root). */
  body(size: number, root = this.root(size)): string {
    return `${this.origin}\n${size}\n${root.toString('base64')}\n`;
  }

  /** A signed note for size (signers default to the log's own). */
  note(size: number, opts: { root?: Buffer; signers?: SpecSigner[] } = {}): string {
    const text = this.body(size, opts.root);
    return `${text}\n${(opts.signers ?? [this.signer]).map((s) => s.line(text)).join('')}`;
  }

  proof(old: number, size: number): Buffer[] {
    return consistencyProof(old, this.leaves.slice(0, size));
  }

  /** A tlog-witness add-checkpoint body. */
  request(old: number, size: number, opts: { proof?: Buffer[]; root?: Buffer; signers?: SpecSigner[] } = {}): string {
    const proof = opts.proof ?? this.proof(old, size);
    return `old ${old}\n${proof.map((h) => h.toString('base64') + '\n').join('')}\n${this.note(size, opts)}`;
  }
}

/**
 * Check a witness's answer as the spec's client does: every line a note signature line; the one
 * whose name and key ID match the witness vkey (type 0x04) a cosignature/v1 over `body` with a
 * non-zero timestamp. Returns the timestamp, or throws saying why not.
 */
export function verifySpecCosignature(lines: string, witnessVkey: string, body: string): number {
  // The base64 key may itself contain '+': split at the first two only.
  const p1 = witnessVkey.indexOf('+');
  const p2 = witnessVkey.indexOf('+', p1 + 1);
  const [name, idHex, keyB64] = [witnessVkey.slice(0, p1), witnessVkey.slice(p1 + 1, p2), witnessVkey.slice(p2 + 1)];
  const key = Buffer.from(keyB64, 'base64');
  if (key[0] !== 0x04 || key.length !== 33) throw new Error('not a cosignature/v1 vkey');
  const pub = key.subarray(1);
  if (keyId(name, 0x04, pub).toString('hex') !== idHex) throw new Error('vkey key ID does not match');
  if (!lines.endsWith('\n')) throw new Error('the answer does not end in a newline');
  const spki = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url') }, format: 'jwk' });
  for (const l of lines.slice(0, -1).split('\n')) {
    if (!l.startsWith('\u2014 ')) throw new Error(`not a signature line: ${l}`);
    const [n, b64] = l.slice(2).split(' ');
    const raw = Buffer.from(b64, 'base64');
    if (n !== name || raw.subarray(0, 4).toString('hex') !== idHex) continue;
    if (raw.length !== 4 + 8 + 64) throw new Error(`cosignature of ${raw.length - 4} bytes`);
    const t = raw.readBigUInt64BE(4);
    if (t === 0n) throw new Error('timestamp 0');
    const msg = Buffer.from(`cosignature/v1\ntime ${t}\n${body}`, 'utf8');
    if (!verify(null, msg, spki, raw.subarray(12))) throw new Error('cosignature does not verify');
    return Number(t);
  }
  throw new Error('no line from the witness key');
}

/** POST an add-checkpoint body; status, content type and body text. */
export async function postAddCheckpoint(base: string, body: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${base}/add-checkpoint`, { method: 'POST', body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
