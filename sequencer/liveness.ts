// sequencer/liveness.ts: device liveness (docs/design.md §5, Core §7 heartbeats). Every verified event
// or heartbeat marks its (log, source) alive at the clock's time. A device silent for
// lostAfterIntervals × heartbeatIntervalMs turns `lost` and gets exactly ONE
// cookwala.hub.device_lost entry for that silence (appended by the onLost callback); speaking
// again makes it alive, and a later silence is a new episode with a new entry. If appending the
// entry fails the device goes back to alive-but-silent, so the next check retries: an entry is
// never skipped and never doubled. With several processes on one log (a shared PostgreSQL store)
// only the leader judges (`leading` says since when this process leads a log; a standby writes
// nothing and says nothing), a silence counts at the earliest from when this process began to
// lead (it could not hear the device before), and onLost consults the log (device-lost.ts): a
// silence another process declared already is not declared again, and one the log saw end later
// than this process's memory is counted from the log. Left out: persistence of heartbeats (after a
// restart a device is unknown until it speaks; it cannot be declared lost for a silence the
// sequencer did not observe).

import { formatTime } from '../verifier/encoding/index.ts';
import type { Clock } from '../platform/index.ts';

export interface DeviceState {
  log: string;
  source: string;
  lastSeen: string;
  state: 'alive' | 'lost';
}

export interface Liveness {
  seen(log: string, source: string): void;
  /** Declare every device silent for too long lost; resolves with how many were declared. */
  check(): Promise<number>;
  list(): DeviceState[];
}

/** What onLost did: appended the entry, found it declared already, or learned the device spoke at `seenAt`. */
export type LostVerdict = 'declared' | 'already' | { seenAt: number };

export interface LivenessOptions {
  clock: Clock;
  heartbeatIntervalMs: number;
  lostAfterIntervals: number;
  /** Since when (clock ms) this process leads `log`; undefined: it does not (nothing is judged). Default: always, since 0. */
  leading?(log: string): number | undefined;
  onLost(log: string, source: string, lastSeenMs: number): Promise<LostVerdict | void>;
  onError?(e: unknown): void;
}

interface Device {
  log: string;
  source: string;
  lastSeen: number;
  state: 'alive' | 'lost' | 'declaring';
}

export function createLiveness(o: LivenessOptions): Liveness {
  const devices = new Map<string, Device>();
  const limit = o.heartbeatIntervalMs * o.lostAfterIntervals;
  let checking: Promise<number> | undefined;

  async function checkNow(): Promise<number> {
    const now = o.clock.now();
    const due = [...devices.values()].filter((d) => {
      if (d.state !== 'alive') return false;
      const since = o.leading ? o.leading(d.log) : 0;
      return since !== undefined && now - Math.max(d.lastSeen, since) >= limit;
    });
    let n = 0;
    for (const d of due) {
      const lastSeen = d.lastSeen;
      d.state = 'declaring';
      try {
        const v = (await o.onLost(d.log, d.source, lastSeen)) ?? 'declared';
        if (typeof v === 'object') {
          // The log heard from it later than this process did: the silence counts from then.
          d.lastSeen = Math.max(d.lastSeen, v.seenAt);
          if (d.state === 'declaring') d.state = 'alive';
          continue;
        }
        // It may have spoken while the entry was being written; then it stays alive.
        if (d.state === 'declaring') d.state = 'lost';
        if (v === 'declared') n++;
      } catch (e) {
        if (d.state === 'declaring') d.state = 'alive';
        o.onError?.(e);
      }
    }
    return n;
  }

  return {
    seen(log, source) {
      const k = `${log}\n${source}`;
      const now = o.clock.now();
      const d = devices.get(k);
      if (!d) devices.set(k, { log, source, lastSeen: now, state: 'alive' });
      else {
        d.lastSeen = Math.max(d.lastSeen, now);
        d.state = 'alive';
      }
    },
    check() {
      if (!checking) checking = checkNow().finally(() => (checking = undefined));
      return checking;
    },
    list() {
      return [...devices.values()].map((d) => ({
        log: d.log,
        source: d.source,
        lastSeen: formatTime(d.lastSeen),
        state: d.state === 'lost' ? 'lost' : 'alive',
      }));
    },
  };
}
