// auditor/verify.ts: `cookwala verify BUNDLE --policy POLICY [--keys CACHE] [--json]
// [--allow-legacy-signatures] [--workers N]` (docs/design.md §8): the offline audit of a whole exported
// log. It reads the header and the checkpoint seqs ahead (bundle-file.ts), streams the file
// line by line into the pure verifier (verifier/bundle/verifier.ts), checks device signatures on all cores
// through the worker pool (platform/sig-pool.ts), and prints the human summary or, with --json, the same
// report as JSON. The (source, id) set spills sorted runs to a private temp directory
// (spill-dir.ts, removed when the run ends however it ends), so memory stays flat at any length
// and every duplicate is confirmed exactly. A progress bar goes to stderr only when stderr is a terminal. Exit 0 valid,
// 1 invalid, 2 unusable input (unreadable file, policy or key cache; a header of another type or
// major version). No network: trust comes from the policy and the key cache alone. With --resume
// STATE an incremental audit goes on from an AuditState (audit-state.ts), carrying the (source, id)
// pairs of the audits before it (audit-ids.ts: their side file is read 1 MiB at a time into 4
// bytes a pair, the run's new pairs spill beside the set's runs).

import { readFile, stat } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { canReadAhead, forEachLine, readCheckpointSeqsAhead, readLeadingLines } from './bundle-file.ts';
import { InputError, readKeyCacheFile, readPolicyFile } from './trust-files.ts';
import { createSigPool } from '../platform/index.ts';
import { createBundleVerifier } from '../verifier/bundle/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { formatReport, type BundleReport } from '../verifier/bundle/index.ts';
import { createSpillDir } from './spill-dir.ts';
import type { IdSpillOptions } from '../verifier/bundle/index.ts';
import { readAuditState, writeAuditState } from './audit-state.ts';
import { openAuditIds, removeOldIds } from './audit-ids.ts';

const USAGE = `usage: cookwala verify BUNDLE --policy POLICY [--keys CACHE] [--json] [--allow-legacy-signatures] [--require-witnessed] [--workers N] [--spill-dir DIR] [--resume STATE]

Verify an audit bundle (NDJSON) offline, in one streaming pass and constant memory.
  --policy POLICY             the witness policy to trust (sequencer key, witnesses, quorum)
  --keys CACHE                a key cache ({"kind":"KeyCache","keys":[…]}) of further trusted keys
  --json                      print the report as JSON
  --allow-legacy-signatures   accept Core 0.2.0 bare-hash signatures (reported as weaker)
  --workers N                 signature worker threads (default: all cores; 0 = inline)
  --require-witnessed         fail when entries follow the last checkpoint that meets the policy
                              (by default they are reported as not yet witnessed)
  --spill-dir DIR             where the (source, id) check spills past about 600,000 entries
                              (default the system temp directory; about 80 bytes per entry,
                              8 more with --resume, removed when the run ends)
  --resume STATE              an incremental audit: go on from the AuditState file STATE (the
                              bundle from \`cookwala export --from SEQ\` with SEQ = its seq + 1);
                              a missing STATE starts from seq 1; a valid run writes STATE anew
Exit 0 valid, 1 invalid, 2 unusable input.`;

export interface VerifyFileOptions {
  policyPath: string;
  keysPath?: string;
  allowLegacy?: boolean;
  requireWitnessed?: boolean;
  workers?: number;
  onProgress?: (bytes: number, total: number, entries: number) => void;
  /** Parent of the (source, id) set's spill directory (default os.tmpdir()). */
  spillDir?: string;
  /** Sizes of the (source, id) set (tests use tiny ones to spill often). */
  idSet?: Omit<IdSpillOptions, 'sink'>;
  /** The AuditState file of an incremental audit (read, and written again after a valid run). */
  resumePath?: string;
}

/** Verify one bundle file; throws InputError for unusable policy, key cache or bundle file. */
export async function verifyBundleFile(path: string, o: VerifyFileOptions): Promise<BundleReport> {
  const policy = await readPolicyFile(o.policyPath);
  const keys = await readKeyCacheFile(o.keysPath);
  let total: number;
  try {
    total = (await stat(path)).size;
  } catch (e) {
    throw new InputError(`cannot read the bundle ${path}: ${(e as Error).message}`);
  }
  let ahead: number[] | undefined;
  // A pipe is read once, from the start: no header peek, no tail.
  const seekable = await canReadAhead(path).catch(() => false);
  const [first, second] = seekable ? await readLeadingLines(path, 2) : [];
  // The verifier names what is wrong with the header; a header refused here gives no read-ahead.
  const hj = first === undefined ? undefined : parseJson(first);
  const h = hj?.ok ? (hj.value as { checkpoints?: unknown } | null) : undefined;
  // A proof file is pretty-printed JSON (its first line is "{"): read it whole when small.
  let doc: unknown = h;
  if (!hj?.ok && seekable && total <= 1 << 20) {
    const whole = parseJson(await readFile(path, 'utf8').catch(() => ''));
    if (whole.ok) doc = whole.value;
  }
  // The header is not signed: a header naming another log while the signed descriptor below it
  // names the policy's log is tampering, for the report; otherwise it is another log's bundle (exit 2).
  const dj = second === undefined ? undefined : parseJson(second);
  const descriptorLog = dj?.ok && dj.value !== null && typeof dj.value === 'object' ? (dj.value as { log?: unknown }).log : undefined;
  const wrong = wrongInput(path, doc, policy.log, o.policyPath, descriptorLog);
  if (wrong) throw new InputError(wrong);
  if (h && Number.isSafeInteger(h.checkpoints)) ahead = await readCheckpointSeqsAhead(path, h.checkpoints as number).catch(() => undefined);
  const state = o.resumePath === undefined ? undefined : await readAuditState(o.resumePath, policy.log);
  const resume = state?.resume;
  // The (source, id) set keeps flat memory by spilling sorted runs here (removed in the finally),
  // and so do the new pairs of an incremental audit. Nothing is made there before the first run.
  const spill = createSpillDir(o.spillDir);
  const earlierIds = o.resumePath === undefined ? undefined : await openAuditIds(o.resumePath, state?.ids, { sink: spill });
  const pool = o.workers === 0 ? undefined : createSigPool({ size: o.workers });
  try {
    const v = createBundleVerifier({
      policy,
      keys,
      allowLegacy: o.allowLegacy,
      requireWitnessed: o.requireWitnessed,
      checkpointSeqs: ahead,
      verifyBatch: pool ? (items) => pool.verify(items) : undefined,
      idSpill: { ...o.idSet, sink: spill },
      resume,
      earlierIds,
    });
    let bytes = 0;
    try {
      await forEachLine(
        path,
        (text, flags) => (v.stopped ? false : v.line(text, flags)),
        (n) => {
          bytes += n;
          o.onProgress?.(bytes, total, v.progress.entries);
        },
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || !code.startsWith('E')) throw e;
      throw new InputError(`cannot read the bundle ${path}: ${(e as Error).message}`);
    }
    const report = await v.end();
    const next = v.resumePoint();
    if (o.resumePath !== undefined && earlierIds && report.valid && next && next.seq !== resume?.seq) {
      const ids = await earlierIds.save(o.resumePath, next.seq);
      await writeAuditState(o.resumePath, policy.log, next, ids);
      await removeOldIds(o.resumePath, state?.ids, ids);
    }
    return report;
  } finally {
    await pool?.close();
    await earlierIds?.close();
    await spill.dispose();
  }
}

/**
 * One line for a file that is not what `verify` reads, or a policy of another log,
 * instead of a report of zeros or one failure per line: the command or flag to use instead.
 */
export function wrongInput(
  path: string,
  first: unknown,
  policyLog: string,
  policyPath: string,
  descriptorLog?: unknown,
): string | undefined {
  const j = first as { kind?: unknown; type?: unknown; log?: unknown; forks?: unknown } | null | undefined;
  if (!j || typeof j !== 'object' || Array.isArray(j)) return undefined;
  if (j.kind === 'EventProof')
    return `${path} is an event proof, not an audit bundle: check it with \`cookwala verify-event ${path} --policy ${policyPath}\``;
  if (j.kind === 'ForkProof' || Array.isArray(j.forks))
    return `${path} is a fork proof, not an audit bundle: check it with \`cookwala verify-fork ${path} --policy ${policyPath}\``;
  if (j.kind === 'WitnessPolicy' || j.kind === 'KeyCache')
    return `${path} is a ${j.kind}, not an audit bundle: give the bundle (\`cookwala export\` writes one) first and the ${j.kind === 'KeyCache' ? 'key cache as --keys' : 'policy as --policy'}`;
  if (j.type === 'cookwala-audit-bundle' && typeof j.log === 'string' && j.log !== policyLog && descriptorLog !== policyLog)
    return `${path} is the bundle of log ${j.log}, but ${policyPath} is the policy of ${policyLog}: pass the policy of ${j.log} as --policy`;
  return undefined;
}

function progressBar(): { update: (bytes: number, total: number, entries: number) => void; done: () => void } {
  if (!process.stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  const width = 30;
  return {
    update(bytes, total, entries) {
      const now = Date.now();
      if (now - last < 200 && bytes < total) return;
      last = now;
      const f = total > 0 ? bytes / total : 1;
      const bar = '#'.repeat(Math.round(f * width)).padEnd(width, '.');
      process.stderr.write(`\r[${bar}] ${(f * 100).toFixed(0).padStart(3)}%  ${entries} entries`);
    },
    done: () => process.stderr.write('\r\x1b[K'),
  };
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      policy: { type: 'string' },
      keys: { type: 'string' },
      json: { type: 'boolean' },
      'allow-legacy-signatures': { type: 'boolean' },
      'require-witnessed': { type: 'boolean' },
      workers: { type: 'string' },
      'spill-dir': { type: 'string' },
      resume: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one BUNDLE file');
    if (!values.policy) throw new UsageError('--policy POLICY is required');
    const workers = values.workers === undefined ? undefined : Number(values.workers);
    if (workers !== undefined && (!Number.isSafeInteger(workers) || workers < 0 || workers > 256))
      throw new UsageError('--workers is an integer from 0 to 256');
    const bar = progressBar();
    let report: BundleReport;
    try {
      report = await verifyBundleFile(positionals[0], {
        policyPath: values.policy,
        keysPath: values.keys,
        allowLegacy: values['allow-legacy-signatures'],
        requireWitnessed: values['require-witnessed'],
        workers,
        spillDir: values['spill-dir'],
        resumePath: values.resume,
        onProgress: bar.update,
      });
    } catch (e) {
      bar.done();
      if (!(e instanceof InputError)) throw e;
      if (values.json) process.stdout.write(JSON.stringify({ valid: false, exitCode: 2, error: e.message }, null, 2) + '\n');
      process.stderr.write(`cookwala verify: ${e.message}\n`);
      return 2;
    }
    bar.done();
    process.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report));
    return report.exitCode;
  });
}
