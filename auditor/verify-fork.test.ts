// `cookwala verify-fork` on real files: exit 0 when the proof shows a fork under the given policy,
// key or vkey, 1 when it does not (equal checkpoints, a forged signature, another log), 2 for input
// it cannot use, 3 for a witness's fork list with no proof in it. Both proof forms: a JSON
// ForkProof and a C2SP log's NoteForkProof (two signed notes, built with the spec-only signer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from './verify-fork.ts';
import { buildForkProof, type ForkProof } from '../verifier/documents/fork-proof.ts';
import { createFakeLog, testKey } from '../testkit/witness.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { SpecLog, specSigner } from '../testkit/c2sp-log.ts';
import { buildNoteForkProof } from '../verifier/documents/note-fork-proof.ts';

let dir: string;
const file = (name: string) => join(dir, name);
async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array) => ((out += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((out += String(c)), true)) as typeof process.stderr.write;
  try {
    return { code: await run(argv), out };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

let fp: ForkProof;
beforeAll(async () => {
  dir = await makeTempDir('cookwala-vfork-');
  const a = createFakeLog('example.org/vf');
  const b = createFakeLog('example.org/vf');
  a.append(4);
  b.append(4);
  fp = buildForkProof(await a.checkpoint(), await b.checkpoint());
  await writeFile(file('fork.json'), JSON.stringify(fp));
  await writeFile(file('key.json'), JSON.stringify(a.keyRecord));
  const w = testKey('vf-w', 'witness');
  await writeFile(
    file('policy.json'),
    JSON.stringify({ kind: 'WitnessPolicy', log: 'example.org/vf', sequencer: a.keyRecord, witnesses: [w.keyRecord], quorum: 1 }),
  );
  await writeFile(
    file('other-policy.json'),
    JSON.stringify({ kind: 'WitnessPolicy', log: 'example.org/other', sequencer: a.keyRecord, witnesses: [w.keyRecord], quorum: 1 }),
  );
  await writeFile(file('same.json'), JSON.stringify({ ...fp, b: fp.a }));
  const imp = createFakeLog('example.org/vf', 'impostor');
  imp.append(4);
  await writeFile(file('forged.json'), JSON.stringify(buildForkProof(fp.a, await imp.checkpoint())));
  await writeFile(file('garbage.json'), '{"kind":"ForkProof"');
  await writeFile(file('not-fp.json'), JSON.stringify({ kind: 'Checkpoint' }));
});
afterAll(async () => removeDir(dir));

describe('cookwala verify-fork', () => {
  it('exit 0 when the proof proves a fork (policy or key)', async () => {
    const r = await cli([file('fork.json'), '--policy', file('policy.json')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/FORK PROVEN: log example.org\/vf at seq 4/);
    const j = await cli([file('fork.json'), '--key', file('key.json'), '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.out)).toMatchObject({ proven: true, seq: 4, a: { head: fp.a.head }, b: { head: fp.b.head } });
  });

  it('exit 1 when it does not: equal checkpoints, a forged signature, another log', async () => {
    expect((await cli([file('same.json'), '--key', file('key.json')])).code).toBe(1);
    const forged = await cli([file('forged.json'), '--key', file('key.json'), '--json']);
    expect(forged.code).toBe(1);
    expect(JSON.parse(forged.out)).toMatchObject({ proven: false });
    const other = await cli([file('fork.json'), '--policy', file('other-policy.json')]);
    expect(other.code).toBe(1);
    expect(other.out).toMatch(/log_mismatch/);
  });

  it('takes a witness\'s GET /v1/forks answer, {"forks":[…]}: each proof checked, exit 0 if one proves', async () => {
    await writeFile(file('forks.json'), JSON.stringify({ forks: [{ ...fp, b: fp.a }, fp] }));
    const r = await cli([file('forks.json'), '--policy', file('policy.json')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/NOT A FORK PROOF: not_a_fork[\s\S]*FORK PROVEN: log example.org\/vf at seq 4/);
    const j = await cli([file('forks.json'), '--key', file('key.json'), '--json']);
    expect(JSON.parse(j.out)).toMatchObject([{ proven: false }, { proven: true, seq: 4 }]);
    await writeFile(file('forks-none.json'), JSON.stringify({ forks: [] }));
    // "No fork in this list" is its own exit code, not unusable input: a cron tells them apart.
    const none = await cli([file('forks-none.json'), '--key', file('key.json')]);
    expect(none.code).toBe(3);
    expect(none.out).toMatch(/NO FORK FOUND: .*fork list with no proof in it/);
    expect((await cli([file('forks-none.json'), '--key', file('key.json'), '--json'])).code).toBe(3);
    await writeFile(file('forks-same.json'), JSON.stringify({ forks: [{ ...fp, b: fp.a }] }));
    expect((await cli([file('forks-same.json'), '--key', file('key.json')])).code).toBe(1);
  });

  it("a C2SP log's NoteForkProof: two signed notes of its key at one size, checked with --vkey", async () => {
    const log = new SpecLog('example.org/c2sp-vf').append(5);
    const other = new SpecLog('example.org/c2sp-vf', log.signer).append(6);
    const fork = buildNoteForkProof(log.origin, log.note(5), other.note(5, { root: other.root(6) }));
    await writeFile(file('note-forks.json'), JSON.stringify({ forks: [fork] }));
    const r = await cli([file('note-forks.json'), '--vkey', log.signer.vkey]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/FORK PROVEN: log example.org\/c2sp-vf at seq 5\n {2}a: root sha256:[0-9a-f]{64}\n/);
    const j = await cli([file('note-forks.json'), '--vkey', log.signer.vkey, '--json']);
    expect(JSON.parse(j.out)).toMatchObject([{ proven: true, form: 'NoteForkProof', seq: 5 }]);
    // Another key, one note signed by nobody we trust, equal roots, other sizes: not proven (1).
    const stranger = specSigner('example.org/c2sp-vf');
    expect((await cli([file('note-forks.json'), '--vkey', stranger.vkey])).code).toBe(1);
    const forged = buildNoteForkProof(log.origin, log.note(5), other.note(5, { root: other.root(6), signers: [stranger] }));
    const same = buildNoteForkProof(log.origin, log.note(5), log.note(5));
    const sizes = buildNoteForkProof(log.origin, log.note(4), log.note(5));
    for (const [name, doc] of Object.entries({ forged, same, sizes })) {
      await writeFile(file(`note-${name}.json`), JSON.stringify(doc));
      const v = await cli([file(`note-${name}.json`), '--vkey', log.signer.vkey, '--json']);
      expect(v.code, name).toBe(1);
      expect(JSON.parse(v.out).proven).toBe(false);
    }
    // A bad vkey or a malformed proof is unusable input (2).
    expect((await cli([file('note-forks.json'), '--vkey', 'not-a-vkey'])).code).toBe(2);
    await writeFile(file('note-bad.json'), JSON.stringify({ ...fork, extra: 1 }));
    expect((await cli([file('note-bad.json'), '--vkey', log.signer.vkey])).code).toBe(2);
  });

  it('exit 2 for unusable input', async () => {
    expect((await cli([file('garbage.json'), '--key', file('key.json')])).code).toBe(2);
    expect((await cli([file('not-fp.json'), '--key', file('key.json')])).code).toBe(2);
    expect((await cli([file('missing.json'), '--key', file('key.json')])).code).toBe(2);
    expect((await cli([file('fork.json'), '--key', file('fork.json')])).code).toBe(2);
    expect((await cli([file('fork.json')])).code).toBe(2);
    expect((await cli([file('fork.json'), '--key', file('key.json'), '--policy', file('policy.json')])).code).toBe(2);
  });
});
