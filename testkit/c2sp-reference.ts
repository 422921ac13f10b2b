// testkit/c2sp-reference.ts: an independent, minimal C2SP toolkit for tests and benches, written
// from the specs alone (C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9: signed-note,
// tlog-checkpoint, tlog-cosignature, tlog-witness, tlog-tiles) and RFC 6962 / RFC 9162, on
// node:crypto only. It imports nothing of ours, so a bug shared with verifier/c2sp/note or
// verifier/merkle cannot make both sides agree. Pieces: Ed25519 vkeys and note signature lines,
// a tlog-witness (node:http, POST /add-checkpoint with the spec's status table, cosignature/v1),
// and the RFC 6962 hashing a tiles client needs (MTH, inclusion paths, consistency checking).
// Left out: ECDSA, ML-DSA, sign-subtree, persistence (the witness keeps its state in memory).

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export function ed25519PublicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' });
}

export function ed25519Raw(pub: KeyObject): Buffer {
  return (pub.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12);
}

/** signed-note: key ID = SHA-256(name || 0x0A || type || key)[:4]. */
export function refKeyId(name: string, type: number, raw: Uint8Array): Buffer {
  return sha256(Buffer.from(name + '\n'), Buffer.of(type), raw).subarray(0, 4);
}

export function refVkey(name: string, type: number, raw: Uint8Array): string {
  return `${name}+${refKeyId(name, type, raw).toString('hex')}+${Buffer.concat([Buffer.of(type), raw]).toString('base64')}`;
}

export interface RefVkey {
  name: string;
  id: Buffer;
  type: number;
  key: KeyObject;
}

export function refParseVkey(vkey: string): RefVkey {
  const p1 = vkey.indexOf('+');
  const name = vkey.slice(0, p1);
  const id = vkey.slice(p1 + 1, p1 + 9);
  const b64 = vkey.slice(p1 + 10); // the base64 key may itself hold '+'
  const m = Buffer.from(b64, 'base64');
  return { name, id: Buffer.from(id, 'hex'), type: m[0], key: ed25519PublicKeyObject(m.subarray(1)) };
}

export interface RefNote {
  text: string;
  sigs: Array<{ name: string; id: Buffer; sig: Buffer }>;
}

/** signed-note: text up to the last blank line, then "— name base64(id||sig)" lines. */
export function refParseNote(note: string): RefNote | undefined {
  const i = note.lastIndexOf('\n\n');
  if (i < 0 || !note.endsWith('\n')) return undefined;
  const sigs: RefNote['sigs'] = [];
  for (const line of note.slice(i + 2, -1).split('\n')) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) return undefined;
    const b = Buffer.from(m[2], 'base64');
    if (b.length < 5) return undefined;
    sigs.push({ name: m[1], id: b.subarray(0, 4), sig: b.subarray(4) });
  }
  return { text: note.slice(0, i + 1), sigs };
}

/** Check an Ed25519 note signature (type 0x01) by `vk` over the text. */
export function refVerifyEd25519Note(n: RefNote, vk: RefVkey): boolean {
  const s = n.sigs.find((x) => x.name === vk.name && x.id.equals(vk.id));
  return !!s && s.sig.length === 64 && verify(null, Buffer.from(n.text), vk.key, s.sig);
}

/** tlog-cosignature: message "cosignature/v1\ntime <t>\n" + body; signature = u64 t || Ed25519. */
export function refVerifyCosignature(n: RefNote, vk: RefVkey): { ok: boolean; time?: number } {
  const s = n.sigs.find((x) => x.name === vk.name && x.id.equals(vk.id));
  if (!s || s.sig.length !== 72) return { ok: false };
  const t = Number(s.sig.readBigUInt64BE(0));
  const msg = Buffer.from(`cosignature/v1\ntime ${t}\n${n.text}`);
  return { ok: t > 0 && verify(null, msg, vk.key, s.sig.subarray(8)), time: t };
}

export interface RefCheckpoint {
  origin: string;
  size: number;
  root: Buffer;
}

export function refParseCheckpoint(text: string): RefCheckpoint | undefined {
  const lines = text.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '' || !/^(0|[1-9][0-9]*)$/.test(lines[1])) return undefined;
  const root = Buffer.from(lines[2], 'base64');
  if (root.length !== 32 || root.toString('base64') !== lines[2]) return undefined;
  return { origin: lines[0], size: Number(lines[1]), root };
}

// RFC 6962 §2.1 hashing.
export const refLeafHash = (data: Uint8Array): Buffer => sha256(Buffer.of(0), data);
export const refNodeHash = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Buffer.of(1), l, r);
const split = (n: number): number => 2 ** Math.floor(Math.log2(n - 1)); // largest power of 2 < n

/** MTH over leaf hashes [lo, hi). */
export function refMth(leaves: readonly Buffer[], lo = 0, hi = leaves.length): Buffer {
  const n = hi - lo;
  if (n === 0) return sha256();
  if (n === 1) return leaves[lo];
  const k = split(n);
  return refNodeHash(refMth(leaves, lo, lo + k), refMth(leaves, lo + k, hi));
}

/** RFC 6962 §2.1.1 PATH(m, D[n]) over leaf hashes. */
export function refInclusionPath(leaves: readonly Buffer[], m: number, lo = 0, hi = leaves.length): Buffer[] {
  const n = hi - lo;
  if (n <= 1) return [];
  const k = split(n);
  return m < k
    ? [...refInclusionPath(leaves, m, lo, lo + k), refMth(leaves, lo + k, hi)]
    : [...refInclusionPath(leaves, m - k, lo + k, hi), refMth(leaves, lo, lo + k)];
}

/** RFC 9162 §2.1.3.2 inclusion verification. */
export function refVerifyInclusion(leaf: Buffer, index: number, size: number, proof: readonly Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = refNodeHash(p, r);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
    } else r = refNodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2 consistency verification (sizes 0 < m < n). */
export function refVerifyConsistency(m: number, n: number, proof: readonly Buffer[], root1: Buffer, root2: Buffer): boolean {
  if (m <= 0 || m >= n || proof.length === 0) return false;
  let path = proof.slice();
  if ((m & (m - 1)) === 0 && Number.isSafeInteger(m)) path = [root1, ...path];
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = refNodeHash(c, fr);
      sr = refNodeHash(c, sr);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
    } else sr = refNodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(root1) && sr.equals(root2);
}

export interface RefWitnessLog {
  origin: string;
  vkey: string;
}

export interface RefWitness {
  readonly url: string;
  readonly name: string;
  /** The cosignature/v1 vkey (type 0x04). */
  readonly vkey: string;
  /** The raw Ed25519 public key (32 bytes). */
  readonly publicKey: Buffer;
  /** The latest cosigned (size, root) per origin. */
  state(origin: string): { size: number; root: Buffer } | undefined;
  /** Force the next answers, one status per request (429 carries Retry-After: 0; 409 with `size` a size body). */
  script(...answers: Array<{ status: number; size?: number; retryAfter?: string }>): void;
  /** Requests answered so far, with their status. */
  readonly answered: Array<{ status: number; old: number; size: number | undefined }>;
  /** Resolves when the witness has answered `n` requests in total. */
  answeredCount(n: number): Promise<void>;
  close(): Promise<void>;
}

const EMPTY_ROOT = sha256();

/**
 * A minimal tlog-witness from the spec: per request, 404 unknown origin, 403 no verifying trusted
 * signature (or a trusted one that fails), 400 old > size, 409 + `<size>\n` text/x.tlog.size when
 * old is not the stored size, 422 for a bad size-0 root, a proof with old 0, a proof that does not
 * verify, or the same size with another root; else the state moves and 200 returns one
 * cosignature/v1 line (timestamp = now in seconds).
 */
export async function startRefWitness(o: { name: string; logs: RefWitnessLog[]; now?: () => number }): Promise<RefWitness> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = ed25519Raw(publicKey);
  const id = refKeyId(o.name, 0x04, raw);
  const logs = new Map(o.logs.map((l) => [l.origin, refParseVkey(l.vkey)]));
  const states = new Map<string, { size: number; root: Buffer }>();
  const scripted: Array<{ status: number; size?: number; retryAfter?: string }> = [];
  const answered: RefWitness['answered'] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const now = o.now ?? Date.now;

  const answer = (
    res: ServerResponse,
    status: number,
    body = '',
    type = 'text/plain; charset=utf-8',
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  };

  function handle(body: string): {
    status: number;
    body?: string;
    type?: string;
    headers?: Record<string, string>;
    old: number;
    size?: number;
  } {
    const blank = body.indexOf('\n\n');
    if (blank < 0) return { status: 400, old: -1 };
    const head = body.slice(0, blank).split('\n');
    const m = /^old (0|[1-9][0-9]*)$/.exec(head[0]);
    if (!m) return { status: 400, old: -1 };
    const old = Number(m[1]);
    const proof = head.slice(1).map((l) => Buffer.from(l, 'base64'));
    if (proof.length > 63 || proof.some((p) => p.length !== 32)) return { status: 400, old };
    const note = refParseNote(body.slice(blank + 2));
    const cp = note && refParseCheckpoint(note.text);
    if (!note || !cp) return { status: 400, old };
    const vk = logs.get(cp.origin);
    if (!vk) return { status: 404, old, size: cp.size };
    const mine = note.sigs.filter((s) => s.name === vk.name && s.id.equals(vk.id));
    if (mine.length === 0 || !mine.every((s) => s.sig.length === 64 && verify(null, Buffer.from(note.text), vk.key, s.sig)))
      return { status: 403, old, size: cp.size };
    if (old > cp.size) return { status: 400, old, size: cp.size };
    const st = states.get(cp.origin) ?? { size: 0, root: EMPTY_ROOT };
    const forced = scripted.shift();
    if (forced) {
      if (forced.status === 409 && forced.size !== undefined)
        return { status: 409, body: `${forced.size}\n`, type: 'text/x.tlog.size', old, size: cp.size };
      return {
        status: forced.status,
        headers: forced.retryAfter !== undefined ? { 'retry-after': forced.retryAfter } : {},
        old,
        size: cp.size,
      };
    }
    if (old !== st.size) return { status: 409, body: `${st.size}\n`, type: 'text/x.tlog.size', old, size: cp.size };
    if (cp.size === 0 && !cp.root.equals(EMPTY_ROOT)) return { status: 422, old, size: cp.size };
    if (old === 0 && proof.length > 0) return { status: 422, old, size: cp.size };
    if (old === cp.size && !cp.root.equals(st.root)) return { status: 422, old, size: cp.size };
    if (old > 0 && old < cp.size && !refVerifyConsistency(old, cp.size, proof, st.root, cp.root))
      return { status: 422, old, size: cp.size };
    states.set(cp.origin, { size: cp.size, root: cp.root });
    const t = Math.floor(now() / 1000);
    const tbuf = Buffer.alloc(8);
    tbuf.writeBigUInt64BE(BigInt(t));
    const sig = sign(null, Buffer.from(`cosignature/v1\ntime ${t}\n${note.text}`), privateKey);
    return { status: 200, body: `\u2014 ${o.name} ${Buffer.concat([id, tbuf, sig]).toString('base64')}\n`, old, size: cp.size };
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/add-checkpoint') return answer(res, 404);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = handle(Buffer.concat(chunks).toString('utf8'));
      answer(res, r.status, r.body ?? '', r.type, r.headers);
      answered.push({ status: r.status, old: r.old, size: r.size });
      for (const w of waiters.splice(0)) (answered.length >= w.n ? w.resolve : () => waiters.push(w))();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    name: o.name,
    vkey: refVkey(o.name, 0x04, raw),
    publicKey: raw,
    state: (origin) => states.get(origin),
    script: (...a) => void scripted.push(...a),
    answered,
    answeredCount: (n) => (answered.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An Ed25519 key pair as raw bytes (for a test's own log signer). */
export function refKeyPair(): { seed: Buffer; publicKey: Buffer; privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = (privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).subarray(PKCS8_ED25519.length);
  return {
    seed,
    publicKey: ed25519Raw(publicKey),
    privateKey: createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }),
  };
}
