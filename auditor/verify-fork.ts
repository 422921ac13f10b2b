// auditor/verify-fork.ts: `cookwala verify-fork PROOF (--policy POLICY | --key KEYRECORD |
// --vkey VKEY) [--json]` (docs/design.md §4, §7, §7a): check fork proofs offline. The log's key
// comes from the auditor (the policy's `sequencer`, a KeyRecord file, or a C2SP log's signed-note
// vkey), never from the proof. A proof is a ForkProof (two JSON checkpoints, ../verifier/documents/fork-proof.ts) or a
// NoteForkProof (two signed notes of a C2SP log, ../verifier/documents/note-fork-proof.ts; a Cookwala log's note key is
// its sequencer key, so --policy and --key check those too). PROOF may also be a witness's
// `GET /v1/forks` answer, `{"forks":[…]}`: each proof is checked, one verdict per line (--json: an
// array). Exit codes, for a monitoring job: 0 a fork is proven, 1 a proof was given and proves
// nothing, 2 unusable input (a file that cannot be read, is not JSON, holds no proof document, or
// no trusted key), 3 the witness's list holds no proof at all (nothing to check: no fork seen).
// No network.

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { InputError, readJsonFile, readPolicyFile } from './trust-files.ts';
import { readDocument } from '../verifier/documents/index.ts';
import { forkVerdict, type ForkProof, type ForkVerdict } from '../verifier/documents/index.ts';
import { NOTE_FORK_PROOF, noteForkVerdict, readNoteForkProof } from '../verifier/documents/index.ts';
import { parseVerifierKey } from '../verifier/c2sp/note/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { Result } from '../verifier/index.ts';

/** The exit codes, named (the README and docs/witnesses.md mirror them). */
export const VERIFY_FORK_EXIT = { proven: 0, notProven: 1, unusable: 2, noFork: 3 } as const;

const USAGE = `usage: cookwala verify-fork PROOF (--policy POLICY | --key KEYRECORD | --vkey VKEY) [--json]

Check fork proofs offline. A ForkProof: two checkpoints of one log at one seq, both validly signed
by the log's sequencer key, with different head or root. A NoteForkProof (a C2SP log, as a witness
lists it): two signed checkpoint notes of the log's key at one size with different roots.
PROOF may be a witness's GET /v1/forks answer, {"forks":[...]}: each proof is checked.
  --policy POLICY   the witness policy naming the log and its sequencer key
  --key KEYRECORD   or the sequencer's KeyRecord alone
  --vkey VKEY       or a C2SP log's signed-note verifier key (name+id+base64)
  --json            print the verdict(s) as JSON
Exit codes:
  0  a fork is proven
  1  a proof was given but proves no fork (forged, equal checkpoints, another log)
  2  unusable input (unreadable, not JSON, not a proof, no trusted key)
  3  no fork found: the witness's list holds no proof`;

interface Trust {
  key?: KeyRecord;
  vkey?: string;
  log?: string;
}

/** A witness's fork list with no proof in it: nothing to check (exit 3), not unusable input. */
export class NoForkError extends Error {
  override readonly name = 'NoForkError';
}

async function readTrust(o: { policy?: string; key?: string; vkey?: string }): Promise<Trust> {
  if (o.policy !== undefined) {
    const p = await readPolicyFile(o.policy);
    return { key: p.sequencer, log: p.log };
  }
  if (o.vkey !== undefined) {
    const v = parseVerifierKey(o.vkey);
    if (!v.ok) throw new InputError(`--vkey ${o.vkey.slice(0, 80)} is not a signed-note vkey: ${v.code}: ${v.detail}`);
    return { vkey: o.vkey };
  }
  const r = readDocument('KeyRecord', await readJsonFile(o.key!, 'key record')) as Result<KeyRecord>;
  if (!r.ok) throw new InputError(`the key ${o.key} is not a KeyRecord: ${r.code}: ${r.detail}`);
  return { key: r.value };
}

export async function checkForkFile(path: string, o: { policy?: string; key?: string; vkey?: string }): Promise<ForkVerdict> {
  const trust = await readTrust(o);
  return checkForkDoc(path, await readJsonFile(path, 'fork proof'), trust);
}

/** Every proof of a file: a ForkProof, a NoteForkProof, or a witness's list `{"forks":[…]}` (at most 1000). */
export async function checkForkFileAll(
  path: string,
  o: { policy?: string; key?: string; vkey?: string },
): Promise<{ list: boolean; verdicts: ForkVerdict[] }> {
  const trust = await readTrust(o);
  const j = await readJsonFile(path, 'fork proof');
  const forks = (j as { forks?: unknown } | null)?.forks;
  if (j && typeof j === 'object' && !Array.isArray(j) && Array.isArray(forks) && (j as { kind?: unknown }).kind === undefined) {
    if (forks.length === 0) throw new NoForkError(`${path} is a witness's fork list with no proof in it (the witness has seen no fork)`);
    if (forks.length > 1000) throw new InputError(`${path} lists ${forks.length} fork proofs; at most 1000 are checked at once`);
    return { list: true, verdicts: forks.map((f, i) => checkForkDoc(`${path} forks[${i}]`, f, trust)) };
  }
  return { list: false, verdicts: [checkForkDoc(path, j, trust)] };
}

function checkForkDoc(path: string, json: unknown, trust: Trust): ForkVerdict {
  if ((json as { kind?: unknown } | null)?.kind === NOTE_FORK_PROOF) {
    const doc = readNoteForkProof(json);
    if (!doc.ok) throw new InputError(`${path} is not a NoteForkProof: ${doc.code}: ${doc.detail}`);
    return noteForkVerdict(doc.value, trust);
  }
  const doc = readDocument('ForkProof', json) as Result<ForkProof>;
  if (!doc.ok) throw new InputError(`${path} is not a ForkProof: ${doc.code}: ${doc.detail}`);
  if (!trust.key)
    return {
      proven: false,
      form: 'ForkProof',
      log: doc.value.log,
      code: 'unknown_key',
      detail: 'a ForkProof is checked with --policy or --key',
    };
  return { ...forkVerdict(doc.value, { key: trust.key, log: trust.log }), form: 'ForkProof' };
}

const side = (s: { head?: string; root: string }) => `${s.head !== undefined ? `head ${s.head} ` : ''}root ${s.root}`;

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      policy: { type: 'string' },
      key: { type: 'string' },
      vkey: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('one PROOF file is required');
    if ([values.policy, values.key, values.vkey].filter((v) => v !== undefined).length !== 1)
      throw new UsageError('give exactly one of --policy POLICY, --key KEYRECORD or --vkey VKEY');
    let all: { list: boolean; verdicts: ForkVerdict[] };
    try {
      all = await checkForkFileAll(positionals[0], { policy: values.policy, key: values.key, vkey: values.vkey });
    } catch (e) {
      if (e instanceof NoForkError) {
        if (values.json) process.stdout.write('[]\n');
        else process.stdout.write(`NO FORK FOUND: ${e.message}\n`);
        return VERIFY_FORK_EXIT.noFork;
      }
      if (e instanceof InputError) {
        process.stderr.write(`cookwala verify-fork: ${e.message}\n`);
        return VERIFY_FORK_EXIT.unusable;
      }
      throw e;
    }
    const code = all.verdicts.some((v) => v.proven) ? VERIFY_FORK_EXIT.proven : VERIFY_FORK_EXIT.notProven;
    if (values.json) {
      process.stdout.write(JSON.stringify(all.list ? all.verdicts : all.verdicts[0]) + '\n');
      return code;
    }
    for (const verdict of all.verdicts) {
      if (verdict.proven) {
        const by = verdict.form === 'NoteForkProof' ? "the log's note key" : 'the sequencer key';
        process.stdout.write(
          `FORK PROVEN: log ${verdict.log} at seq ${verdict.seq}\n  a: ${side(verdict.a!)}\n  b: ${side(verdict.b!)}\nboth signed by ${by}.\n`,
        );
      } else process.stdout.write(`NOT A FORK PROOF: ${verdict.code}: ${verdict.detail}\n`);
    }
    return code;
  });
}
