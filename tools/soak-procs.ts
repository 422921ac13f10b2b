// tools/soak-procs.ts: the soak's three child processes (docs/design.md §14), real ones on 127.0.0.1
// started through bin/cookwala.js: their data directories (a sequencer of one hash_only log, one
// witness admitted to it, a policy of quorum 1 naming that witness), and starting each again after
// a kill: the witness (ready once it wrote witness-info.json), the sequencer (checkpoints every
// 100 ms, publishing through the witness; ready once it logs `listening`), and one `cookwala
// executor --simulate 1` delivering through its outbox (ready at its first status change). Each
// process's output is kept (the last 1,000 to 2,000 lines) for waits and failure messages. Left
// out: the load, the kills and the checks (tools/soak.ts, tools/soak-load.ts,
// tools/soak-audit.ts). Invariant: every process started is in `procs`, so the caller can stop
// them all whatever failed. Never imported by production code.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir } from '../sequencer/index.ts';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig } from '../witness/server/index.ts';
import { admitLog } from '../witness/server/index.ts';
import { readWitnessPolicy } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { readLogLines } from '../platform/index.ts';
import { freePort } from '../testkit/index.ts';
import { readInfo } from '../testkit/index.ts';
import { changes, waitFor } from '../testkit/index.ts';

const ROOT = join(import.meta.dirname, '..');

export interface Proc {
  proc: ChildProcess;
  out: string[];
  exited: Promise<void>;
  waitLine(pred: (l: string) => boolean, what: string, ms?: number): Promise<string>;
}

function spawnProc(args: string[]): Proc {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/cookwala.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const output = changes();
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    out.push(...parts);
    if (out.length > 2000) out.splice(0, out.length - 1000);
    output.notify();
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  let dead = false;
  const exited = new Promise<void>((r) =>
    proc.once('exit', () => {
      dead = true;
      output.notify();
      r();
    }),
  );
  const waitLine = (pred: (l: string) => boolean, what: string, ms = 60_000): Promise<string> => {
    let seen = 0;
    return waitFor(
      () => {
        for (; seen < out.length; seen++) if (pred(out[seen])) return out[seen];
        if (dead) throw new Error(`${args[0]} exited before ${what}:\n${out.slice(-20).join('\n')}`);
        return undefined;
      },
      { what, timeoutMs: ms, wake: output, detail: () => out.slice(-20).join('\n') },
    );
  };
  return { proc, out, exited, waitLine };
}

const listening = (l: string) => readLogLines(l).some((r) => r.event === 'listening');

export type SoakKind = 'sequencer' | 'witness' | 'executor';

export interface SoakCluster {
  readonly dirs: Record<SoakKind, string>;
  /** The sequencer's operator token. */
  readonly token: string;
  /** The sequencer's HTTP base URL (after configureSequencer). */
  readonly base: string;
  /** The witness's HTTP base URL while one has started. */
  readonly witnessHttp: string | undefined;
  /** Writes the sequencer's config: its port, checkpoints every 100 ms, the witness as its peer. */
  configureSequencer(): Promise<void>;
  /** Starts a process of this kind and waits until it is ready. */
  start(kind: SoakKind): Promise<void>;
  /** The process of this kind started last. */
  proc(kind: SoakKind): Proc | undefined;
}

/** Sets up the data directories under `root`; every process it starts is pushed on `procs`. */
export async function prepareSoakCluster(root: string, log: string, procs: Proc[]): Promise<SoakCluster> {
  const dirs = { sequencer: join(root, 'sequencer'), witness: join(root, 'witness'), executor: join(root, 'executor') };
  const seqDir = dirs.sequencer;
  const wDir = dirs.witness;
  await initDataDir({ dir: seqDir, logs: [log], mode: 'hash_only' });
  const token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim();
  const seqKey = JSON.parse(await readFile(join(seqDir, 'sequencer.keyrecord.json'), 'utf8')) as KeyRecord;
  const wPort = await freePort();
  await initWitnessDir(wDir, { name: 'soak-w', listen: [`/ip4/127.0.0.1/tcp/${wPort}`] });
  const wd = await loadWitnessDir(wDir);
  const admitted = admitLog(wd.config, { log, sequencer: seqKey });
  if (!admitted.ok) throw new Error(admitted.detail);
  await saveWitnessConfig(wDir, admitted.value.config);
  const policy = readWitnessPolicy({ kind: 'WitnessPolicy', log, sequencer: seqKey, witnesses: [wd.keyRecord], quorum: 1 });
  if (!policy.ok) throw new Error(policy.detail);
  await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy.value, null, 2));

  const current: Partial<Record<SoakKind, Proc>> = {};
  let witnessHttp: string | undefined;
  let witnessAddr = '';
  let port = 0;
  const base = () => `http://127.0.0.1:${port}`;

  const startWitness = async () => {
    await rm(join(wDir, 'witness-info.json'), { force: true });
    const w = spawnProc(['witness', '--data', wDir]);
    procs.push(w);
    // witness-info.json is written by the child: nothing announces it, so this one wait polls.
    const info = await waitFor(
      async () => {
        const i = await readInfo(wDir);
        if (!i && w.proc.exitCode !== null) throw new Error(`witness exited: ${w.out.slice(-10).join('\n')}`);
        return i;
      },
      { what: 'the soak witness to write witness-info.json', timeoutMs: 60_000 },
    );
    witnessHttp = info.http;
    witnessAddr = info.multiaddrs[0];
    current.witness = w;
  };
  const startSequencer = async () => {
    const p = spawnProc(['sequencer', '--data', seqDir, '--port', String(port)]);
    procs.push(p);
    await p.waitLine(listening, 'the sequencer to listen');
    current.sequencer = p;
  };
  const startExecutor = async () => {
    const p = spawnProc([
      'executor',
      '--data',
      dirs.executor,
      '--port',
      '0',
      '--sequencer',
      base(),
      '--log',
      log,
      '--simulate',
      '1',
      '--missions',
      '100000',
      '--speed',
      '1500',
      '--consent',
      'research_only',
      '--register-token',
      token,
      '--heartbeat-ms',
      '500',
    ]);
    procs.push(p);
    current.executor = p;
    await p.waitLine((l) => / #\d+ /.test(l), 'the executor to report a status change');
  };

  return {
    dirs,
    token,
    get base() {
      return base();
    },
    get witnessHttp() {
      return witnessHttp;
    },
    async configureSequencer() {
      const cfg = JSON.parse(await readFile(join(seqDir, 'config.json'), 'utf8'));
      port = await freePort();
      await writeFile(
        join(seqDir, 'config.json'),
        JSON.stringify({ ...cfg, port, checkpointIntervalMs: 100, witnessPeers: [witnessAddr] }, null, 2),
      );
    },
    start: (kind) => (kind === 'sequencer' ? startSequencer() : kind === 'witness' ? startWitness() : startExecutor()),
    proc: (kind) => current[kind],
  };
}
