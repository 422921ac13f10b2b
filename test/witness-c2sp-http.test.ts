// Our witness as a C2SP tlog-witness, end to end (c2sp.org/tlog-witness at
// C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): a real `cookwala witness` child
// process on 127.0.0.1, logs admitted with `add-log --vkey`, driven over real HTTP by
// testkit/c2sp-log.ts, a client and log written from the specs on node:crypto (no code of ours).
// Every row of the status table with its code and body; the monitoring read; two submissions
// racing on one log (exactly one wins, the other gets 409 with the winner's size); then SIGKILL,
// a restart, and the state is still there. The independent log's checkpoints are signed by a raw
// node:crypto Ed25519 key, and the cosignatures verify with the vkey the witness printed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { postAddCheckpoint, SpecLog, specSigner, verifySpecCosignature } from '../testkit/c2sp-log.ts';

const tmp = tempDirs('cookwala-c2sp-http-');
let dir = '';
let witness: (Child & { info: { http?: string; c2sp?: { name: string; vkey: string } } }) | undefined;
const log = new SpecLog('example.com/spec-log').append(40);
const fresh = new SpecLog('example.com/fresh').append(4);
let base = '';
let vkey = '';

const originHash = (o: string) => createHash('sha256').update(o).digest('hex');
const post = (body: string) => postAddCheckpoint(base, body);

async function start() {
  witness = await startWitnessProcess(dir);
  base = witness.info.http!;
  vkey = witness.info.c2sp!.vkey;
}

beforeAll(async () => {
  dir = await tmp.make();
  const init = await runCookwala(['witness', 'init', '--data', dir, '--name', 'w-c2sp', '--http-port', '0']);
  expect(init.code, init.err).toBe(0);
  const printed = /^c2sp (\S+) vkey (\S+)$/m.exec(init.out);
  expect(printed?.[1]).toBe('w-c2sp');
  for (const l of [log, fresh]) {
    const r = await runCookwala(['witness', 'add-log', '--data', dir, '--vkey', l.signer.vkey]);
    expect(r.code, r.err).toBe(0);
  }
  // The same origin with another key is refused: a witness never switches a log's key.
  const again = await runCookwala(['witness', 'add-log', '--data', dir, '--vkey', specSigner(log.origin).vkey]);
  expect(again.code).toBe(1);
  await start();
  expect(vkey).toBe(printed?.[2]);
}, 120_000);

afterAll(async () => {
  if (witness) await stopChild(witness);
  await tmp.cleanup();
});

describe('C2SP tlog-witness over HTTP', () => {
  it('answers each row of the status table', async () => {
    // 404: unknown origin.
    const r404 = await post(new SpecLog('example.com/unknown').append(2).request(0, 2));
    expect(r404.status).toBe(404);
    // 403: no signature from a trusted key; a trusted key's signature that fails.
    expect((await post(log.request(0, 3, { signers: [specSigner(log.origin)] }))).status).toBe(403);
    expect((await post(log.request(0, 3, { signers: [log.signer.bad] }))).status).toBe(403);
    // 400: old > size; and malformed bodies.
    expect((await post(log.request(4, 3, { proof: [] }))).status).toBe(400);
    expect((await post('old 0\n')).status).toBe(400);
    expect((await post(log.request(0, 3).replace('old 0', 'old 00'))).status).toBe(400);
    expect((await post(`old 0\n\n${log.body(3)}`)).status).toBe(400);
    // 200: the first checkpoint; one cosignature/v1 line from the witness key, timestamp set.
    const ok = await post(log.request(0, 10));
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/^\u2014 w-c2sp [A-Za-z0-9+/=]+\n$/);
    expect(verifySpecCosignature(ok.text, vkey, log.body(10))).toBeGreaterThan(1_700_000_000);
    // 409: old size not the stored one; body `<size>\n`, content type text/x.tlog.size.
    const c409 = await post(log.request(0, 12));
    expect([c409.status, c409.type, c409.text]).toEqual([409, 'text/x.tlog.size', '10\n']);
    const c409b = await post(log.request(7, 12));
    expect([c409b.status, c409b.text]).toEqual([409, '10\n']);
    // 422: a bad consistency proof; a non-empty proof with old 0; the same size with another root.
    const proof = log.proof(10, 12).map((h) => Buffer.from(h));
    proof[proof.length - 1][5] ^= 0xff;
    expect((await post(log.request(10, 12, { proof }))).status).toBe(422);
    expect((await post(fresh.request(0, 4, { proof: fresh.proof(2, 4) }))).status).toBe(422);
    expect((await post(log.request(10, 10, { root: log.root(9) }))).status).toBe(422);
    // 422: size 0 with a root other than the empty tree's.
    expect((await post(fresh.request(0, 0, { root: fresh.root(1) }))).status).toBe(422);
    // 200: consistent growth 10 -> 12.
    const ok2 = await post(log.request(10, 12));
    expect(ok2.status).toBe(200);
    verifySpecCosignature(ok2.text, vkey, log.body(12));
  });

  it('reads a body whatever its content type, and bounds its size', async () => {
    const raw = (body: Buffer | Buffer[], headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(`${base}/add-checkpoint`);
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: 'POST',
            headers: Array.isArray(body) ? headers : { 'content-length': String(body.length), ...headers },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        if (Array.isArray(body)) {
          for (const b of body) req.write(b); // chunked: no length declared
          req.end();
        } else req.end(body);
      });
    // No content type at all: still decided (409: the stored size is 12).
    expect(await raw(Buffer.from(log.request(0, 13)), {})).toBe(409);
    expect(await raw(Buffer.from(log.request(0, 13)), { 'content-type': 'application/octet-stream' })).toBe(409);
    expect(await raw(Buffer.alloc(300 * 1024, 0x41), { 'content-type': 'text/plain' })).toBe(413);
    // Chunked, the bound crossed only by the third piece; then the whole request in pieces.
    expect(await raw([Buffer.alloc(64 * 1024, 0x41), Buffer.alloc(64 * 1024, 0x41), Buffer.from('A')], {})).toBe(413);
    const whole = Buffer.from(log.request(0, 13));
    expect(await raw([whole.subarray(0, 5), whole.subarray(5, 60), whole.subarray(60)], {})).toBe(409);
    expect((await fetch(`${base}/add-checkpoint?x=1`, { method: 'POST', body: log.request(0, 13) })).status).toBe(409);
    expect((await fetch(`${base}/add-checkpoint`)).status).toBe(404); // only POST is the route
  });

  it('serves the signed checkpoint it last cosigned at /<sha256(origin)>/checkpoint', async () => {
    const res = await fetch(`${base}/${originHash(log.origin)}/checkpoint`);
    expect(res.status).toBe(200);
    const note = await res.text();
    expect(note.startsWith(`${log.body(12)}\n\u2014 ${log.origin} `)).toBe(true);
    const lines = note.slice(log.body(12).length + 1);
    expect(lines.split('\n').filter(Boolean)).toHaveLength(2);
    verifySpecCosignature(lines, vkey, log.body(12));
    expect((await fetch(`${base}/${originHash('example.com/unknown')}/checkpoint`)).status).toBe(404);
    expect((await fetch(`${base}/${originHash(fresh.origin)}/checkpoint`)).status).toBe(404); // never cosigned
  });

  it('lets exactly one of two racing submissions win, and keeps the state across a SIGKILL', async () => {
    const [a, b] = await Promise.all([post(log.request(12, 20)), post(log.request(12, 25))]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? 20 : 25;
    const loser = a.status === 409 ? a : b;
    expect([loser.type, loser.text]).toEqual(['text/x.tlog.size', `${winner}\n`]);

    const killed = await stopChild(witness!, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    await start();
    // The cosigned size survived: old 12 is now a conflict at the winner's size.
    const after = await post(log.request(12, 30));
    expect([after.status, after.text]).toEqual([409, `${winner}\n`]);
    const mon = await (await fetch(`${base}/${originHash(log.origin)}/checkpoint`)).text();
    expect(mon.startsWith(log.body(winner))).toBe(true);
    const next = await post(log.request(winner, 30));
    expect(next.status).toBe(200);
    verifySpecCosignature(next.text, vkey, log.body(30));
  }, 120_000);
});
