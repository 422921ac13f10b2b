// sequencer/device-lost.ts: the log's own record of a device's signs of life, for the device_lost
// judgement (docs/design.md §5, §12a). Several sequencer processes may lead one log in turn, each
// with its own memory of heartbeats; the log is what they share. Before a process declares a device
// lost it reads, from the log, the device's last entry (its events are indexed under its source)
// and the last cookwala.hub.device_lost whose subject is the device: if that declaration came after
// the device's last entry and after this process last heard from it, this silence was declared
// already (by this or another process) and is not declared twice; if the device's last entry is
// more recent than this process's memory, the silence is counted from the entry. Leaves out:
// heartbeats, which are not appended: a device heard only by a former leader after a declaration,
// then silent again, is not declared a second time by the next leader. Invariant: reads only.

import type { LogStore } from '../logstore/index.ts';
import { DEVICE_LOST_TYPE, sequencerSource } from './system-events.ts';

/** At most this many of the sequencer's own entries are read back looking for a device's last device_lost. */
export const DEVICE_LOST_SCAN = 1000;

export interface SignsInLog {
  /** The device's last entry: seq and sequencedAt (ms). */
  entry?: { seq: number; at: number };
  /** The last device_lost of the device: seq and sequencedAt (ms). */
  lost?: { seq: number; at: number };
}

export async function signsInLog(store: LogStore, log: string, source: string): Promise<SignsInLog> {
  const out: SignsInLog = {};
  const own = await store.seqsOfSource(source);
  const last = own.length > 0 ? await store.getEntry(own[own.length - 1]) : undefined;
  if (last) out.entry = { seq: last.seq, at: Date.parse(last.sequencedAt) };
  const system = await store.seqsOfSource(sequencerSource(log));
  for (let i = system.length - 1, n = 0; i >= 0 && n < DEVICE_LOST_SCAN; i--, n++) {
    const e = await store.getEntry(system[i]);
    if (e && e.ce.type === DEVICE_LOST_TYPE && e.ce.subject === source) {
      out.lost = { seq: e.seq, at: Date.parse(e.sequencedAt) };
      break;
    }
  }
  return out;
}

/**
 * What the log says about a silence this process saw since `lastSeenMs`: 'already' declared (a
 * device_lost after both the device's last entry and lastSeenMs), or the time the silence counts
 * from (the later of lastSeenMs and the device's last entry).
 */
export function judgeSilence(signs: SignsInLog, lastSeenMs: number): 'already' | { since: number } {
  const entrySeq = signs.entry?.seq ?? 0;
  if (signs.lost && signs.lost.seq > entrySeq && signs.lost.at >= lastSeenMs) return 'already';
  return { since: Math.max(lastSeenMs, signs.entry?.at ?? -Infinity) };
}
