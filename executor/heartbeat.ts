// executor/heartbeat.ts: `cookwala.device.heartbeat` every interval (Cookwala Core 0.2 §7), so a hub
// can tell a lost device and hand off. Heartbeats are liveness, not log: they are signed but never
// stored or queued, a missed one is simply superseded by the next, and they are sent only while the
// device's consent is not `none` (§8: under `none` the device makes no request to a sequencer).
// Invariant: at most one heartbeat in flight; the timer is re-armed only after it settles.

import type { Clock, TimerHandle } from '../platform/index.ts';
import { buildHeartbeat, type EventContext } from './events.ts';
import type { SequencerClient } from './sequencer-client.ts';
import type { ExecutorStore } from './store.ts';

export interface Heartbeats {
  start(): void;
  /** Send one now (outside the schedule); resolves with the HTTP status, or undefined if not sent. */
  beat(): Promise<number | undefined>;
  sent(): number;
  /** Scheduled beats that came due, sent or not (none is sent under consent `none`). */
  ticks(): number;
  close(): Promise<void>;
}

export function createHeartbeats(
  deps: { store: ExecutorStore; clock: Clock; client: SequencerClient; ctx: Omit<EventContext, 'dataset'> },
  intervalMs: number,
): Heartbeats {
  if (!(intervalMs > 0)) throw new TypeError('heartbeat interval must be positive');
  let timer: TimerHandle | undefined;
  let closed = false;
  let n = 0;
  let sent = 0;
  let ticks = 0;
  let inflight: Promise<unknown> = Promise.resolve();

  async function beat(): Promise<number | undefined> {
    const dataset = deps.store.consent().dataset;
    if (dataset === 'none' || closed) return undefined;
    const ev = buildHeartbeat({ ...deps.ctx, dataset }, deps.clock.now(), ++n);
    try {
      const r = await deps.client.postHeartbeat(ev);
      sent++;
      return r.status;
    } catch {
      return undefined; // the next beat supersedes this one
    }
  }

  function arm(): void {
    if (closed) return;
    timer = deps.clock.setTimeout(() => {
      ticks++;
      inflight = beat().finally(arm);
    }, intervalMs);
  }

  return {
    start() {
      if (!timer && !closed) arm();
    },
    beat,
    sent: () => sent,
    ticks: () => ticks,
    async close() {
      closed = true;
      deps.clock.clearTimeout(timer);
      await inflight.catch(() => undefined);
    },
  };
}
