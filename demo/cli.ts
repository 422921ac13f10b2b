// demo/cli.ts: `cookwala demo [--data DIR] [--once] [--fork] [--devices N]`, what `npm start` runs
// (docs/design.md §12). On a fresh checkout it takes DIR (data-dir.ts), then runs the steps in
// order, each through the parts' real commands as child processes (children.ts): the sequencer
// and three witnesses (network.ts; the third is asked over C2SP tlog-witness HTTP, and the demo
// prints the `curl …/tlog/{log}/checkpoint` line), simulated devices on a mission (mission.ts), one device's
// consent withdrawal and the erasure it causes, the audit (audit.ts: checkpoint at quorum, export,
// keys, policy, offline verify), with --fork the forged checkpoint and its ForkProof (fork.ts),
// then either stops (--once) or keeps running with a progress line until Ctrl-C (live.ts). Once the
// network is up a witness may die (witness-keeper.ts: said, restarted; --kill-witness-after N and
// the `w` key kill one on purpose); the sequencer's or a device's death still ends the demo.
// Exit codes: 0 the bundle verified (and with --fork the fork was proven; without --once, after
// Ctrl-C); 1 a step failed, a child other than a witness died (named, with the tail of its log) or the verdict was
// negative; 2 bad flags or a DIR that is not ours. Every child is stopped before the demo exits.

import { join } from 'node:path';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { DEFAULT_DIRS, DEMO_CHILD_ENV } from '../platform/index.ts';
import { createSupervisor, describeExit, SupervisorClosed, tailOf, type ChildDeath } from './children.ts';
import { DEFAULT_OPTIONS, type DemoContext } from './context.ts';
import { prepareDemoDir } from './data-dir.ts';
import { setUpNetwork } from './network.ts';
import { runMission, withdrawConsent } from './mission.ts';
import { auditBundle, fetchKeys, indent } from './audit.ts';
import { runLive } from './live.ts';
import { keepWitnesses, listenForKeys, scheduleWitnessKill, victimOf } from './witness-keeper.ts';
import { Aborted, DemoError, sleep } from './wait.ts';
import { explorerLine, prepareWebPages, verifierLine } from './web-pages.ts';

const USAGE = `usage: cookwala demo [--data DIR] [--once] [--fork] [--devices N] [--kill-witness-after N]

Runs the whole system on 127.0.0.1: a sequencer (log ${DEFAULT_OPTIONS.log}, hash_only), three
witnesses (two asked over libp2p, one over C2SP tlog-witness HTTP; quorum 2) and N simulated devices (default ${DEFAULT_OPTIONS.devices}) on a mission; one device
withdraws its consent (its payloads are erased); the log is exported and verified offline.
  --data DIR     where everything lives (default ${DEFAULT_DIRS.demo}); a previous demo's DIR is cleared,
                 any other non-empty DIR (a sequencer's or a witness's above all) is refused
  --once         stop after the verdict: exit 0 only when the bundle verified (and the fork was proven)
  --fork         also make the sequencer key sign a conflicting checkpoint and show the witnesses
                 catching it with a ForkProof (DIR/fork-proof.json)
  --devices N    simulated devices (1-16, default ${DEFAULT_OPTIONS.devices})
  --kill-witness-after N
                 N seconds after the network is up, SIGKILL witness-2; N seconds later start it
                 again (1-3600): the log goes on at quorum with the others, and it catches up
Without --once it keeps running, printing progress, until Ctrl-C; on a terminal the key w stops
witness-2 or starts it again. A witness that dies is said and restarted. Children's output: DIR/logs/.`;

const FILES = ['bundle.ndjson', 'policy.json', 'keys.json'];

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      once: { type: 'boolean' },
      fork: { type: 'boolean' },
      devices: { type: 'string' },
      'kill-witness-after': { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const devices = values.devices === undefined ? DEFAULT_OPTIONS.devices : Number(values.devices);
    if (!Number.isSafeInteger(devices) || devices < 1 || devices > 16) throw new UsageError('--devices is an integer from 1 to 16');
    const killAfter = values['kill-witness-after'] === undefined ? undefined : Number(values['kill-witness-after']);
    if (killAfter !== undefined && (!Number.isSafeInteger(killAfter) || killAfter < 1 || killAfter > 3600))
      throw new UsageError('--kill-witness-after is a number of seconds from 1 to 3600');
    const prep = await prepareDemoDir(values.data ?? DEFAULT_DIRS.demo);
    if (!prep.ok) {
      process.stderr.write(`cookwala demo: ${prep.reason}\n`);
      return 2;
    }
    process.env[DEMO_CHILD_ENV] = '1'; // the children may use the folders inside DIR (data-dir-kind.ts)
    return runDemo(prep.dir, { once: values.once === true, fork: values.fork === true, devices, cleared: prep.cleared, killAfter });
  });
}

interface RunFlags {
  once: boolean;
  fork: boolean;
  devices: number;
  cleared: boolean;
  killAfter?: number;
}

async function runDemo(dir: string, flags: RunFlags): Promise<number> {
  const t0 = Date.now();
  const say = (line: string) => process.stdout.write(line + '\n');
  const sup = createSupervisor({ logsDir: join(dir, 'logs') });
  const controller = new AbortController();
  const ctx: DemoContext = {
    dir,
    opts: { ...DEFAULT_OPTIONS, devices: flags.devices },
    sup,
    signal: controller.signal,
    say,
    elapsed: () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s`,
  };
  let death: ChildDeath | undefined;
  void sup.died.then((d) => {
    death = d;
    controller.abort();
  });
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      say(`\n${sig}: stopping every child (SIGTERM, then SIGKILL after 8 s; press Ctrl-C again to kill at once)`);
      controller.abort();
    } else sup.killAll();
  };
  // SIGHUP too: the children are in their own sessions, so a closed terminal reaches only the demo.
  const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of SIGNALS) process.on(s, onSignal);

  const web = await prepareWebPages();
  say(verifierLine(web, dir));
  say(`cookwala demo: data in ${dir}${flags.cleared ? ' (the previous demo there was cleared)' : ''}; children's logs in ${sup.logsDir}`);
  let verified = false;
  let forkOk = !flags.fork;
  const flow = (async () => {
    const net = await setUpNetwork(ctx);
    say(explorerLine(net.sequencerUrl));
    // From here a witness may die: said, the log goes on at quorum, and it is started again.
    const keeper = await keepWitnesses(ctx, net);
    if (flags.killAfter !== undefined) scheduleWitnessKill(ctx, keeper, victimOf(net), flags.killAfter);
    if (!flags.once) listenForKeys(ctx, keeper, victimOf(net));
    const keys = fetchKeys(ctx, net);
    keys.catch(() => undefined); // awaited by auditBundle
    await runMission(ctx, net);
    // libp2p loads while the demo mostly waits (withdrawal, checkpoint), not on the fork's clock.
    const forkModule = flags.fork ? import('./fork.ts') : undefined;
    forkModule?.catch(() => undefined);
    const withdrawal = await withdrawConsent(ctx, net);
    verified = (await auditBundle(ctx, net, keys)).verified;
    if (forkModule) {
      const { demonstrateFork } = await forkModule;
      forkOk = (await demonstrateFork(ctx, net)).proven;
    }
    if (flags.once) return;
    if (!verified || !forkOk) say(`[${ctx.elapsed()}] the demo keeps running so you can look around, but it will exit 1`);
    await runLive(ctx, net, withdrawal);
  })();
  flow.catch(() => undefined);
  const aborted = new Promise<void>((r) => controller.signal.addEventListener('abort', () => r(), { once: true }));

  let failure: unknown;
  try {
    await Promise.race([flow, aborted]);
  } catch (e) {
    failure = e;
  }
  // A failure caused by a dying child: let the death report win (it names the child).
  if (failure && !death) await Promise.race([sup.died, sleep(300)]);
  const stopped = await sup.stopAll();
  for (const s of SIGNALS) process.off(s, onSignal);

  let code = verified && forkOk ? 0 : 1;
  let why = verified ? 'the fork was not proven' : 'the bundle was not verified';
  if (death) {
    process.stderr.write(
      `\ncookwala demo: ${death.child.name} (pid ${death.child.pid}) exited unexpectedly: ${describeExit(death.exit)}\n`,
    );
    process.stderr.write(`last lines of ${death.child.logPath}:\n${indent(death.tail || '(empty)')}\n`);
    code = 1;
    why = `${death.child.name} died`;
  } else if (failure && !(failure instanceof Aborted) && !(failure instanceof SupervisorClosed)) {
    if (failure instanceof DemoError) {
      process.stderr.write(`\ncookwala demo: ${failure.message}\n`);
      if (failure.logPath)
        process.stderr.write(`last lines of ${failure.logPath}:\n${indent((await tailOf(failure.logPath, 15)) || '(empty)')}\n`);
    } else process.stderr.write(`\ncookwala demo: unexpected error: ${(failure as Error)?.stack ?? String(failure)}\n`);
    code = 1;
    why = 'a step failed';
  } else if (signals > 0 && code !== 0) why = `interrupted before ${verified ? 'the fork was proven' : 'the bundle was verified'}`;

  const killed = stopped.filter((s) => s.killed).map((s) => s.name);
  say(`[${ctx.elapsed()}] stopped ${stopped.length} children${killed.length ? ` (${killed.join(', ')} needed SIGKILL)` : ''}`);
  if (code === 0) say(`done: ${dir} holds what an auditor is handed: ${[...FILES, ...(flags.fork ? ['fork-proof.json'] : [])].join(', ')}`);
  else say(`the demo did not succeed (${why}; exit 1); children's logs in ${sup.logsDir}`);
  return code;
}
