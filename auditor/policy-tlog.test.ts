// auditor/policy-tlog.test.ts: `cookwala policy to-tlog` as a user runs it (a child process): a
// policy with timeBounds is written (exit 0) and stderr names what was dropped, since tlog-policy
// has no line for time bounds; a policy without them writes nothing on stderr.

import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala } from '../testkit/witness-procs.ts';
import { keyFor, LOG, signerFor } from '../testkit/verifier-fixtures.ts';
import { formatVerifierKey, SIG_COSIGNATURE_V1 } from '../verifier/c2sp/note/index.ts';

const tmp = tempDirs('cookwala-to-tlog-');
afterAll(() => tmp.cleanup());

const w = signerFor('EdDSA', 'w-1', 71);
const policy = {
  kind: 'WitnessPolicy',
  log: LOG,
  sequencer: keyFor(signerFor('EdDSA', 'seq-7', 70), 'sequencer', 'cookwala:sequencer'),
  witnesses: [{ ...keyFor(w, 'witness', 'w1.example'), vkey: formatVerifierKey('w1.example', SIG_COSIGNATURE_V1, w.publicKey) }],
  quorum: 1,
};

describe('cookwala policy to-tlog', () => {
  it('says on stderr that it dropped the timeBounds', async () => {
    const dir = await tmp.make();
    const file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify({ ...policy, timeBounds: { maxDeliveryDelayMs: 86_400_000 } }));
    const r = await runCookwala(['policy', 'to-tlog', file]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^quorum /m);
    expect(r.err).toBe(
      "cookwala policy to-tlog: dropped timeBounds (maxDeliveryDelayMs 86400000): tlog-policy has no line for time bounds; the text read back requires them, capped only by the format's limits\n",
    );
  }, 60_000);

  it('is quiet when nothing is dropped', async () => {
    const dir = await tmp.make();
    const file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(policy));
    const r = await runCookwala(['policy', 'to-tlog', file, '--out', join(dir, 'policy.txt')]);
    expect([r.code, r.err, r.out]).toEqual([0, '', '']);
  }, 60_000);
});
