// demo/live.ts: step 7 without --once (docs/design.md §12): the network keeps running until
// Ctrl-C. The device that withdrew its consent is stopped and the simulator restarts over the same
// devices with many more missions at a calmer clock and without --consent, so each device keeps
// the consent it has: the withdrawn one keeps cooking with everything kept local (Core §8), the
// others keep filling the log. The demo prints the URLs of every API once, then a compact progress
// line every few seconds (progress.ts) until the abort signal fires.
// Invariant: waits are bounded or end with the signal; this step ends only with the signal (or
// after about a year of progress lines). Left out: interaction beyond Ctrl-C.

import { join } from 'node:path';
import type { DemoContext, Network } from './context.ts';
import { logUrls } from './http.ts';
import { parseDeviceLines, simulatorArgs, type DeviceApi, type WithdrawalResult } from './mission.ts';
import { TIER } from './network.ts';
import { formatProgress, sample, type Snapshot } from './progress.ts';
import { sleep, waitFor } from './wait.ts';

export const LIVE_MISSIONS = 100_000;
export const LIVE_SPEED = 300;

export function apiLines(net: Network, log: string, devices: DeviceApi[]): string[] {
  const urls = logUrls(net.sequencerUrl, log);
  const w = Math.max(9, ...net.witnesses.map((x) => x.name.length), ...devices.map((d) => d.name.length));
  return [
    'APIs:',
    `  ${'explorer'.padEnd(w)}  ${net.sequencerUrl}/  (the log explorer, in a browser)`,
    `  ${'sequencer'.padEnd(w)}  ${net.sequencerUrl}  (${urls.checkpoint.slice(net.sequencerUrl.length)}, /v1/devices, /metrics, /openapi.json)`,
    ...net.witnesses.map((x) => `  ${x.name.padEnd(w)}  ${x.http}  (/v1/logs, /v1/forks, /metrics)`),
    ...devices.map((d) => `  ${d.name.padEnd(w)}  ${d.url}  (/v1/capabilities, /v1/executions/{id}, /v1/safety-limits)`),
  ];
}

/** Progress rounds before the live step ends by itself (about a year at 3 s). */
const MAX_ROUNDS = 10_000_000;

export async function runLive(ctx: DemoContext, net: Network, withdrawal: WithdrawalResult, intervalMs = 3_000): Promise<void> {
  await ctx.sup.stop(withdrawal.child);
  const sim = ctx.sup.start({
    name: 'executors',
    tier: TIER.device,
    expectExit: true,
    args: simulatorArgs(ctx, net, { missions: LIVE_MISSIONS, speed: LIVE_SPEED }),
  });
  const devices = await waitFor(
    'the simulated devices to listen',
    async () => {
      const d = parseDeviceLines(await sim.output());
      return d.length >= ctx.opts.devices ? d : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200, signal: ctx.signal, logPath: sim.logPath },
  );
  ctx.say(
    `[${ctx.elapsed()}] running: ${ctx.opts.devices} devices keep cooking (clock x${LIVE_SPEED}); ${withdrawal.device.name} keeps its consent withdrawn, so its new events stay on the device`,
  );
  for (const l of apiLines(net, ctx.opts.log, devices)) ctx.say(l);
  ctx.say(`logs: ${join(ctx.sup.logsDir, '*.log')}; press Ctrl-C to stop`);
  let prev: Snapshot | undefined;
  let finishedSaid = false;
  for (let i = 0; i < MAX_ROUNDS; i++) {
    const cur = await sample(net, ctx.opts.log, prev, ctx.signal);
    ctx.say(formatProgress(cur, prev, net.policy.quorum));
    if (sim.exit && !finishedSaid) {
      finishedSaid = true;
      ctx.say(`(the simulator finished its ${LIVE_MISSIONS} missions; the network stays up)`);
    }
    prev = cur.head === undefined ? prev : cur;
    await sleep(intervalMs, ctx.signal);
  }
}
