// `cookwala verify-fork` as a child process on real files: exit 0 when the proof shows a fork
// under the given policy or key, 1 when it does not (equal checkpoints, a forged signature, another
// log), 2 for input it cannot use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from './verify-fork.ts';
import { buildForkProof, type ForkProof } from '../documents/fork-proof.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';

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
    const none = await cli([file('forks-none.json'), '--key', file('key.json')]);
    expect(none.code).toBe(2);
    expect(none.out).toMatch(/fork list with no proof in it/);
    await writeFile(file('forks-same.json'), JSON.stringify({ forks: [{ ...fp, b: fp.a }] }));
    expect((await cli([file('forks-same.json'), '--key', file('key.json')])).code).toBe(1);
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
