// Post-quantum cosignatures end to end (docs/design.md §7a, §8; c2sp.org tlog-cosignature at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): a real sequencer (LevelDB in a temp dir, fastify on
// 127.0.0.1) whose policy names ONE witness, known only by its ML-DSA-44 key (a KeyRecord of alg
// ML-DSA-44 with its 0x06 vkey and url): a real `cookwala witness` child made with
// `witness init --mldsa44`, reached over C2SP HTTP. The published checkpoints carry its
// subtree/v1 cosignature and nothing else from witnesses; the exported bundle and a
// c2sp.org/tlog-proof@v1 file verify offline with `cookwala verify` and `cookwala verify-event`
// (child processes, the auditor's commands), and one byte flipped in a cosignature of either is
// refused, naming the checkpoint's seq.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import { logPath } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala } from '../testkit/witness-procs.ts';
import { flipB64, startPqLog, type PqLog } from '../testkit/pq-log.ts';

const LOG = 'pq.example/missions/m-44';
const tmp = tempDirs('cookwala-pq-');
let pq: PqLog | undefined;
let dir: string;
let base: string;

beforeAll(async () => {
  pq = await startPqLog({ log: LOG, dir: await tmp.make(), witnessDir: await tmp.make(), device: 44 });
  ({ dir, base } = pq);
}, 120_000);

afterAll(async () => {
  await pq?.close();
  await tmp.cleanup();
});

describe('a witness known only by its ML-DSA-44 key', () => {
  it('cosigns our checkpoints with subtree/v1, and the quorum counts it', async () => {
    for (const n of [5, 20, 7]) {
      const cp = await pq!.round(n);
      expect(cp?.signature.filter((s) => s.alg === 'subtree/v1').map((s) => s.kid)).toEqual([
        `pq-w+${pq!.witness.info.c2sp!.mldsaVkey!.split('+')[1]}`,
      ]);
      expect(cp?.signature.some((s) => s.alg === 'cosignature/v1')).toBe(false);
    }
  }, 60_000);

  it('the bundle verifies offline with `cookwala verify`; a flipped cosignature byte is refused with its seq', async () => {
    const bundle = await (await fetch(`${base}${logPath(LOG, '/bundle')}`)).text();
    const file = join(dir, 'audit.ndjson');
    await writeFile(file, bundle);
    const ok = await runCookwala(['verify', file, '--policy', join(dir, 'policy.json'), '--json']);
    expect(ok.code, ok.out + ok.err).toBe(0);
    const report = JSON.parse(ok.out) as { valid: boolean; checkpoints: { cosigned?: Array<{ seq: number; cosigners: unknown }> } };
    expect(report.valid).toBe(true);
    expect(report.checkpoints.cosigned?.map((c) => c.cosigners)).toEqual(
      [5, 25, 32].map(() => [{ kid: 'w-pq', name: expect.stringMatching(/^pq-w \(wit-/), forms: ['subtree/v1'] }]),
    );
    // One byte of the seq-25 checkpoint's ML-DSA-44 signature.
    const lines = bundle.split('\n');
    const i = lines.findIndex((l) => l.includes('"kind":"Checkpoint"') && (JSON.parse(l) as Checkpoint).seq === 25);
    const cp = JSON.parse(lines[i]) as Checkpoint;
    cp.signature = cp.signature.map((s) => (s.alg === 'subtree/v1' ? { ...s, sig: flipB64(s.sig, true) } : s));
    lines[i] = JSON.stringify(cp);
    await writeFile(file, lines.join('\n'));
    const bad = await runCookwala(['verify', file, '--policy', join(dir, 'policy.json')]);
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out + bad.err).toMatch(/checkpoint 25\b/);
    expect(bad.out + bad.err).toMatch(/quorum_not_met|bad_signature/);
  }, 60_000);

  it('a tlog-proof verifies offline with `cookwala verify-event`; a flipped cosignature byte is refused with its seq', async () => {
    const out = join(dir, 'e9.tlog-proof');
    const made = await runCookwala(['proof', '--url', base, '--log', LOG, '--seq', '9', '--out', out, '--format', 'tlog-proof']);
    expect(made.code, made.err).toBe(0);
    const text = await readFile(out, 'utf8');
    const ok = await runCookwala(['verify-event', out, '--policy', join(dir, 'policy.json')]);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/PROVED/);
    const name = 'pq-w';
    const edited = text
      .split('\n')
      .map((l) => {
        if (!l.startsWith(`\u2014 ${name} `)) return l;
        const b64 = l.slice(`\u2014 ${name} `.length);
        return `\u2014 ${name} ${flipB64(b64, false)}`;
      })
      .join('\n');
    expect(edited).not.toBe(text);
    await writeFile(out, edited);
    const bad = await runCookwala(['verify-event', out, '--policy', join(dir, 'policy.json')]);
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out + bad.err).toMatch(/\b32\b/);
  }, 60_000);
});
