// verifier/cli/verify-fork.ts: `cookwala verify-fork PROOF (--policy POLICY | --key KEYRECORD)
// [--json]` (docs/design.md §4, §7): check a ForkProof offline. The sequencer key comes from the auditor
// (the policy's `sequencer`, or a KeyRecord file), never from the proof. Exit 0 when the proof
// proves a fork (two checkpoints of the policy's log at one seq, both validly signed by that key,
// with different head or root), 1 when it does not, 2 for unusable input (a file that cannot be
// read, is not JSON, is not a ForkProof document, or no trusted key given). No network.
// PROOF may also be a witness's `GET /v1/forks` answer, `{"forks":[ForkProof…]}` : each
// proof is checked, one verdict per line (--json: an array); exit 0 when at least one proves a fork.

import { parseFlags, runCli, UsageError } from '../../platform/args.ts';
import { InputError, readJsonFile, readPolicyFile } from './trust-files.ts';
import { readDocument } from '../documents/read.ts';
import { forkVerdict, type ForkProof, type ForkVerdict } from '../documents/fork-proof.ts';
import type { KeyRecord } from '../documents/keys.ts';
import type { Result } from '../errors.ts';

const USAGE = `usage: cookwala verify-fork PROOF (--policy POLICY | --key KEYRECORD) [--json]

Check a ForkProof offline: both checkpoints validly signed by the log's sequencer key, one log,
one seq, different head or root.
  --policy POLICY   the witness policy naming the log and its sequencer key
  --key KEYRECORD   or the sequencer's KeyRecord alone
  --json            print the verdict as JSON
Exit 0 fork proven, 1 not proven, 2 unusable input.`;

async function readTrust(policy: string | undefined, key: string | undefined): Promise<{ key: KeyRecord; log?: string }> {
  if (policy !== undefined) {
    const p = await readPolicyFile(policy);
    return { key: p.sequencer, log: p.log };
  }
  const r = readDocument('KeyRecord', await readJsonFile(key!, 'key record')) as Result<KeyRecord>;
  if (!r.ok) throw new InputError(`the key ${key} is not a KeyRecord: ${r.code}: ${r.detail}`);
  return { key: r.value };
}

export async function checkForkFile(path: string, o: { policy?: string; key?: string }): Promise<ForkVerdict> {
  const trust = await readTrust(o.policy, o.key);
  return checkForkDoc(path, await readJsonFile(path, 'fork proof'), trust);
}

/** Every proof of a file: a ForkProof, or a witness's list `{"forks":[…]}` (at most 1000). */
export async function checkForkFileAll(
  path: string,
  o: { policy?: string; key?: string },
): Promise<{ list: boolean; verdicts: ForkVerdict[] }> {
  const trust = await readTrust(o.policy, o.key);
  const j = await readJsonFile(path, 'fork proof');
  const forks = (j as { forks?: unknown } | null)?.forks;
  if (j && typeof j === 'object' && !Array.isArray(j) && Array.isArray(forks) && (j as { kind?: unknown }).kind === undefined) {
    if (forks.length === 0) throw new InputError(`${path} is a witness's fork list with no proof in it (the witness has seen no fork)`);
    if (forks.length > 1000) throw new InputError(`${path} lists ${forks.length} fork proofs; at most 1000 are checked at once`);
    return { list: true, verdicts: forks.map((f, i) => checkForkDoc(`${path} forks[${i}]`, f, trust)) };
  }
  return { list: false, verdicts: [checkForkDoc(path, j, trust)] };
}

function checkForkDoc(path: string, json: unknown, trust: { key: KeyRecord; log?: string }): ForkVerdict {
  const doc = readDocument('ForkProof', json) as Result<ForkProof>;
  if (!doc.ok) throw new InputError(`${path} is not a ForkProof: ${doc.code}: ${doc.detail}`);
  return forkVerdict(doc.value, trust);
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, { policy: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('one PROOF file is required');
    if ((values.policy === undefined) === (values.key === undefined))
      throw new UsageError('give exactly one of --policy POLICY or --key KEYRECORD');
    let all: { list: boolean; verdicts: ForkVerdict[] };
    try {
      all = await checkForkFileAll(positionals[0], { policy: values.policy, key: values.key });
    } catch (e) {
      if (e instanceof InputError) {
        process.stderr.write(`cookwala verify-fork: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
    if (values.json) {
      process.stdout.write(JSON.stringify(all.list ? all.verdicts : all.verdicts[0]) + '\n');
      return all.verdicts.some((v) => v.proven) ? 0 : 1;
    }
    for (const verdict of all.verdicts) {
      if (verdict.proven) {
        process.stdout.write(
          `FORK PROVEN: log ${verdict.log} at seq ${verdict.seq}\n  a: head ${verdict.a!.head} root ${verdict.a!.root}\n  b: head ${verdict.b!.head} root ${verdict.b!.root}\nboth signed by the sequencer key.\n`,
        );
      } else process.stdout.write(`NOT A FORK PROOF: ${verdict.code}: ${verdict.detail}\n`);
    }
    return all.verdicts.some((v) => v.proven) ? 0 : 1;
  });
}
