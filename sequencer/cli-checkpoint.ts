// sequencer/cli-checkpoint.ts: `cookwala checkpoint --url URL --log ORIGIN [--wait DURATION]
// [--policy POLICY]` : what a running sequencer has published, said in words, so an
// operator sees every cosigner by its one name (verifier/signing/witness-identity.ts), each
// signature that did not count with why, and each policy witness that did not cosign, without
// reading the JSON of GET …/checkpoint. With
// --wait it waits (bounded by DURATION) until the published checkpoint covers the log's head as
// it was when the command started, then prints it: the step between "devices delivered" and
// "export the bundle". The checkpoint is checked against the policy (the sequencer's own
// GET …/policy unless --policy is given): an unwitnessed log (quorum 0) is said to be so.
// Exit 0 printed (and covered), 1 the checkpoint does not verify against the policy or --wait ran
// out, 2 the input or the environment is unusable (one line naming the flag).

import { readFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError, readTextCapped } from '../platform/index.ts';
import { expectSequencer, getSmallJson } from '../platform/index.ts';
import { parseDuration } from '../verifier/documents/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import { verifyCheckpoint, type Checkpoint, type RejectedCosignature } from '../verifier/documents/index.ts';
import { witnessDisplayName } from '../verifier/signing/index.ts';

const USAGE = `usage: cookwala checkpoint --url URL --log ORIGIN [--wait DURATION] [--policy POLICY]

Prints the latest published checkpoint of a log: seq, root, and which witnesses of the policy
cosigned it. --wait 60s: first wait until it covers every entry the log held when the command
started (e.g. after devices delivered, before \`cookwala export\`), and for the sequencer to answer
if it is still starting. --policy: check it against this
policy file rather than the one the sequencer serves.`;

interface Head {
  seq: number;
}

async function headSeq(base: string): Promise<number | undefined> {
  const res = await fetch(`${base}/entries?order=desc&limit=1`, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) return undefined;
  const line = (await readTextCapped(res, 1 << 20)).split('\n')[0];
  if (!line) return 0;
  const j = parseJson(line);
  return j.ok ? ((j.value as Head | null)?.seq ?? 0) : undefined;
}

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      url: { type: 'string' },
      log: { type: 'string' },
      wait: { type: 'string' },
      policy: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.url || !values.log) throw new UsageError('--url and --log are required');
    let waitMs = 0;
    if (values.wait !== undefined) {
      const d = parseDuration(values.wait);
      if (!d.ok || d.value > 3_600_000) throw new UsageError('--wait is a duration up to 1h (e.g. 60s)');
      waitMs = d.value;
    }
    const err = (s: string) => (process.stderr.write(`cookwala checkpoint: ${s}\n`), 2);
    const deadline = Date.now() + waitMs;
    // With --wait, a sequencer that is still starting (nothing listens yet) is waited for too.
    let probe = await expectSequencer(values.url, values.log);
    while (!probe.ok && probe.code === 'witness_unavailable' && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 250));
      probe = await expectSequencer(values.url, values.log);
    }
    if (!probe.ok) return err(probe.detail);
    const base = `${values.url.replace(/\/+$/, '')}/v1/logs/${encodeURIComponent(values.log)}`;
    let policy: WitnessPolicy | undefined;
    if (values.policy) {
      const t = await readFile(values.policy, 'utf8').catch(() => undefined);
      const j = t === undefined ? undefined : parseJson(t);
      const p = j?.ok ? readWitnessPolicy(j.value) : undefined;
      if (!p?.ok) return err(`${values.policy} is not a readable witness policy: check --policy`);
      policy = p.value;
    } else {
      const pj = await getSmallJson(`${base}/policy`, '--url');
      const p = pj.ok && pj.value.status === 200 ? readWitnessPolicy(pj.value.body) : undefined;
      if (p?.ok) policy = p.value;
    }
    const target = waitMs > 0 ? await headSeq(base) : undefined;
    let cp: Checkpoint | undefined;
    for (;;) {
      const r = await getSmallJson(`${base}/checkpoint`, '--url');
      // While waiting, a sequencer re-opening with a new policy (a moment without a listener) is waited out.
      if (!r.ok && Date.now() >= deadline) return err(r.detail);
      cp = r.ok && r.value.status === 200 ? (r.value.body as Checkpoint) : undefined;
      const counted = cp && policy ? verifyCheckpoint(cp, policy) : undefined;
      const covered = cp !== undefined && (target === undefined || cp.seq >= target) && (counted === undefined || counted.ok);
      if (covered || Date.now() >= deadline) break;
      await new Promise((res) => setTimeout(res, 500));
    }
    if (!cp) {
      process.stdout.write(
        `no published checkpoint of ${values.log} yet${policy && policy.quorum > 0 ? ` (it needs ${policy.quorum} witness cosignatures)` : ''}\n`,
      );
      return 1;
    }
    process.stdout.write(`checkpoint of ${cp.log} at seq ${cp.seq}, root ${cp.root}\n`);
    if (!policy) process.stdout.write('  no witness policy: the sequencer serves none and no --policy was given\n');
    else if (policy.quorum === 0)
      process.stdout.write('  UNWITNESSED: the policy asks for no witness (quorum 0); only the sequencer signed it\n');
    else {
      // Every cosigner by its one name (a witness is its key: witness-identity.ts), each once; what
      // did not count is named with why. Never "met" unless verifyCheckpoint says so.
      const v = verifyCheckpoint(cp, policy);
      const verdict: { names: string[]; rejected: RejectedCosignature[] } = v.ok
        ? v.value
        : { names: (v.names as string[] | undefined) ?? [], rejected: (v.rejected as RejectedCosignature[] | undefined) ?? [] };
      const n = verdict.names.length;
      process.stdout.write(
        `  ${n} cosignature${n === 1 ? '' : 's'} (quorum ${policy.quorum} of ${policy.witnesses.length} witnesses): ${v.ok ? 'met' : 'NOT met'}\n`,
      );
      for (const name of verdict.names) process.stdout.write(`  cosigned by   ${name}\n`);
      for (const r of verdict.rejected) process.stdout.write(`  not counted   ${r.kid}: ${r.code}: ${r.detail}\n`);
      for (const w of policy.witnesses)
        if (!verdict.names.includes(witnessDisplayName(w))) process.stdout.write(`  no cosignature from ${witnessDisplayName(w)}\n`);
      if (!v.ok) {
        if (v.code !== 'quorum_not_met') process.stdout.write(`  ${v.code}: ${v.detail}\n`);
        return 1;
      }
    }
    if (target !== undefined && cp.seq < target) {
      process.stdout.write(`  it does not cover seq ${target} yet (--wait ${values.wait} ran out)\n`);
      return 1;
    }
    return 0;
  });
}
