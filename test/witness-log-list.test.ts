// Our witness following a witness-network log list (logs/v0, as transparency-dev/witness-network's
// validator reads it) end to end: a list served over real HTTP on 127.0.0.1, a real `cookwala
// witness` child process that is told to follow it with `witness add-log --log-list URL` while it
// runs, a listed log admitted and cosigned over C2SP tlog-witness HTTP (checkpoints signed by
// testkit/c2sp-log.ts, written from the specs on node:crypto), the same origin listed later with
// another vkey refused and reported (`log_list_refused`), never applied, and after a restart, with
// the list now unreachable, the admission kept: the old key still cosigns, the new one is refused.
// The discovery document and the about page (with both vkeys: the witness has an ML-DSA-44 key
// too) are read over the same HTTP port, and the per-log freshness gauges survive the restart
// (seeded from the witness state).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { postAddCheckpoint, SpecLog, specSigner, verifySpecCosignature } from '../testkit/c2sp-log.ts';

const tmp = tempDirs('cookwala-log-list-');
const listed = new SpecLog('list.example/log-a').append(20);
const other = new SpecLog('list.example/log-b').append(3);
const rogue = specSigner(listed.origin); // another key for the same origin
const lists = new Map<string, { status: number; body: string }>();
let server: Server;
let listBase = '';
let dir = '';
let witness: (Child & { info: { http?: string; c2sp?: { name: string; vkey: string; mldsaVkey?: string } } }) | undefined;

const entry = (vkey: string, qpd = 86400) => `vkey ${vkey}\nqpd ${qpd}\ncontact ops@list.example\n`;
const logList = (...entries: string[]) => `# List: test\n# Revision: 1\nlogs/v0\n\n${entries.join('\n')}`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const l = lists.get(req.url ?? '');
    res.writeHead(l?.status ?? 404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(l?.body ?? 'not found\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  listBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  lists.set('/log-list.1', { status: 200, body: logList(entry(listed.signer.vkey)) });
  dir = await tmp.make();
  const init = await runCookwala([
    'witness',
    'init',
    '--data',
    dir,
    '--name',
    'w-list',
    '--c2sp-name',
    'witness.list.example/w',
    '--http-port',
    '0',
    '--mldsa44',
  ]);
  expect(init.code, init.err).toBe(0);
  witness = await startWitnessProcess(dir);
}, 120_000);

afterAll(async () => {
  if (witness) await stopChild(witness);
  await new Promise<void>((r) => server.close(() => r()));
  await tmp.cleanup();
});

describe('a witness following a logs/v0 list over HTTP', () => {
  it('admits a listed log while running and cosigns it over C2SP HTTP', async () => {
    const url = `${listBase}/log-list.1`;
    const add = await runCookwala(['witness', 'add-log', '--data', dir, '--log-list', url]);
    expect(add.code, add.err).toBe(0);
    const admitted = await witness!.logs.next('log_admitted', (r) => r.log === listed.origin);
    expect(admitted.source).toBe(url);
    const base = witness!.info.http!;
    const logs = (await (await fetch(`${base}/v1/logs?log=${encodeURIComponent(listed.origin)}`)).json()) as {
      logs: Array<{ vkey?: string }>;
    };
    expect(logs.logs.map((l) => l.vkey)).toEqual([listed.signer.vkey]);
    const r = await postAddCheckpoint(base, listed.request(0, 10));
    expect(r.status, r.text).toBe(200);
    expect(verifySpecCosignature(r.text, witness!.info.c2sp!.vkey, listed.body(10))).toBeGreaterThan(1_700_000_000);
  });

  it('describes itself in witness.v0.json and on its about page', async () => {
    const base = witness!.info.http!;
    const v0 = (await (await fetch(`${base}/witness.v0.json`)).json()) as Record<string, unknown>;
    expect(v0).toMatchObject({
      name: 'witness.list.example/w',
      submission_url: `${base}/`,
      monitoring_url: `${base}/`,
      verifier_keys: [witness!.info.c2sp!.vkey, witness!.info.c2sp!.mldsaVkey],
      software: { name: 'cookwala-log' },
    });
    const about = await (await fetch(`${base}/about`)).text();
    expect(about).toContain(witness!.info.c2sp!.vkey);
    expect(about).toContain(witness!.info.c2sp!.mldsaVkey);
    expect(about).toContain(`POST ${base}/add-checkpoint`);
    expect(about).toContain(`${listBase}/log-list.1`);
    expect(about).toContain('It admits 1 log.');
  });

  it('refuses and reports a listed key change, and keeps the admission across a restart', async () => {
    // The list now names another key for the admitted origin, and a second list a new log: the
    // new log is admitted, the key change refused and reported.
    lists.set('/log-list.1', { status: 200, body: logList(entry(rogue.vkey)) });
    lists.set('/log-list.2', { status: 200, body: logList(entry(other.signer.vkey, 24)) });
    const add = await runCookwala(['witness', 'add-log', '--data', dir, '--log-list', `${listBase}/log-list.2`]);
    expect(add.code, add.err).toBe(0);
    const refused = await witness!.logs.next('log_list_refused', (r) => r.log === listed.origin);
    expect(refused.source).toBe(`${listBase}/log-list.1`);
    expect(String(refused.msg)).toContain(rogue.vkey);
    await witness!.logs.next('log_admitted', (r) => r.log === other.origin);
    const base = witness!.info.http!;
    expect((await postAddCheckpoint(base, listed.request(10, 12, { signers: [rogue] }))).status).toBe(403);

    // Restart with the first list gone: what was admitted from it stays, under its first key.
    lists.set('/log-list.1', { status: 503, body: 'unavailable\n' });
    expect((await stopChild(witness!)).code).toBe(0);
    witness = await startWitnessProcess(dir);
    const after = witness.info.http!;
    await witness.logs.next('log_list_error', (r) => r.source === `${listBase}/log-list.1`);
    const ok = await postAddCheckpoint(after, listed.request(10, 12));
    expect(ok.status, ok.text).toBe(200);
    verifySpecCosignature(ok.text, witness.info.c2sp!.vkey, listed.body(12));
    expect((await postAddCheckpoint(after, listed.request(12, 14, { signers: [rogue] }))).status).toBe(403);
    const b = await postAddCheckpoint(after, other.request(0, 3));
    expect(b.status, b.text).toBe(200);

    // Freshness: both logs have a cosignature time; the size is the one last cosigned.
    const metrics = await (await fetch(`${after}/metrics`)).text();
    const gauge = (family: string, log: string) =>
      Number(new RegExp(`^${family}\\{log="${log.replace(/[.]/g, '\\.')}"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(gauge('cookwala_witness_log_seq', listed.origin)).toBe(12);
    expect(gauge('cookwala_witness_log_cosigned_timestamp_seconds', listed.origin)).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(gauge('cookwala_witness_log_cosigned_timestamp_seconds', other.origin)).toBeGreaterThan(Date.now() / 1000 - 600);
  });
});
