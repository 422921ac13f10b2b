// `cookwala witness`: init/add-log files and exit codes (in process), then as a real child process
// over TCP on 127.0.0.1: a persisted identity, and the crash rule: a witness SIGKILLed right after
// cosigning (with more requests in flight) and restarted never cosigns an older or conflicting
// checkpoint: everything it cosigned before the kill is durable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createP2pNode, type P2pNode } from '../witness/wire/p2p-node.ts';
import { createWitnessConnection, cosignatureOf } from '../witness/client/connection.ts';
import { createFakeLog, testKey } from '../testkit/witness.ts';
import { startWitnessProcess, stopChild } from '../testkit/witness-procs.ts';
import { run } from '../witness/cli.ts';

/** The CLI in this process (no crash involved): exit code and what it printed. */
async function runCookwala(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const [, ...rest] = argv; // argv[0] is 'witness'
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array) => ((out += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((err += String(c)), true)) as typeof process.stderr.write;
  try {
    return { code: await run(rest), out, err };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}
import { verifyForkProof, type ForkProof } from '../verifier/documents/fork-proof.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const ORIGIN = 'example.org/cli-log';
let root: string;
let node: P2pNode;

beforeAll(async () => {
  root = await makeTempDir('cookwala-wcli-');
  node = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] });
});
afterAll(async () => {
  await node?.stop();
  await removeDir(root);
});

describe('cookwala witness CLI', () => {
  it('init is idempotent and keeps keys private; add-log admits by configuration only', async () => {
    const dir = join(root, 'w-init');
    const r1 = await runCookwala(['witness', 'init', '--data', dir, '--name', 'alpha']);
    expect(r1.code).toBe(0);
    const key1 = await readFile(join(dir, 'witness.key.json'), 'utf8');
    expect((await stat(join(dir, 'witness.key.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'peer.key'))).mode & 0o777).toBe(0o600);
    const r2 = await runCookwala(['witness', 'init', '--data', dir, '--name', 'beta']);
    expect(r2.code).toBe(0);
    expect(r2.out).toMatch(/already initialised/);
    expect(await readFile(join(dir, 'witness.key.json'), 'utf8')).toBe(key1);
    const rec = JSON.parse(await readFile(join(dir, 'witness.keyrecord.json'), 'utf8'));
    expect(rec).toMatchObject({ kind: 'KeyRecord', role: 'witness', owner: 'cookwala:witness/alpha' });

    const log = createFakeLog(ORIGIN);
    const keyFile = join(root, 'seq-key.json');
    await writeFile(keyFile, JSON.stringify(log.keyRecord));
    expect((await runCookwala(['witness', 'add-log', '--data', dir, '--log', ORIGIN, '--sequencer-key', keyFile])).code).toBe(0);
    expect((await runCookwala(['witness', 'add-log', '--data', dir, '--log', ORIGIN, '--sequencer-key', keyFile])).out).toMatch(
      /already admitted/,
    );
    const other = join(root, 'other-key.json');
    await writeFile(other, JSON.stringify(testKey('someone-else', 'sequencer').keyRecord));
    const clash = await runCookwala(['witness', 'add-log', '--data', dir, '--log', ORIGIN, '--sequencer-key', other]);
    expect(clash.code).toBe(1);
    expect(clash.err).toMatch(/already admitted/);
    const cfg = JSON.parse(await readFile(join(dir, 'witness.json'), 'utf8'));
    expect(cfg.logs).toHaveLength(1);
    expect(cfg.logs[0].sequencer.kid).toBe(log.keyRecord.kid);
    // A witness key is not a sequencer key.
    await writeFile(other, JSON.stringify(testKey('w', 'witness').keyRecord));
    expect((await runCookwala(['witness', 'add-log', '--data', dir, '--log', 'example.org/x', '--sequencer-key', other])).code).toBe(1);
  });

  it('usage errors exit 2, and so does a missing data dir (the environment)', async () => {
    expect((await runCookwala(['witness', 'init'])).code).toBe(2);
    expect((await runCookwala(['witness', '--bogus'])).code).toBe(2);
    const missing = await runCookwala(['witness', '--data', join(root, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/missing: create it with `cookwala witness init --data .*nope` first/);
  });

  it('SIGKILL right after cosigning: restarted, it keeps its identity and never cosigns older or conflicting checkpoints', async () => {
    const dir = join(root, 'w-crash');
    expect((await runCookwala(['witness', 'init', '--data', dir, '--name', 'crashy'])).code).toBe(0);
    const log = createFakeLog(ORIGIN);
    const keyFile = join(root, 'crash-seq-key.json');
    await writeFile(keyFile, JSON.stringify(log.keyRecord));
    expect((await runCookwala(['witness', 'add-log', '--data', dir, '--log', ORIGIN, '--sequencer-key', keyFile])).code).toBe(0);

    let w = await startWitnessProcess(dir);
    const peerId = w.info.peerId;
    let maxCosigned = 0;
    let known = 0;
    for (let round = 0; round < 3; round++) {
      const conn = createWitnessConnection(node, w.info.multiaddrs[0], { timeoutMs: 10_000 });
      if (round > 0) {
        // After the restart: an older checkpoint and a conflicting one are refused.
        const older = cosignatureOf(await conn.request(await log.request(0, await log.checkpoint(Math.max(1, maxCosigned - 2)))));
        expect(older, JSON.stringify(older)).toMatchObject({ ok: false, code: 'conflict' });
        expect((older as { knownSeq?: number }).knownSeq).toBeGreaterThanOrEqual(maxCosigned);
        known = (older as unknown as { knownSeq: number }).knownSeq;
        // Another history of the same length under the same sequencer key: a fork.
        const alt = createFakeLog(ORIGIN);
        alt.append(known);
        const fork = cosignatureOf(await conn.request(await alt.request(known - 1, await alt.checkpoint(known))));
        expect(fork.ok ? 'ok' : fork.code).toBe('fork_detected');
      }
      // A batch of pipelined extensions; kill as soon as the first cosignature is back.
      const reqs = [];
      for (let i = 0; i < 8; i++) {
        const old = known;
        log.append(2);
        reqs.push(await log.request(old));
        known = log.size;
      }
      const pending = reqs.map((r) =>
        conn.request(r).then((x) => {
          const c = cosignatureOf(x);
          if (c.ok) maxCosigned = Math.max(maxCosigned, r.checkpoint.seq);
          return c;
        }),
      );
      await Promise.race(pending);
      await stopChild(w, 'SIGKILL');
      await Promise.all(pending);
      await conn.close();
      expect(maxCosigned).toBeGreaterThan(0);
      w = await startWitnessProcess(dir);
      expect(w.info.peerId).toBe(peerId);
    }
    // The fork attempts were refused with a proof that verifies; the witness is healthy.
    const http = w.info.http!;
    const forks = (await (await fetch(`${http}/v1/forks`)).json()) as { forks: ForkProof[] };
    for (const fp of forks.forks) expect(verifyForkProof(fp, log.keyRecord).ok).toBe(true);
    const logs = (await (await fetch(`${http}/v1/logs`)).json()) as { logs: Array<{ seq: number }> };
    expect(logs.logs[0].seq).toBeGreaterThanOrEqual(maxCosigned);
    const { code } = await stopChild(w, 'SIGTERM');
    expect(code).toBe(0);
  });
});
