// A sequencer that signs its checkpoints with ML-DSA-44 as well as Ed25519 (docs/design.md §7a;
// docs/post-quantum.md; C2SP signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness,
// tlog-policy at commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), run as an operator runs it: each
// command a `cookwala` child process in an empty folder. `init --mldsa44` makes the key and prints
// its vkey; witness w1 (C2SP HTTP, an ML-DSA-44 cosigner of its own) admits the log by that
// ML-DSA-44 vkey ONLY, witness w2 (libp2p) by the sequencer's key; quorum 2. Devices post; then:
// `/tlog/{log}/checkpoint` carries the Ed25519 line first and the log's ML-DSA-44 line, both
// verified by a verifier written here from the specs (node:crypto Ed25519; ML-DSA-44 with noble and,
// when /work/node24 is there, node:crypto on Node 24), plus a cosignature/v1 from each witness; the
// well-known card and `policy to-tlog` name the key; `verify-event` PROVES the tlog-proof with the
// policy naming both keys and after a tlog-policy round trip, and refuses it with one byte of the
// log's ML-DSA-44 signature flipped; `export` + `verify` are VALID.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import * as nc from 'node:crypto';
import { join } from 'node:path';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { freePort, spawnCookwala, stopChild, tempDirs, waitFor, type Child } from '../testkit/index.ts';
import { formatSignerKey, SIG_MLDSA44 } from '../verifier/c2sp/note/index.ts';
import { refParseNote, refParseVkey, refVerifyCosignature, refVerifyEd25519Note } from '../testkit/c2sp-reference.ts';

const LOG = 'pq.example.org/missions/m-7';
const NODE24 = '/work/node24/node_modules/.bin/node';
const tmp = tempDirs('cookwala-pq-seq-');
const running: Child[] = [];
afterAll(async () => {
  for (const c of running.reverse()) await stopChild(c);
  await tmp.cleanup();
});

// --- ML-DSA-44 note lines, from the specs ------------------------------------------------------
const sha = (...b: Uint8Array[]) => nc.createHash('sha256').update(Buffer.concat(b)).digest();
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
const u8len = (s: string) => Buffer.concat([Buffer.of(Buffer.byteLength(s)), Buffer.from(s)]);
const MLDSA_SPKI = Buffer.from('30820532300b06096086480165030403110382052100', 'hex'); // RFC 9881, id-ml-dsa-44

/** The ML-DSA-44 line of `vkey` in a note: key ID checked, message rebuilt (tlog-cosignature subtree/v1). */
function mldsaLine(note: string, vkey: string): { msg: Buffer; sig: Buffer; pub: Buffer; timestamp: bigint } | undefined {
  const p1 = vkey.indexOf('+');
  const name = vkey.slice(0, p1);
  const id = Buffer.from(vkey.slice(p1 + 1, p1 + 9), 'hex');
  const raw = Buffer.from(vkey.slice(p1 + 10), 'base64');
  expect(raw[0]).toBe(0x06);
  const pub = raw.subarray(1);
  expect(pub.length).toBe(1312);
  expect(
    sha(Buffer.from(`${name}\n`), Buffer.of(0x06), pub)
      .subarray(0, 4)
      .equals(id),
  ).toBe(true);
  const n = refParseNote(note);
  const s = n?.sigs.find((x) => x.name === name && x.id.equals(id));
  if (!n || !s || s.sig.length !== 8 + 2420) return undefined;
  const [origin, size, root64] = n.text.split('\n');
  const timestamp = s.sig.readBigUInt64BE(0);
  const msg = Buffer.concat([
    Buffer.from('subtree/v1\n\0', 'latin1'),
    u8len(name),
    u64(timestamp),
    u8len(origin),
    u64(0n),
    u64(BigInt(size)),
    Buffer.from(root64, 'base64'),
  ]);
  return { msg, sig: s.sig.subarray(8), pub, timestamp };
}

/** node:crypto's verdict on Node 24 (a child process), or undefined where that binary is absent. */
function node24Verify(l: { msg: Buffer; sig: Buffer; pub: Buffer }): boolean | undefined {
  if (!existsSync(NODE24)) return undefined;
  const script = `const c=require('node:crypto');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);
const k=c.createPublicKey({key:Buffer.from(j.spki,'base64'),format:'der',type:'spki'});
process.stdout.write(String(c.verify(null,Buffer.from(j.msg,'base64'),k,Buffer.from(j.sig,'base64'))));});`;
  const input = JSON.stringify({
    spki: Buffer.concat([MLDSA_SPKI, l.pub]).toString('base64'),
    msg: l.msg.toString('base64'),
    sig: l.sig.toString('base64'),
  });
  const r = spawnSync(NODE24, ['-e', script], { input, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout === 'true';
}

describe('a sequencer with an ML-DSA-44 log key, witnessed over HTTP and libp2p', () => {
  it('serves both log lines, witnesses cosign, and every verifier checks the ML-DSA-44 one', { timeout: 600_000 }, async () => {
    const dir = await tmp.make();
    const port = async () => String(await freePort());
    const [seqPort, w1Http, w1P2p, w2Http, w2P2p] = [await port(), await port(), await port(), await port(), await port()];
    const run = async (args: string[]): Promise<string> => {
      const c = spawnCookwala(args, {}, dir);
      const { code } = await c.exited;
      expect(code, `cookwala ${args.join(' ')}\nstdout:\n${c.out()}\nstderr:\n${c.err()}`).toBe(0);
      return c.out();
    };
    const runFails = async (args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
      const c = spawnCookwala(args, {}, dir);
      const { code } = await c.exited;
      return { code, out: c.out(), err: c.err() };
    };
    const start = async (args: string[]) => {
      const c = spawnCookwala(args, { COOKWALA_LOG_LEVEL: 'info' }, dir);
      running.push(c);
      await waitFor(() => c.logs.events('listening')[0] ?? (c.proc.exitCode !== null ? false : undefined), {
        timeoutMs: 120_000,
        what: `cookwala ${args[0]} to listen`,
        detail: () => c.err() + c.out().slice(-2000),
      });
    };

    // init --mldsa44: the key file (0600) and its vkey printed beside the Ed25519 one.
    const init = await run(['init', '--data', 'seq', '--log', LOG, '--port', seqPort, '--mldsa44']);
    const edVkey = /C2SP vkey (\S+)/.exec(init)?.[1];
    const mlVkey = /C2SP mldsa44 vkey (\S+)/.exec(init)?.[1];
    expect(edVkey).toMatch(new RegExp(`^${LOG.replace(/[./]/g, '\\$&')}\\+[0-9a-f]{8}\\+`));
    expect(mlVkey).toMatch(new RegExp(`^${LOG.replace(/[./]/g, '\\$&')}\\+[0-9a-f]{8}\\+B[g-v]`));
    const skey = await readFile(join(dir, 'seq', 'sequencer.mldsa44.skey'), 'utf8');
    expect(skey).toMatch(new RegExp(`^PRIVATE\\+KEY\\+${LOG.replace(/[./]/g, '\\$&')}\\+[0-9a-f]{8}\\+B[g-v]`));
    // Never overwritten: a second init keeps it, an import of another key is refused.
    await run(['init', '--data', 'seq', '--mldsa44']);
    expect(await readFile(join(dir, 'seq', 'sequencer.mldsa44.skey'), 'utf8')).toBe(skey);
    await writeFile(join(dir, 'other.skey'), formatSignerKey(LOG, SIG_MLDSA44, nc.randomBytes(32)) + '\n');
    const other = await runFails(['init', '--data', 'seq', '--mldsa44-key', 'other.skey']);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/holds another ML-DSA-44 key; it is never overwritten/);

    await run([
      'witness',
      'init',
      '--data',
      'w1',
      '--name',
      'w1',
      '--http-port',
      w1Http,
      '--listen',
      `/ip4/127.0.0.1/tcp/${w1P2p}`,
      '--mldsa44',
    ]);
    await run(['witness', 'init', '--data', 'w2', '--name', 'w2', '--http-port', w2Http, '--listen', `/ip4/127.0.0.1/tcp/${w2P2p}`]);
    // w1 knows the log by its ML-DSA-44 vkey only; w2 by the sequencer's KeyRecord.
    await run(['witness', 'add-log', '--data', 'w1', '--vkey', mlVkey!]);
    await run(['witness', 'add-log', '--data', 'w2', '--log', LOG, '--sequencer-key', 'seq/sequencer.keyrecord.json']);
    await run(['policy', 'add-witness', '--data', 'seq', '--from', 'w1/witness-info.json', '--transport', 'http']);
    await run(['policy', 'add-witness', '--data', 'seq', '--from', 'w2/witness-info.json', '--transport', 'libp2p', '--quorum', '2']);
    const policy = JSON.parse(await readFile(join(dir, 'seq', 'policy.json'), 'utf8'));
    expect(policy.logMldsaVkey).toBe(mlVkey);
    await start(['witness', '--data', 'w1']);
    await start(['witness', '--data', 'w2']);
    await start(['sequencer', '--data', 'seq']);
    const base = `http://127.0.0.1:${seqPort}`;
    await run([
      'executor',
      '--data',
      'sim',
      '--sequencer',
      base,
      '--log',
      LOG,
      '--simulate',
      '2',
      '--missions',
      '1',
      '--consent',
      'open',
      '--register-token-file',
      'seq/operator.token',
    ]);
    const cp = await run(['checkpoint', '--url', base, '--log', LOG, '--wait', '120s']);
    expect(cp).toMatch(/2 cosignatures \(quorum 2 of 2 witnesses\): met/);

    // The C2SP checkpoint: Ed25519 line first, the log's ML-DSA-44 line, a cosignature/v1 per witness.
    const res = await fetch(`${base}/tlog/${encodeURIComponent(LOG)}/checkpoint`);
    expect(res.status).toBe(200);
    const note = await res.text();
    const n = refParseNote(note)!;
    expect(n.sigs.slice(0, 2).map((s) => s.name)).toEqual([LOG, LOG]);
    expect(
      n.sigs
        .slice(2)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['w1', 'w2']);
    expect(n.sigs[0].sig.length).toBe(64);
    expect(refVerifyEd25519Note(n, refParseVkey(edVkey!))).toBe(true);
    const line = mldsaLine(note, mlVkey!);
    expect(line).toBeDefined();
    expect(Number(line!.timestamp)).toBeGreaterThan(1_700_000_000);
    expect(ml_dsa44.verify(line!.sig, line!.msg, line!.pub)).toBe(true);
    const byNode24 = node24Verify(line!);
    if (byNode24 === undefined) console.log(`${NODE24} is absent: the ML-DSA-44 line is checked with noble only`);
    else expect(byNode24).toBe(true);
    const flipped = Buffer.from(line!.sig);
    flipped[7] ^= 1;
    expect(ml_dsa44.verify(flipped, line!.msg, line!.pub)).toBe(false);
    if (byNode24 !== undefined) expect(node24Verify({ ...line!, sig: flipped })).toBe(false);
    for (const w of ['w1', 'w2']) {
      const info = JSON.parse(await readFile(join(dir, w, 'witness-info.json'), 'utf8'));
      expect(refVerifyCosignature(n, refParseVkey(info.c2sp.vkey)).ok, w).toBe(true);
    }

    // The card and the tlog-policy name the key.
    const wk = (await (await fetch(`${base}/.well-known/cookwala.json`)).json()) as { c2sp: Array<{ log: string; mldsaVkey?: string }> };
    expect(wk.c2sp.find((c) => c.log === LOG)?.mldsaVkey).toBe(mlVkey);
    await run(['policy', 'to-tlog', 'seq/policy.json', '--out', 'policy.tlog']);
    const tlog = await readFile(join(dir, 'policy.tlog'), 'utf8');
    expect(tlog.split('\n').filter((l) => l.startsWith('log '))).toEqual([`log ${edVkey}`, `log ${mlVkey}`]);
    await run(['policy', 'from-tlog', 'policy.tlog', '--out', 'policy.from-tlog.json']);

    // tlog-proof: PROVED with either policy; one byte of the log's ML-DSA-44 signature flipped is refused.
    await run(['proof', '--url', base, '--log', LOG, '--seq', '1', '--format', 'tlog-proof', '--out', 'e1.tlog-proof']);
    const proof = await readFile(join(dir, 'e1.tlog-proof'), 'utf8');
    // Its note (after the blank line that ends the proof hashes) carries the log's ML-DSA-44 line too.
    const proofLine = mldsaLine(proof.slice(proof.indexOf('\n\n') + 2), mlVkey!);
    expect(proofLine && ml_dsa44.verify(proofLine.sig, proofLine.msg, proofLine.pub)).toBe(true);
    for (const p of ['seq/policy.json', 'policy.from-tlog.json'])
      expect(await run(['verify-event', 'e1.tlog-proof', '--policy', p])).toMatch(/^PROVED \(c2sp\.org\/tlog-proof@v1\)/);
    const mlLine = proof.split('\n').find((l) => l.startsWith(`\u2014 ${LOG} `) && l.length > 3000)!;
    const raw = Buffer.from(mlLine.split(' ')[2], 'base64');
    raw[4 + 8 + 100] ^= 1;
    await writeFile(join(dir, 'bad.tlog-proof'), proof.replace(mlLine, `\u2014 ${LOG} ${raw.toString('base64')}`));
    const bad = await runFails(['verify-event', 'bad.tlog-proof', '--policy', 'seq/policy.json']);
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out + bad.err).toMatch(/bad_signature/);
    // A policy that names the log by its Ed25519 key alone skips the ML-DSA-44 line (an unknown key).
    await writeFile(join(dir, 'ed-only.json'), JSON.stringify({ ...policy, logMldsaVkey: undefined }));
    expect(await run(['verify-event', 'bad.tlog-proof', '--policy', 'ed-only.json'])).toMatch(/^PROVED/);

    // The bundle: VALID, its checkpoints carrying the log's ML-DSA-44 signature.
    await run(['export', '--url', base, '--log', LOG, '--out', 'log.ndjson']);
    const bundle = await readFile(join(dir, 'log.ndjson'), 'utf8');
    expect(bundle).toContain('"alg":"note-mldsa44"');
    expect(await run(['verify', 'log.ndjson', '--policy', 'seq/policy.json'])).toMatch(/VALID/);
    expect(await run(['verify', 'log.ndjson', '--policy', 'policy.from-tlog.json'])).toMatch(/VALID/);
  });
});
