// auditor/policy-tlog.ts: `cookwala policy to-tlog POLICY [--out FILE]` and `cookwala policy
// from-tlog TEXT [--out FILE]` (docs/design.md §4, §7a; c2sp.org/tlog-policy at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), dispatched by bin/policy.ts. The conversion itself is
// verifier/c2sp/tlog-policy.ts (pure); this file reads and writes files. A tlog-policy file
// from another tool becomes a policy.json the sequencer and the verifier use as is (witnesses with
// `url` are asked over C2SP HTTP). Exit 0 converted, 1 the input has no form on the other side or
// breaks its format (malformed_policy and the like, one line on stderr), 2 unusable input (no file).
// What to-tlog writes without (the policy's timeBounds: tlogDrops) is one stderr line each, exit 0.

import { readFile, writeFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { InputError, readJsonFile } from './trust-files.ts';
import { readWitnessPolicy } from '../verifier/documents/index.ts';
import { policyFromTlog, policyToTlog, tlogDrops } from '../verifier/c2sp/index.ts';
import type { Result } from '../verifier/index.ts';

const TO_USAGE = `usage: cookwala policy to-tlog POLICY [--out FILE]

Write a WitnessPolicy (JSON) as C2SP tlog-policy text: one log line (the log's vkey), one witness
line per witness (its cosignature/v1 vkey and url), the quorum; #cookwala comment lines keep the
KeyRecords so from-tlog gives the same policy back. Every witness needs a vkey. The policy's
timeBounds have no tlog-policy form: they are dropped, and said so on stderr.
Exit 0 written, 1 the policy has no tlog-policy form, 2 unusable input.`;

const FROM_USAGE = `usage: cookwala policy from-tlog TEXT [--out FILE]

Read C2SP tlog-policy text into a WitnessPolicy (JSON, for --policy or a sequencer's policy.json):
one log, cosignature/v1 witnesses, and a quorum that is none, the only witness, or one k-of-all
group. Witnesses with a URL are asked over C2SP tlog-witness HTTP by the sequencer.
Exit 0 written, 1 the text breaks tlog-policy or has no WitnessPolicy form, 2 unusable input.`;

async function emit(text: string, out: string | undefined): Promise<void> {
  if (out === undefined) process.stdout.write(text);
  else await writeFile(out, text);
}

function report(cmd: string, r: Result<unknown>): number {
  if (r.ok) return 0;
  process.stderr.write(`cookwala policy ${cmd}: ${r.code}: ${r.detail}\n`);
  return 1;
}

export function runToTlog(argv: string[]): Promise<number> {
  return runCli(argv, TO_USAGE, async () => {
    const { values, positionals } = parseFlags(argv, { out: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('one POLICY file is required');
    let json: unknown;
    try {
      json = await readJsonFile(positionals[0], 'policy');
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      process.stderr.write(`cookwala policy to-tlog: ${e.message}\n`);
      return 2;
    }
    const p = readWitnessPolicy(json);
    if (!p.ok) return report('to-tlog', p);
    const t = policyToTlog(p.value);
    if (!t.ok) return report('to-tlog', t);
    await emit(t.value, values.out);
    for (const d of tlogDrops(p.value)) process.stderr.write(`cookwala policy to-tlog: dropped ${d}\n`);
    return 0;
  });
}

export function runFromTlog(argv: string[]): Promise<number> {
  return runCli(argv, FROM_USAGE, async () => {
    const { values, positionals } = parseFlags(argv, { out: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('one tlog-policy TEXT file is required');
    let bytes: Uint8Array;
    try {
      bytes = await readFile(positionals[0]);
    } catch (e) {
      process.stderr.write(`cookwala policy from-tlog: cannot read ${positionals[0]}: ${(e as Error).message}\n`);
      return 2;
    }
    const p = policyFromTlog(new Uint8Array(bytes));
    if (!p.ok) return report('from-tlog', p);
    await emit(JSON.stringify(p.value, null, 2) + '\n', values.out);
    return 0;
  });
}
