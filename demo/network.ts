// demo/network.ts: step 2 of the demo (docs/design.md §7, §12): the log's sequencer and its witnesses, each
// set up and run with its own real command. `cookwala init` makes DIR/sequencer (log
// localhost/missions/demo, hash_only); `cookwala witness init` and `witness add-log` make
// DIR/witness-N, each admitting the sequencer's KeyRecord (read from DIR/sequencer/policy.json);
// the witnesses start on free ports (witness-1 first, the others bootstrapping to it so gossip has
// a mesh) and are known from their DIR/witness-N/witness-info.json. The last witness is asked over
// C2SP tlog-witness HTTP (its policy entry has `vkey` and `url`; it is not in witnessPeers), the
// others over libp2p, and the demo prints the `curl …/tlog/{log}/checkpoint` line an auditor can
// run. Then the demo writes what an
// operator would: the sequencer's witness policy (the witnesses' KeyRecords, quorum k) and its
// witnessPeers, and starts the sequencer on a free port (its URL read from its log line).
// Invariant: the policy and config written here are read back through the same strict readers the
// sequencer uses, so a bad edit fails here with a clear message, not inside the child.
// Left out: more than one log, and fixed ports (every listener takes a free one).

import { readFile, rename, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import { readConfig } from '../sequencer/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { describeExit, type Child } from './children.ts';
import { readLogLines } from '../platform/index.ts';
import type { DemoContext, Network, WitnessNode } from './context.ts';
import { DemoError, waitFor } from './wait.ts';

const SETUP_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 45_000;

/** Tiers for stopping (children.ts): devices first, then the sequencer, then the witnesses. */
export const TIER = { witness: 1, sequencer: 2, device: 3 } as const;

export async function readJsonFile<T>(path: string): Promise<T> {
  const j = parseJson(await readFile(path, 'utf8')); // files a user can edit: I-JSON, one reading
  if (!j.ok) throw new DemoError(`${path} is refused: ${j.code}: ${j.detail}`);
  return j.value as T;
}

/** Replace a file atomically (write a temp file, rename). */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, path);
}

async function runOk(ctx: DemoContext, name: string, logName: string, args: string[]): Promise<string> {
  const r = await ctx.sup.run({ name, logName, args }, SETUP_TIMEOUT_MS);
  if (r.code !== 0)
    throw new DemoError(
      `\`cookwala ${args.slice(0, 2).join(' ')}\` (${name}) failed: ${describeExit(r)}`,
      join(ctx.sup.logsDir, `${logName}.log`),
    );
  return r.output;
}

interface WitnessInfoFile {
  peerId: string;
  multiaddrs: string[];
  http?: string;
  keyRecord: KeyRecord;
  /** Its C2SP cosigner (witness/server/note-cosigner.ts): key name and cosignature/v1 vkey. */
  c2sp?: { name: string; vkey: string };
}

async function witnessInfo(dir: string): Promise<WitnessInfoFile | undefined> {
  try {
    const r = parseJson(await readFile(join(dir, 'witness-info.json'), 'utf8'));
    const j = r.ok ? (r.value as WitnessInfoFile | null) : undefined;
    return j && typeof j.http === 'string' && Array.isArray(j.multiaddrs) && j.multiaddrs.length > 0 && j.keyRecord ? j : undefined;
  } catch {
    return undefined;
  }
}

async function startWitness(ctx: DemoContext, name: string, dir: string, bootstrap: string[], viaC2sp = false): Promise<WitnessNode> {
  const args = ['witness', 'run', `--data=${dir}`, ...bootstrap.map((b) => `--bootstrap=${b}`)];
  const child = ctx.sup.start({ name, tier: TIER.witness, args });
  const info = await waitFor(`${name} to write witness-info.json`, () => witnessInfo(dir), {
    timeoutMs: START_TIMEOUT_MS,
    signal: ctx.signal,
    logPath: child.logPath,
  });
  const node: WitnessNode = {
    name,
    dir,
    peerId: info.peerId,
    multiaddrs: info.multiaddrs,
    http: info.http as string,
    keyRecord: info.keyRecord,
    child,
    args,
  };
  if (viaC2sp) {
    if (!info.c2sp) throw new DemoError(`${name}'s witness-info.json has no C2SP vkey`, child.logPath);
    node.c2sp = { url: info.http as string, vkey: info.c2sp.vkey };
  }
  return node;
}

/** The sequencer's URL from its `listening` JSON log line. */
export async function listeningUrl(child: Child): Promise<string | undefined> {
  const url = readLogLines(await child.output()).find((r) => r.event === 'listening')?.url;
  return typeof url === 'string' ? url : undefined;
}

export async function setUpNetwork(ctx: DemoContext): Promise<Network> {
  const { opts } = ctx;
  const sequencerDir = join(ctx.dir, 'sequencer');
  const policyPath = join(sequencerDir, 'policy.json');
  const names = Array.from({ length: opts.witnesses }, (_, i) => `witness-${i + 1}`);
  // Pipelined: each witness is admitted as soon as it and the sequencer key exist, and witness-1
  // starts while the others are still being set up (the others bootstrap to it).
  const sequencerKey = runOk(ctx, 'init', 'sequencer', ['init', `--data=${sequencerDir}`, `--log=${opts.log}`, '--mode=hash_only']).then(
    async () => {
      const initial = readWitnessPolicy(await readJsonFile(policyPath));
      if (!initial.ok) throw new DemoError(`${policyPath} from \`cookwala init\`: ${initial.code}: ${initial.detail}`);
      return { key: initial.value.sequencer, timeBounds: initial.value.timeBounds };
    },
  );
  const admitted = names.map(async (n) => {
    const dir = join(ctx.dir, n);
    await runOk(ctx, `${n} init`, n, ['witness', 'init', `--data=${dir}`, `--name=${n}`]);
    await sequencerKey;
    await runOk(ctx, `${n} add-log`, n, ['witness', 'add-log', `--data=${dir}`, `--log=${opts.log}`, `--sequencer-key=${policyPath}`]);
    return dir;
  });
  // Every branch is awaited below; a failing one must not become an unhandled rejection first.
  for (const p of [sequencerKey, ...admitted]) p.catch(() => undefined);
  const first = admitted[0].then((dir) => startWitness(ctx, names[0], dir, []));
  const rest = names.slice(1).map(async (n, i) => {
    const dir = await admitted[i + 1];
    // The last witness is reached over C2SP tlog-witness HTTP (docs/design.md §7a), the others over libp2p;
    // it still gossips with them over libp2p, so it hears of forks like any witness.
    return startWitness(ctx, n, dir, (await first).multiaddrs, i === names.length - 2);
  });
  const witnesses = await Promise.all([first, ...rest]);
  const { key, timeBounds } = await sequencerKey;
  ctx.say(`[${ctx.elapsed()}] set up: sequencer key ${key.kid}, log ${opts.log} (hash_only); ${names.length} witnesses admit it`);
  for (const w of witnesses) {
    const via = w.c2sp ? `C2SP tlog-witness ${w.c2sp.url}/add-checkpoint (vkey ${w.c2sp.vkey})` : `libp2p ${w.multiaddrs[0]}`;
    ctx.say(`[${ctx.elapsed()}] ${w.name} up: key ${w.keyRecord.kid}, status API ${w.http}, asked over ${via}`);
  }

  // A C2SP witness's policy entry carries its vkey and submission prefix (docs/design.md §4).
  const entries = witnesses.map((w) => (w.c2sp ? { ...w.keyRecord, vkey: w.c2sp.vkey, url: w.c2sp.url } : w.keyRecord));
  // The time bounds `cookwala init` pinned (the ones the demo log declares) stay required (docs/design.md §4).
  const policy = readWitnessPolicy({
    kind: 'WitnessPolicy',
    log: opts.log,
    sequencer: key,
    witnesses: entries,
    quorum: opts.quorum,
    ...(timeBounds ? { timeBounds } : {}),
  });
  if (!policy.ok) throw new DemoError(`the witness policy: ${policy.code}: ${policy.detail}`);
  await writeJsonFile(policyPath, policy.value);
  const configPath = join(sequencerDir, 'config.json');
  const config = {
    ...(await readJsonFile<Record<string, unknown>>(configPath)),
    witnessPeers: witnesses.filter((w) => !w.c2sp).map((w) => w.multiaddrs[0]),
    checkpointIntervalMs: opts.checkpointIntervalMs,
  };
  const checked = readConfig(config);
  if (!checked.ok) throw new DemoError(`${configPath}: ${checked.code}: ${checked.detail}`);
  await writeJsonFile(configPath, config);

  const seq = ctx.sup.start({ name: 'sequencer', tier: TIER.sequencer, args: ['sequencer', `--data=${sequencerDir}`, '--port=0'] });
  const sequencerUrl = await waitFor('the sequencer to listen', () => listeningUrl(seq), {
    timeoutMs: START_TIMEOUT_MS,
    signal: ctx.signal,
    logPath: seq.logPath,
  });
  const token = (await readFile(join(sequencerDir, 'operator.token'), 'utf8')).trim();
  ctx.say(
    `[${ctx.elapsed()}] sequencer up: ${sequencerUrl} (policy: ${witnesses.length} witnesses, quorum ${opts.quorum}; checkpoints every ${opts.checkpointIntervalMs} ms)`,
  );
  ctx.say(
    `[${ctx.elapsed()}] the log as a C2SP signed note (tlog-checkpoint, every cosignature): curl ${sequencerUrl}/tlog/${encodeURIComponent(opts.log)}/checkpoint`,
  );
  for (const w of witnesses.filter((x) => x.c2sp)) {
    ctx.say(
      `[${ctx.elapsed()}] what ${w.name} last cosigned (tlog-witness monitoring read): curl ${w.http}/${createHash('sha256').update(opts.log).digest('hex')}/checkpoint`,
    );
  }
  return { sequencerDir, sequencerUrl, token, sequencerKey: key, policy: policy.value as WitnessPolicy, witnesses };
}
