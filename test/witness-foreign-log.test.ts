// A witness operator's flow through the CLI and HTTP only, as README.md "Quick start: witness
// operator" writes it (child processes, real LevelDB, real fastify on 127.0.0.1): `witness init`
// with a C2SP name and an existing C2SP private key (the same vkey as the original key gives), the
// witness started, a foreign C2SP log admitted by `witness add-log --vkey` WHILE it runs (no
// restart), a checkpoint of that log cosigned over POST /add-checkpoint (200, a cosignature/v1 line
// of the imported key), then a forked checkpoint at the same size (422, c2sp.org/tlog-witness):
// logged as `fork_detected`, listed in GET /v1/forks, and proved by `cookwala verify-fork` on that
// very answer (exit 0). The foreign log is testkit/c2sp-log.ts, written from the signed-note and
// tlog-checkpoint specs on node:crypto alone; the witness's key file and its expected vkey are built
// here from the signed-note key rules, not by our code. Every stdout line of the witness is JSON
// with an `event`.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { SpecLog, postAddCheckpoint, verifySpecCosignature } from '../testkit/c2sp-log.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import type { WitnessInfo } from '../witness/server/service.ts';

const C2SP_NAME = 'witness.test/w1';
const sha256 = (...p: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const x of p) h.update(x);
  return h.digest();
};

/** An Ed25519 key pair from a seed (PKCS#8 prefix of RFC 8410), and its raw public key. */
function ed25519FromSeed(seed: Buffer): Buffer {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const pub = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
  return Buffer.from(pub.export({ format: 'jwk' }).x as string, 'base64url');
}

/** signed-note: key ID = first 4 bytes of SHA-256(name || "\n" || type || public key). */
const keyId = (name: string, type: number, pub: Buffer) =>
  sha256(Buffer.from(`${name}\n`), Buffer.of(type), pub)
    .subarray(0, 4)
    .toString('hex');

let root: string;
let witness: (Child & { info: WitnessInfo }) | undefined;

beforeAll(async () => {
  root = await makeTempDir('cookwala-foreign-');
});
afterAll(async () => {
  if (witness) await stopChild(witness, 'SIGKILL');
  await removeDir(root);
});

describe('witness operator: a foreign C2SP log, admitted live, cosigned, its fork proved', () => {
  it('init --c2sp-name --key, run, add-log --vkey while running, cosign, fork_detected, /v1/forks, verify-fork exit 0', async () => {
    const dir = join(root, 'wit');
    // An existing witness key in the Go note package's private key form (type 0x01, Ed25519 seed).
    const seed = sha256(Buffer.from('an existing witness seed'));
    const pub = ed25519FromSeed(seed);
    const skey = `PRIVATE+KEY+${C2SP_NAME}+${keyId(C2SP_NAME, 0x01, pub)}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}`;
    await writeFile(join(root, 'witness.skey'), skey + '\n', { mode: 0o600 });
    // The original witness's cosignature/v1 vkey (type 0x04, same name, same public key).
    const wantVkey = `${C2SP_NAME}+${keyId(C2SP_NAME, 0x04, pub)}+${Buffer.concat([Buffer.of(4), pub]).toString('base64')}`;

    const init = await runCookwala([
      'witness',
      'init',
      '--data',
      dir,
      '--c2sp-name',
      C2SP_NAME,
      '--key',
      join(root, 'witness.skey'),
      '--http-port',
      '0',
    ]);
    expect(init.code, init.err).toBe(0);
    expect(init.out).toContain(`c2sp ${C2SP_NAME} vkey ${wantVkey}`);

    witness = await startWitnessProcess(dir);
    expect(witness.info.c2sp?.vkey).toBe(wantVkey);
    const http = witness.info.http!;
    await witness.logs.next('listening');

    const log = new SpecLog('log.test/foreign').append(8);
    // Not admitted yet: 404 (tlog-witness "unknown log").
    expect((await postAddCheckpoint(http, log.request(0, 5))).status).toBe(404);

    // Admitted while it runs: add-log returns once the running witness has taken it.
    const add = await runCookwala(['witness', 'add-log', '--data', dir, '--vkey', log.signer.vkey]);
    expect(add.code, add.err).toBe(0);
    expect(add.out).toMatch(/the running witness at http:\/\/127\.0\.0\.1:\d+ cosigns log\.test\/foreign now/);
    await witness.logs.next('log_admitted', (r) => r.log === log.origin);

    const cosigned = await postAddCheckpoint(http, log.request(0, 5));
    expect(cosigned.status, cosigned.text).toBe(200);
    expect(verifySpecCosignature(cosigned.text, wantVkey, log.body(5))).toBeGreaterThan(0);

    // The same size with another root: a fork (422 per tlog-witness at the pinned commit).
    const forked = await postAddCheckpoint(http, log.request(5, 5, { root: log.root(8) }));
    expect(forked.status).toBe(422);
    expect(forked.text).toMatch(/^fork_detected: /);
    const line = await witness.logs.next('fork_detected', (r) => r.log === log.origin);
    expect(line).toMatchObject({ seq: 5, form: 'NoteForkProof' });

    const res = await fetch(`${http}/v1/forks`);
    expect(res.status).toBe(200);
    const forks = await res.text();
    expect(JSON.parse(forks).forks).toHaveLength(1);
    await writeFile(join(root, 'forks.json'), forks);
    const v = await runCookwala(['verify-fork', join(root, 'forks.json'), '--vkey', log.signer.vkey]);
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out).toMatch(/FORK PROVEN: log log\.test\/foreign at seq 5/);

    const stopped = await stopChild(witness);
    expect(stopped.code).toBe(0);
    await witness.logs.next('shutdown');
    for (const l of witness
      .out()
      .split('\n')
      .filter((x) => x.length > 0)) {
      const j = JSON.parse(l) as { event?: unknown };
      expect(typeof j.event, l).toBe('string');
    }
    witness = undefined;
  }, 240_000);
});
