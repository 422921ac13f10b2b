// demo/audit.ts: step 5 of the demo (docs/design.md §8, §12): what an auditor is handed and what they run.
// Wait until the sequencer publishes a checkpoint covering the log's head that meets the policy's
// witness quorum (checked here with verifyCheckpoint, the auditor's own rule); then, each with its
// real command, export the bundle (`cookwala export --url`), copy the witness policy, and verify the
// bundle offline (`cookwala verify`), printing its verdict, with the key cache that fetchKeys made
// (`cookwala keys fetch`, the sequencer's and each witness's /.well-known/cookwala.json).
// Invariant: "verified" is exactly `cookwala verify` exiting 0 on the files left in DIR.
// Left out: one-event proofs (`cookwala proof`, `cookwala verify-event`); the bundle covers them.

import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyCheckpoint, type Checkpoint } from '../verifier/documents/index.ts';
import { describeExit } from './children.ts';
import { witnessName, type DemoContext, type Network } from './context.ts';
import { latestCheckpoint, tailEntries } from './http.ts';
import { DemoError, waitFor } from './wait.ts';

const COMMAND_TIMEOUT_MS = 60_000;

export interface AuditFiles {
  bundle: string;
  policy: string;
  keys: string;
}

export function auditFiles(dir: string): AuditFiles {
  return { bundle: join(dir, 'bundle.ndjson'), policy: join(dir, 'policy.json'), keys: join(dir, 'keys.json') };
}

export interface AuditResult {
  verified: boolean;
  checkpoint: Checkpoint;
  files: AuditFiles;
  /** What `cookwala verify` printed. */
  verdict: string;
}

export function cosignersOf(cp: Checkpoint, net: Pick<Network, 'witnesses'>): string[] {
  // The log's own note signature (note-ed25519) sits in the array too; it is no cosignature.
  return cp.signature
    .slice(1)
    .filter((s) => !['note-ed25519', 'note-mldsa44'].includes((s as { alg: string }).alg))
    .map((s) => witnessName(net, s.kid))
    .sort();
}

/** The latest published checkpoint once it covers the head and meets the quorum. */
export async function waitForCosignedHead(ctx: DemoContext, net: Network, timeoutMs = 30_000): Promise<Checkpoint> {
  const tail = tailEntries(net.sequencerUrl, ctx.opts.log);
  let why = 'no checkpoint published yet';
  try {
    return await waitFor(
      'a quorum-cosigned checkpoint covering the head',
      async () => {
        await tail.poll(ctx.signal);
        const head = tail.head();
        const cp = await latestCheckpoint(net.sequencerUrl, ctx.opts.log, ctx.signal);
        if (!cp) return undefined;
        if (cp.seq < head) return void (why = `the latest published checkpoint is at seq ${cp.seq}, the head at ${head}`);
        const v = verifyCheckpoint(cp, net.policy);
        if (!v.ok) return void (why = `checkpoint ${cp.seq}: ${v.code}: ${v.detail}`);
        return cp;
      },
      { timeoutMs, intervalMs: 200, signal: ctx.signal, logPath: join(ctx.sup.logsDir, 'sequencer.log') },
    );
  } catch (e) {
    if (e instanceof DemoError) throw new DemoError(`${e.message} (${why})`, e.logPath);
    throw e;
  }
}

async function runStep(ctx: DemoContext, name: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const r = await ctx.sup.run({ name, args }, COMMAND_TIMEOUT_MS);
  return { code: r.code, output: r.output };
}

async function mustRun(ctx: DemoContext, name: string, args: string[]): Promise<string> {
  const r = await runStep(ctx, name, args);
  if (r.code !== 0) throw new DemoError(`\`cookwala ${args[0]}\` failed (exit code ${r.code})`, join(ctx.sup.logsDir, `${name}.log`));
  return r.output;
}

export function indent(text: string, by = '    '): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => by + l)
    .join('\n');
}

/**
 * The auditor's key cache: `cookwala keys fetch` of the sequencer's and every witness's
 * /.well-known/cookwala.json into DIR/keys.json, one after the other (each merges into the file).
 * Independent of the log's content, so the demo runs it while the mission is under way.
 */
/** How long a witness that is down (witness-keeper.ts restarts it) may keep its keys from the cache. */
const WITNESS_KEYS_WAIT_MS = 90_000;

export async function fetchKeys(ctx: DemoContext, net: Network): Promise<void> {
  const { keys } = auditFiles(ctx.dir);
  await mustRun(ctx, 'keys', ['keys', 'fetch', net.sequencerUrl, `--cache=${keys}`]);
  for (const w of net.witnesses) {
    // A witness may be down for a while (killed on purpose, or dead and being restarted): ask again.
    let said = false;
    await waitFor(
      `${w.name} to answer \`cookwala keys fetch\``,
      async () => {
        const r = await runStep(ctx, 'keys', ['keys', 'fetch', w.http, `--cache=${keys}`]);
        if (r.code === 0) return true;
        if (!said) ctx.say(`[${ctx.elapsed()}] ${w.name} does not answer; its keys are fetched once it is back`);
        said = true;
        return undefined;
      },
      { timeoutMs: WITNESS_KEYS_WAIT_MS, intervalMs: 1_000, signal: ctx.signal, logPath: join(ctx.sup.logsDir, 'keys.log') },
    );
  }
}

export async function auditBundle(ctx: DemoContext, net: Network, keysFetched: Promise<void>): Promise<AuditResult> {
  const cp = await waitForCosignedHead(ctx, net);
  const signers = cosignersOf(cp, net);
  ctx.say(
    `[${ctx.elapsed()}] checkpoint: seq ${cp.seq} cosigned by ${signers.join(', ')} (quorum ${net.policy.quorum} of ${net.witnesses.length})`,
  );
  const files = auditFiles(ctx.dir);
  await mustRun(ctx, 'export', ['export', `--url=${net.sequencerUrl}`, `--log=${ctx.opts.log}`, `--out=${files.bundle}`]);
  await keysFetched;
  await copyFile(join(net.sequencerDir, 'policy.json'), files.policy);
  ctx.say(`[${ctx.elapsed()}] auditor's files: ${files.bundle}, ${files.policy}, ${files.keys}`);
  ctx.say(`[${ctx.elapsed()}] verify offline: cookwala verify ${files.bundle} --policy ${files.policy} --keys ${files.keys}`);
  const v = await runStep(ctx, 'verify', ['verify', files.bundle, `--policy=${files.policy}`, `--keys=${files.keys}`]);
  ctx.say(indent(v.output));
  const verified = v.code === 0;
  ctx.say(
    `[${ctx.elapsed()}] verdict: ${verified ? 'VERIFIED' : `NOT VERIFIED (cookwala verify: ${describeExit({ code: v.code, signal: null })})`}`,
  );
  return { verified, checkpoint: cp, files, verdict: v.output };
}
