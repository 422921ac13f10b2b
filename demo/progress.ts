// demo/progress.ts: the demo's compact progress line (docs/design.md §12): head seq, the latest
// published checkpoint with its cosigners, devices alive, events per second, which witnesses are
// unreachable and forks known, read
// from the sequencer's API (GET …/entries `cookwala-head`, …/checkpoint, /v1/devices) and the
// witnesses' status APIs (GET /v1/forks). Sampling tolerates a part that does not answer (shown as
// `?`), since the line must keep coming while something is down; formatting is pure and tested.
// Left out: anything that writes; this only reads.

import type { Checkpoint } from '../verifier/documents/index.ts';
import { witnessName, type Network } from './context.ts';
import { getJson, logUrls, request } from './http.ts';

export interface Snapshot {
  at: number;
  head?: number;
  checkpoint?: { seq: number; cosigners: string[] };
  devices?: { alive: number; total: number };
  forks?: number;
  /** The witnesses whose status API did not answer (absent: not sampled). */
  witnesses?: { total: number; unreachable: string[] };
}

/** The head seq from the `cookwala-head` header of an (empty or short) entries range. */
async function headOf(base: string, log: string, from: number, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const r = await request(logUrls(base, log).entries(from), { signal, timeoutMs: 3_000 });
    const h = Number(r.headers.get('cookwala-head'));
    return r.status === 200 && Number.isSafeInteger(h) ? h : undefined;
  } catch {
    return undefined;
  }
}

export async function sample(net: Network, log: string, prev?: Snapshot, signal?: AbortSignal): Promise<Snapshot> {
  const urls = logUrls(net.sequencerUrl, log);
  const [head, cp, devices, forks] = await Promise.all([
    headOf(net.sequencerUrl, log, (prev?.head ?? 0) + 1, signal),
    getJson<Checkpoint>(urls.checkpoint, signal),
    getJson<{ devices: Array<{ log?: string; state: string }> }>(urls.devices, signal),
    Promise.all(net.witnesses.map((w) => getJson<{ forks: Array<{ log: string }> }>(`${w.http}/v1/forks`, signal))),
  ]);
  const mine = devices?.devices?.filter((d) => d.log === undefined || d.log === log);
  const forkCounts = forks.map((f) => f?.forks?.filter((x) => x.log === log).length).filter((n): n is number => n !== undefined);
  return {
    at: Date.now(),
    head,
    checkpoint:
      cp && Array.isArray(cp.signature)
        ? {
            seq: cp.seq,
            cosigners: cp.signature
              .slice(1)
              .filter((s) => !['note-ed25519', 'note-mldsa44'].includes((s as { alg: string }).alg))
              .map((s) => witnessName(net, s.kid)),
          }
        : undefined,
    devices: mine ? { alive: mine.filter((d) => d.state === 'alive').length, total: mine.length } : undefined,
    forks: forkCounts.length ? Math.max(...forkCounts) : undefined,
    witnesses: { total: net.witnesses.length, unreachable: net.witnesses.filter((_, i) => forks[i] === undefined).map((w) => w.name) },
  };
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** One line, e.g. `[10:00:03] head 120 · cosigned 118 by witness-1, witness-2 (quorum 2) · devices 2/3 alive · 3.5 events/s`. */
export function formatProgress(cur: Snapshot, prev: Snapshot | undefined, quorum: number): string {
  const parts = [`head ${cur.head ?? '?'}`];
  const cp = cur.checkpoint;
  parts.push(
    cp ? `cosigned ${cp.seq} by ${[...cp.cosigners].sort().join(', ') || 'no witness'} (quorum ${quorum})` : 'no published checkpoint yet',
  );
  parts.push(cur.devices ? `devices ${cur.devices.alive}/${cur.devices.total} alive` : 'devices ?');
  if (prev && prev.head !== undefined && cur.head !== undefined && cur.at > prev.at)
    parts.push(`${(((cur.head - prev.head) * 1000) / (cur.at - prev.at)).toFixed(1)} events/s`);
  else parts.push('? events/s');
  if (cur.witnesses) {
    const w = cur.witnesses;
    parts.push(
      `witnesses ${w.total - w.unreachable.length}/${w.total} up${w.unreachable.length ? ` (${w.unreachable.join(', ')} unreachable)` : ''}`,
    );
  }
  if (cur.forks) parts.push(`${cur.forks} fork proof${cur.forks === 1 ? '' : 's'} known`);
  return `[${clock(cur.at)}] ${parts.join(' · ')}`;
}
