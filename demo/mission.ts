// demo/mission.ts: steps 3 and 4 of the demo (docs/design.md §9, §12; Core §8 consent). Step 3 runs the
// real simulator, `cookwala executor --simulate N` (devices in DIR/executors/devices/sim-K, consent
// research_only, keys registered with the operator token), through realistic missions on a fast
// clock (recipes with steps, pauses, a needs_human, a stop) until it exits by itself. Step 4
// restarts one of those devices alone with `--consent none`, which withdraws its consent: it sends
// one `cookwala.consent.withdrawn` event, after which a hash_only sequencer erases that device's
// payloads (the entries, the chain and the device signatures stay and still verify). The demo
// only watches the log over HTTP to show what happened.
// Invariant: the demo never signs or sends device events itself; it reads. Left out: choosing the
// device that withdraws (always the simulator's first, DIR/executors/devices/sim-1).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';
import { describeExit, type Child } from './children.ts';
import type { DemoContext, Network } from './context.ts';
import { payloadState, tailEntries, type EntryTail } from './http.ts';
import { TIER } from './network.ts';
import { DemoError, sleep, waitFor, within } from './wait.ts';

export const CONSENT_WITHDRAWN = 'cookwala.consent.withdrawn';
const MISSION_TIMEOUT_MS = 150_000;

export interface DeviceApi {
  name: string;
  source: string;
  url: string;
}

/** Devices announced by simulator lines `<name> (<source>) API <url>`. */
export function parseDeviceLines(output: string): DeviceApi[] {
  const out: DeviceApi[] = [];
  for (const m of output.matchAll(/^(\S+) \((urn:cookwala:device:[^)\s]+)\) API (http:\/\/\S+)$/gm))
    out.push({ name: m[1], source: m[2], url: m[3] });
  return out;
}

/** How often each status was reached, from simulator lines `<device> <recipe> <id> #<seq> <status> …`. */
export function statusCounts(output: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of output.matchAll(/^\S+ \S+ \S+ #\d+ ([a-z_]+)/gm)) out[m[1]] = (out[m[1]] ?? 0) + 1;
  return out;
}

export function executorsDir(ctx: Pick<DemoContext, 'dir'>): string {
  return join(ctx.dir, 'executors');
}

export function simulatorArgs(ctx: DemoContext, net: Network, o: { missions: number; speed: number; consent?: string }): string[] {
  return [
    'executor',
    `--simulate=${ctx.opts.devices}`,
    `--missions=${o.missions}`,
    `--speed=${o.speed}`,
    `--data=${executorsDir(ctx)}`,
    `--sequencer=${net.sequencerUrl}`,
    `--log=${ctx.opts.log}`,
    ...(o.consent ? [`--consent=${o.consent}`] : []),
    // The token from its file, never in argv (argv shows in `ps`).
    `--register-token-file=${join(net.sequencerDir, 'operator.token')}`,
  ];
}

export interface MissionResult {
  devices: DeviceApi[];
  summary: string;
}

/** Step 3: the simulator runs its missions to the end (exit 0). */
export async function runMission(ctx: DemoContext, net: Network): Promise<MissionResult> {
  const { devices, missions, speed } = ctx.opts;
  ctx.say(
    `[${ctx.elapsed()}] mission: ${devices} simulated device${devices === 1 ? '' : 's'}, ${missions} missions each, clock x${speed} (log: ${join(ctx.sup.logsDir, 'executors.log')})`,
  );
  const sim = ctx.sup.start({
    name: 'executors',
    tier: TIER.device,
    expectExit: true,
    args: simulatorArgs(ctx, net, { missions, speed, consent: 'research_only' }),
  });
  const exit = await within('the simulated missions', sim.exited, MISSION_TIMEOUT_MS, ctx.signal, sim.logPath);
  if (exit.code !== 0) throw new DemoError(`the simulator ended with ${describeExit(exit)}`, sim.logPath);
  const output = await sim.output();
  const summary = /^simulation: (.*)$/m.exec(output)?.[1] ?? '(no summary line)';
  const n = statusCounts(output);
  ctx.say(`[${ctx.elapsed()}] mission done: ${summary}`);
  const seen = [...['paused', 'needs_human', 'stopped'], ...['refused', 'failed'].filter((k) => n[k])];
  ctx.say(
    `[${ctx.elapsed()}]   along the way: ${seen.map((k) => `${n[k] ?? 0} ${k}`).join(', ')} (each status change is a device-signed event in the log)`,
  );
  return { devices: parseDeviceLines(output), summary };
}

export interface WithdrawalResult {
  device: { name: string; source: string; dir: string };
  child: Child;
  withdrawnSeq: number;
  erased: number[];
}

async function catchUp(tail: EntryTail, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < 1_000; i++) if ((await tail.poll(signal)).length === 0) return;
}

/** Step 4: one device withdraws its consent; wait until its payloads are erased. */
export async function withdrawConsent(ctx: DemoContext, net: Network, opts: { eraseWaitMs?: number } = {}): Promise<WithdrawalResult> {
  const dir = join(executorsDir(ctx), 'devices', 'sim-1');
  const idj = parseJson(await readFile(join(dir, 'device.json'), 'utf8'));
  if (!idj.ok) throw new DemoError(`${join(dir, 'device.json')}: ${idj.code}: ${idj.detail}`);
  const id = idj.value as { name: string; source: string };
  const tail = tailEntries(net.sequencerUrl, ctx.opts.log);
  await catchUp(tail, ctx.signal);
  const child = ctx.sup.start({
    name: id.name,
    tier: TIER.device,
    args: ['executor', `--data=${dir}`, `--sequencer=${net.sequencerUrl}`, `--log=${ctx.opts.log}`, '--consent=none', '--port=0'],
  });
  const withdrawn = await waitFor(
    `${id.name}'s ${CONSENT_WITHDRAWN} event in the log`,
    async () => {
      await catchUp(tail, ctx.signal);
      for (const e of tail.seen.values()) if (e.ce.type === CONSENT_WITHDRAWN && e.ce.source === id.source) return e;
      return undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200, signal: ctx.signal, logPath: child.logPath },
  );
  const own = [...tail.seen.values()].filter((e) => e.ce.source === id.source && e.seq < withdrawn.seq).map((e) => e.seq);
  ctx.say(
    `[${ctx.elapsed()}] consent withdrawn: ${id.name} sent ${CONSENT_WITHDRAWN} (seq ${withdrawn.seq}); it has ${own.length} earlier events in the log`,
  );

  const pending = async () => {
    const states = await Promise.all(own.map((s) => payloadState(net.sequencerUrl, ctx.opts.log, s, ctx.signal)));
    return own.filter((_, i) => states[i] !== 'erased');
  };
  // The sequencer erases one payload per synced batch before it answers the withdrawal: wait while
  // it makes progress (each step renews a short deadline), up to a hard limit.
  const hardEnd = Date.now() + 60_000;
  const quiet = opts.eraseWaitMs ?? 5_000;
  let left = await pending();
  let deadline = Date.now() + quiet;
  for (let i = 0; i < 10_000 && left.length > 0 && Date.now() < Math.min(deadline, hardEnd); i++) {
    await sleep(200, ctx.signal);
    const now = await pending();
    if (now.length < left.length) deadline = Date.now() + quiet;
    left = now;
  }
  if (left.length > 0)
    throw new DemoError(
      `the sequencer did not erase ${left.length} of ${id.name}'s ${own.length} payloads after its consent withdrawal (seqs ${left.slice(0, 8).join(', ')}${left.length > 8 ? ', …' : ''})`,
      join(ctx.sup.logsDir, 'sequencer.log'),
    );
  await catchUp(tail, ctx.signal);
  const erasures = [...tail.seen.values()].filter((e) => e.ce.type === 'cookwala.log.erased' && e.seq > withdrawn.seq).map((e) => e.seq);
  ctx.say(
    `[${ctx.elapsed()}] erased by the sequencer: all ${own.length} payloads of ${id.name} (hash_only log); ${erasures.length} cookwala.log.erased entries${erasures.length ? ` (seq ${erasures[0]}..${erasures[erasures.length - 1]})` : ''} record what went and why`,
  );
  return { device: { ...id, dir }, child, withdrawnSeq: withdrawn.seq, erased: own };
}
