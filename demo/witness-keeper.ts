// demo/witness-keeper.ts: the demo with a degraded network (docs/design.md §7, §12): once the network is
// up, a witness may die without ending the demo. Its death is said (which witness, how it ended,
// how many witnesses are left against the quorum), the log goes on with the others, and the
// witness is started again (its own command on its own DIR, at the same addresses: the keeper
// pins each witness's listen address and status port in DIR/witness-N/witness.json to the ones it
// got, so the sequencer and the other witnesses find it where they left it) after RESTART_DELAY_MS,
// at most MAX_RESTARTS times each. `kill(name)` SIGKILLs one witness on purpose (the
// --kill-witness-after flag and the `w` key); `revive(name)` starts it again at once.
// Left out: the sequencer and the devices (their death still ends the demo), and fixing anything
// inside a witness (its own crash tests cover its state). Invariant: at most one process per
// witness; every process is started through the supervisor, so stopAll() stops it.

import { join } from 'node:path';
import type { ExitInfo } from './children.ts';
import { describeExit } from './children.ts';
import type { DemoContext, Network, WitnessNode } from './context.ts';
import { readJsonFile, TIER, writeJsonFile } from './network.ts';

export const RESTART_DELAY_MS = 5_000;
export const MAX_RESTARTS = 20;

export interface WitnessKeeper {
  /** Names of the witnesses whose process is not running now. */
  down(): string[];
  kill(name: string): boolean;
  revive(name: string): boolean;
}

/** The port of a `/ip4/…/tcp/PORT/…` multiaddr or an http URL. */
function portOf(addr: string): number | undefined {
  const m = /\/tcp\/(\d+)/.exec(addr) ?? /:(\d+)\/?$/.exec(addr);
  return m ? Number(m[1]) : undefined;
}

async function pinAddresses(w: WitnessNode): Promise<void> {
  const path = join(w.dir, 'witness.json');
  const cfg = await readJsonFile<Record<string, unknown>>(path);
  const tcp = portOf(w.multiaddrs[0] ?? '');
  const http = portOf(w.http);
  if (tcp === undefined || http === undefined) return;
  await writeJsonFile(path, { ...cfg, listen: [`/ip4/127.0.0.1/tcp/${tcp}`], httpPort: http });
}

export async function keepWitnesses(ctx: DemoContext, net: Network): Promise<WitnessKeeper> {
  const quorum = net.policy.quorum;
  const state = new Map<string, { w: WitnessNode; running: boolean; restarts: number; timer?: NodeJS.Timeout; killed: boolean }>();
  for (const w of net.witnesses) {
    await pinAddresses(w);
    state.set(w.name, { w, running: true, restarts: 0, killed: false });
  }
  const up = () => [...state.values()].filter((s) => s.running).length;
  const watch = (name: string) => {
    const s = state.get(name)!;
    if (!s.w.child) return;
    ctx.sup.tolerate(s.w.child, (e: ExitInfo) => {
      s.running = false;
      const left = up();
      ctx.say(
        `[${ctx.elapsed()}] ${name} is down (${s.killed ? 'killed by the demo' : describeExit(e)}): ${left} of ${state.size} witnesses left, quorum ${quorum}${left < quorum ? ' — checkpoints wait for it' : ' — the log goes on'}`,
      );
      if (!s.killed && s.restarts < MAX_RESTARTS && !ctx.signal.aborted) s.timer = setTimeout(() => start(name), RESTART_DELAY_MS);
    });
  };
  const start = (name: string): boolean => {
    const s = state.get(name);
    if (!s || s.running || ctx.signal.aborted || !s.w.args) return false;
    clearTimeout(s.timer);
    s.restarts++;
    s.killed = false;
    try {
      s.w.child = ctx.sup.start({ name, tier: TIER.witness, args: s.w.args });
    } catch {
      return false; // the demo is stopping
    }
    s.running = true;
    watch(name);
    ctx.say(`[${ctx.elapsed()}] ${name} restarted (pid ${s.w.child.pid}); it cosigns again from the next checkpoint`);
    return true;
  };
  for (const name of state.keys()) watch(name);
  ctx.signal.addEventListener('abort', () => {
    for (const s of state.values()) clearTimeout(s.timer);
  });
  return {
    down: () => [...state.values()].filter((s) => !s.running).map((s) => s.w.name),
    kill(name) {
      const s = state.get(name);
      if (!s?.running || !s.w.child) return false;
      s.killed = true;
      try {
        process.kill(s.w.child.pid, 'SIGKILL');
      } catch {
        return false;
      }
      return true;
    },
    revive: (name) => start(name),
  };
}

/** The witness the flag and the key stop: witness-2 (asked over libp2p, not the bootstrap one). */
export function victimOf(net: Network): string {
  return (net.witnesses[1] ?? net.witnesses[0]).name;
}

/** --kill-witness-after N: N seconds from now SIGKILL the victim, N seconds later start it again. */
export function scheduleWitnessKill(ctx: DemoContext, keeper: WitnessKeeper, name: string, afterS: number): void {
  const kill = setTimeout(() => {
    if (!keeper.kill(name)) return;
    ctx.say(`[${ctx.elapsed()}] --kill-witness-after ${afterS}: killed ${name} (SIGKILL); it comes back in ${afterS} s`);
    revive = setTimeout(() => keeper.revive(name), afterS * 1000);
  }, afterS * 1000);
  let revive: NodeJS.Timeout | undefined;
  ctx.signal.addEventListener('abort', () => {
    clearTimeout(kill);
    clearTimeout(revive);
  });
}

/** On a terminal: `w` stops the victim witness or starts it again; Ctrl-C still stops the demo. */
export function listenForKeys(ctx: DemoContext, keeper: WitnessKeeper, name: string): void {
  const input = process.stdin;
  if (!input.isTTY) return;
  input.setRawMode(true);
  input.resume();
  const onData = (b: Buffer) => {
    const k = b.toString('utf8');
    if (k === '\u0003')
      process.kill(process.pid, 'SIGINT'); // raw mode: Ctrl-C arrives as a byte
    else if (k === 'w' || k === 'W') {
      if (keeper.down().includes(name)) keeper.revive(name);
      else if (keeper.kill(name)) ctx.say(`[${ctx.elapsed()}] key w: killed ${name} (SIGKILL); press w again to start it`);
    }
  };
  input.on('data', onData);
  ctx.signal.addEventListener('abort', () => {
    input.off('data', onData);
    input.setRawMode(false);
    input.pause();
  });
}
