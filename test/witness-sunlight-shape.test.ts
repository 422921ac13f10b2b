// Our witness cosigns a checkpoint shaped like Sunlight's (c2sp.org tlog-checkpoint,
// tlog-cosignature, signed-note, tlog-witness at C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9):
// the log signs with ML-DSA-44 (type 0x06, key name = origin) beside an RFC 6962 TreeHeadSignature
// line (0x05), and adds two grease lines (one under grease.invalid, one under the origin with a
// key ID that names no key), all four in random order. The log's signer is written here from the
// specs (the subtree/v1 message, key IDs, the 0x05 struct) on @noble/post-quantum and node:crypto,
// none of our code. A real `cookwala witness` child, admitted the log by its ML-DSA-44 vkey and
// given an ML-DSA-44 key of its own (`witness init --mldsa44`), answers 200 with an Ed25519
// cosignature/v1 line and an ML-DSA-44 line; both verify with node:crypto (the ML-DSA-44 half only
// where node:crypto has it, Node >= 24.6; the reason is printed otherwise) and with noble.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as nc from 'node:crypto';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { postAddCheckpoint, SpecLog, verifySpecCosignature } from '../testkit/c2sp-log.ts';

const ORIGIN = 'sunlight.example/2026h1';
const tmp = tempDirs('cookwala-sunlight-shape-');
let witness: (Child & { info: { http?: string; c2sp?: { name: string; vkey: string; mldsaVkey?: string } } }) | undefined;

// --- The log's signer, from the specs -------------------------------------------------------
const sha = (...b: Uint8Array[]) => nc.createHash('sha256').update(Buffer.concat(b)).digest();
const keyId = (name: string, type: number, key: Uint8Array) => sha(Buffer.from(`${name}\n`), Buffer.of(type), key).subarray(0, 4);
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
const u8len = (s: string) => Buffer.concat([Buffer.of(Buffer.byteLength(s)), Buffer.from(s)]);

/** tlog-cosignature cosigned_message: label, name, timestamp, origin, start, end, hash. */
function cosignedMessage(name: string, ts: bigint, origin: string, end: number, root: Buffer): Buffer {
  return Buffer.concat([Buffer.from('subtree/v1\n\0', 'latin1'), u8len(name), u64(ts), u8len(origin), u64(0n), u64(BigInt(end)), root]);
}

const mlSeed = nc.randomBytes(32);
const ml = ml_dsa44.keygen(mlSeed);
const mlId = keyId(ORIGIN, 0x06, ml.publicKey);
const logVkey = `${ORIGIN}+${mlId.toString('hex')}+${Buffer.concat([Buffer.of(0x06), ml.publicKey]).toString('base64')}`;
const ecdsa = nc.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = ecdsa.publicKey.export({ format: 'der', type: 'spki' });
const rfcId = keyId(ORIGIN, 0x05, sha(spki));

function sunlightLines(text: string, opts: { flipMldsa?: boolean; mldsa?: boolean } = {}): string[] {
  const [origin, size, root64] = text.split('\n');
  const root = Buffer.from(root64, 'base64');
  const now = BigInt(Date.now());
  const out: string[] = [];
  if (opts.mldsa !== false) {
    const ts = now / 1000n;
    const sig = Buffer.from(ml_dsa44.sign(cosignedMessage(ORIGIN, ts, origin, Number(size), root), ml.secretKey));
    if (opts.flipMldsa) sig[500] ^= 1;
    out.push(`\u2014 ${ORIGIN} ${Buffer.concat([mlId, u64(ts), sig]).toString('base64')}\n`);
  }
  // static-ct-api: u64 timestamp (ms) || digitally-signed TreeHeadSignature (v1, tree_hash).
  const ths = Buffer.concat([Buffer.of(0, 1), u64(now), u64(BigInt(size)), root]);
  const der = nc.sign('sha256', ths, ecdsa.privateKey);
  const ds = Buffer.concat([Buffer.of(4, 3), Buffer.of(der.length >> 8, der.length & 0xff), der]);
  out.push(`\u2014 ${ORIGIN} ${Buffer.concat([rfcId, u64(now), ds]).toString('base64')}\n`);
  // Grease: random bytes under grease.invalid; under the origin, a key ID of no key.
  const g1 = nc.randomBytes(5 + nc.randomInt(100));
  const g2 = Buffer.concat([
    sha(Buffer.from('grease\n'), Buffer.of(nc.randomInt(100))).subarray(0, 4),
    nc.randomBytes(1 + nc.randomInt(100)),
  ]);
  out.push(`\u2014 grease.invalid ${g1.toString('base64')}\n`, `\u2014 ${ORIGIN} ${g2.toString('base64')}\n`);
  for (let i = out.length - 1; i > 0; i--) {
    const j = nc.randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const log = new SpecLog(ORIGIN).append(20);
function request(old: number, size: number, opts: { flipMldsa?: boolean; mldsa?: boolean } = {}): string {
  const text = log.body(size);
  const proof = log.proof(old, size).map((h) => h.toString('base64') + '\n');
  return `old ${old}\n${proof.join('')}\n${text}\n${sunlightLines(text, opts).join('')}`;
}

// --- Checking the answer as a client does ----------------------------------------------------
const hasNodeMldsa = (() => {
  try {
    return nc.generateKeyPairSync('ml-dsa-44' as never).publicKey.asymmetricKeyType === ('ml-dsa-44' as never);
  } catch {
    return false;
  }
})();

/** The ML-DSA-44 line of `vkey` in `lines`, verified with noble and node:crypto; its timestamp. */
function verifyMldsaLine(lines: string, vkey: string, body: string): { timestamp: bigint; checkedBy: string[] } {
  const [name, idHex] = vkey.split('+');
  const key = Buffer.from(vkey.slice(name.length + idHex.length + 2), 'base64');
  expect(key[0]).toBe(0x06);
  const pub = key.subarray(1);
  expect(keyId(name, 0x06, pub).toString('hex')).toBe(idHex);
  const line = lines
    .split('\n')
    .filter((l) => l.startsWith(`\u2014 ${name} `))
    .map((l) => Buffer.from(l.split(' ')[2], 'base64'))
    .find((raw) => raw.subarray(0, 4).toString('hex') === idHex);
  if (!line) throw new Error('no ML-DSA-44 line from the witness key');
  expect(line.length).toBe(4 + 8 + 2420);
  const ts = line.readBigUInt64BE(4);
  expect(ts).toBeGreaterThan(0n);
  const [origin, size, root64] = body.split('\n');
  const msg = cosignedMessage(name, ts, origin, Number(size), Buffer.from(root64, 'base64'));
  const sig = line.subarray(12);
  const checkedBy = [];
  expect(ml_dsa44.verify(sig, msg, pub)).toBe(true);
  checkedBy.push('noble');
  if (hasNodeMldsa) {
    const k = nc.createPublicKey({
      key: Buffer.concat([Buffer.from('30820532300b06096086480165030403110382052100', 'hex'), pub]),
      format: 'der',
      type: 'spki',
    });
    expect(nc.verify(null, msg, k, sig)).toBe(true);
    checkedBy.push('node:crypto');
  }
  return { timestamp: ts, checkedBy };
}

beforeAll(async () => {
  const dir = await tmp.make();
  const init = await runCookwala(['witness', 'init', '--data', dir, '--name', 'w-pq', '--http-port', '0', '--mldsa44']);
  expect(init.code, init.err).toBe(0);
  expect(init.out).toMatch(/^c2sp w-pq mldsa44 vkey w-pq\+[0-9a-f]{8}\+/m);
  const add = await runCookwala(['witness', 'add-log', '--data', dir, '--vkey', logVkey]);
  expect(add.code, add.err).toBe(0);
  witness = await startWitnessProcess(dir);
}, 120_000);

afterAll(async () => {
  if (witness) await stopChild(witness);
  await tmp.cleanup();
});

describe('a Sunlight-shaped checkpoint (ML-DSA-44 + RFC 6962 + grease, random order)', () => {
  it('is cosigned with an Ed25519 and an ML-DSA-44 line, both verifying', async () => {
    if (!hasNodeMldsa) console.log(`node:crypto on Node ${process.versions.node} has no ML-DSA-44: its lines are checked with noble only`);
    const base = witness!.info.http!;
    const c2sp = witness!.info.c2sp!;
    expect(c2sp.mldsaVkey).toBeDefined();
    for (const [old, size] of [
      [0, 10],
      [10, 17],
    ]) {
      const r = await postAddCheckpoint(base, request(old, size));
      expect(r.status, r.text).toBe(200);
      const lines = r.text.slice(0, -1).split('\n');
      expect(lines).toHaveLength(2);
      expect(verifySpecCosignature(r.text, c2sp.vkey, log.body(size))).toBeGreaterThan(1_700_000_000);
      const m = verifyMldsaLine(r.text, c2sp.mldsaVkey!, log.body(size));
      expect(m.checkedBy).toEqual(hasNodeMldsa ? ['noble', 'node:crypto'] : ['noble']);
    }
  });

  it('refuses the log ML-DSA-44 signature with one byte flipped, and a note with only unknown lines (403)', async () => {
    const base = witness!.info.http!;
    expect((await postAddCheckpoint(base, request(17, 19, { flipMldsa: true }))).status).toBe(403);
    expect((await postAddCheckpoint(base, request(17, 19, { mldsa: false }))).status).toBe(403);
    // Nothing moved: the next good one still goes from 17.
    expect((await postAddCheckpoint(base, request(17, 19))).status).toBe(200);
  });
});
