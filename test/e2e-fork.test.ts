// The split-view attack, with three `cookwala witness` processes over TCP on 127.0.0.1: the
// sequencer key signs two different checkpoints at one seq and they go to different witnesses.
// Each witness cosigns the first it sees and refuses the second (fork_detected); through gossip
// every witness knows the fork within a few seconds, including the one that saw neither; the
// ForkProof proves the fork offline with `cookwala verify-fork`. Each witness reports the fork in
// exactly one `fork_detected` JSON log line on its stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig } from '../witness/server/data-dir.ts';
import { admitLog } from '../witness/server/config.ts';
import { createP2pNode, type P2pNode } from '../witness/wire/p2p-node.ts';
import { createWitnessConnection, cosignatureOf, type WitnessConnection } from '../witness/client/connection.ts';
import { createFakeLog } from '../testkit/witness.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { waitFor } from '../testkit/wait.ts';
import type { WitnessInfo } from '../witness/server/service.ts';
import type { ForkProof } from '../verifier/documents/fork-proof.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const ORIGIN = 'attack.example.org/missions/m-666';
const log = createFakeLog(ORIGIN, 'attacked-sequencer');
let root: string;
const procs: Array<Child & { info: WitnessInfo }> = [];
let node: P2pNode;
let conns: WitnessConnection[];

beforeAll(async () => {
  root = await makeTempDir('cookwala-fork-');
  const dirs = [0, 1, 2].map((i) => join(root, `w${i}`));
  for (const [i, dir] of dirs.entries()) {
    await initWitnessDir(dir, { name: `w${i}` });
    const d = await loadWitnessDir(dir);
    const a = admitLog(d.config, { log: ORIGIN, sequencer: log.keyRecord });
    if (!a.ok) throw new Error(a.detail);
    await saveWitnessConfig(dir, a.value.config);
  }
  procs.push(await startWitnessProcess(dirs[0]));
  procs.push(...(await Promise.all([1, 2].map((i) => startWitnessProcess(dirs[i], ['--bootstrap', procs[0].info.multiaddrs[0]])))));
  node = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] });
  conns = procs.map((p) => createWitnessConnection(node, p.info.multiaddrs[0]));
  // Let the gossip mesh form (w1 and w2 bootstrap from w0: a star through w0).
  await waitFor(
    async () => {
      const ok = await Promise.all(
        procs.map(async (p) => (await (await fetch(`${p.info.http}/metrics`)).text()).match(/cookwala_witness_gossip_peers (\d+)/)?.[1]),
      );
      return Number(ok[0]) >= 2 && ok.every((n) => Number(n) >= 1) ? true : undefined;
    },
    { timeoutMs: 30_000, what: 'witnesses subscribed to each other' },
  );
}, 120_000);

afterAll(async () => {
  for (const c of conns ?? []) await c.close();
  await node?.stop();
  for (const p of procs) await stopChild(p, 'SIGKILL');
  await removeDir(root);
});

describe('split view: two checkpoints at one seq, signed by the sequencer key', () => {
  it('each witness refuses the second it sees, all learn the fork through gossip, and verify-fork proves it', async () => {
    // A common history, cosigned by everyone.
    log.append(5);
    for (const c of conns) expect(cosignatureOf(await c.request(await log.request(0))).ok).toBe(true);
    // Two views of seq 9.
    const evil = log.fork();
    log.append(4);
    evil.append(4);
    const a = await log.request(5);
    const b = await evil.request(5);
    expect(a.checkpoint.seq).toBe(b.checkpoint.seq);
    expect(a.checkpoint.head).not.toBe(b.checkpoint.head);
    // w0 sees A, w1 sees B, at the same time: both cosign what they see first.
    const [ra, rb] = await Promise.all([conns[0].request(a), conns[1].request(b)]);
    expect(cosignatureOf(ra).ok).toBe(true);
    expect(cosignatureOf(rb).ok).toBe(true);
    // The witnesses gossip what they cosign: every one of them, w2 included, learns the fork.
    const t0 = Date.now();
    const proofs: ForkProof[] = [];
    for (const p of procs) {
      const forks = await waitFor(
        async () => {
          const j = (await (await fetch(`${p.info.http}/v1/forks`)).json()) as { forks: ForkProof[] };
          return j.forks.length > 0 ? j.forks : undefined;
        },
        { timeoutMs: 10_000, what: `the fork known to ${p.info.peerId}` },
      );
      proofs.push(forks[0]);
    }
    expect(Date.now() - t0).toBeLessThan(10_000);
    for (const fp of proofs) expect(new Set([fp.a.head, fp.b.head])).toEqual(new Set([a.checkpoint.head, b.checkpoint.head]));
    // Each witness says so in one JSON log line on its stdout, the line an operator alerts on.
    for (const p of procs) {
      const line = await p.logs.next('fork_detected', (r) => r.log === ORIGIN, 10_000);
      expect(line).toMatchObject({ level: 'warn', service: 'witness', log: ORIGIN, seq: a.checkpoint.seq });
      expect(new Set(line.heads as string[])).toEqual(new Set([a.checkpoint.head, b.checkpoint.head]));
    }
    // Each refuses the second view it is shown.
    const r0 = cosignatureOf(await conns[0].request(b));
    const r1 = cosignatureOf(await conns[1].request(a));
    expect(r0.ok ? 'ok' : r0.code).toBe('fork_detected');
    expect(r1.ok ? 'ok' : r1.code).toBe('fork_detected');
    // w2 saw neither: it cosigns the first it is shown and refuses the other.
    expect(cosignatureOf(await conns[2].request(a)).ok).toBe(true);
    const r2 = cosignatureOf(await conns[2].request(b));
    expect(r2.ok ? 'ok' : r2.code).toBe('fork_detected');
    // The proof from the witness that saw neither view proves the fork offline.
    await writeFile(join(root, 'fork-proof.json'), JSON.stringify(proofs[2]));
    await writeFile(join(root, 'sequencer-key.json'), JSON.stringify(log.keyRecord));
    const v = await runCookwala(['verify-fork', join(root, 'fork-proof.json'), '--key', join(root, 'sequencer-key.json')]);
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out).toMatch(/FORK PROVEN/);
    // Shown the fork again (requests, gossip), nobody logs it a second time.
    for (const p of procs) expect(p.logs.events('fork_detected')).toHaveLength(1);
    // Nobody crashed.
    for (const p of procs) expect(p.proc.exitCode).toBeNull();
  });
});
