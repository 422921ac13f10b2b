// sequencer/erasure.ts: payload erasure in `hash_only` logs (docs/design.md §4, §6), shared by the
// operator's DELETE …/events/{seq}/payload and by consent withdrawal. Each erasure is one atomic
// synced batch (logstore erasePayload): the payload goes, the erasure record is kept, and a
// `cookwala.log.erased` entry signed by the sequencer is appended. It runs between group commits
// (committer.exclusive), so seq assignment stays single-writer.
//
// Consent withdrawal (spec §8): once a device's `cookwala.consent.withdrawn` event is in the log
// (201, or 200 for a redelivered duplicate), every earlier payload from that device's source is
// erased before the answer leaves. A crash in between leaves the withdrawal unacknowledged or the
// duplicate's retry repeating the sweep, so the device's at-least-once outbox drives the erasure to
// completion; payloads erased already are skipped, also when a concurrent sweep or an operator
// erase takes one between the check and the erasure (payload_erased there is not the device's
// failure: its withdrawal is in the log). The sweep finds the device's entries through the
// (source, id) index (logstore seqsOfSource), so it costs O(that device's events), not O(log).

import { truncateTime } from '../verifier/documents/index.ts';
import { fail, ProtocolError } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import type { SequencerContext } from './context.ts';
import type { HostedLog } from './log-host.ts';
import { erasedEvent } from './system-events.ts';

export const CONSENT_WITHDRAWN_TYPE = 'cookwala.consent.withdrawn';
export const CONSENT_REASON = 'consent_withdrawn';

export interface Erased {
  seq: number;
  hash: string;
  eventHash: string;
  erased: { seq: number; eventHash: string; reason: string; erasedAt: string; erasureSeq: number };
}

/** Erase the payload of entry `seq`; throws ProtocolError (mode_forbids_erasure, not_found, payload_erased). */
export async function erasePayload(ctx: SequencerContext, h: HostedLog, seq: number, reason: string): Promise<Erased> {
  if (h.mode !== 'hash_only') throw new ProtocolError('mode_forbids_erasure', `${h.origin} is a ${h.mode} log; payloads are never erased`);
  return h.committer.exclusive(async (next) => {
    if (seq > h.store.head().seq) throw new ProtocolError('not_found', `${h.origin} has no entry ${seq}`);
    const p = await h.store.getPayload(seq);
    if (!p) throw new ProtocolError('not_found', `entry ${seq} has no payload`);
    if ('erased' in p)
      throw ProtocolError.from(fail('payload_erased', `the payload of entry ${seq} was erased already`, { erasure: p.erased }));
    const entry = await h.store.getEntry(seq);
    if (!entry) throw new ProtocolError('not_found', `${h.origin} has no entry ${seq}`);
    // The sequencer's own entries record erasures and lost devices: erasing them would hide what went.
    if (entry.ce.source === h.source)
      throw new ProtocolError('not_erasable', `entry ${seq} (${entry.ce.type}) is the sequencer's own record`);
    const now = truncateTime(ctx.clock.now(), h.timePrecision); // an open dataset's times are days (§8)
    const item = await next(erasedEvent({ log: h.origin, seq, eventHash: entry.eventHash, reason, atMs: now }, ctx.signer));
    const record = { seq, eventHash: entry.eventHash, reason, erasedAt: formatTime(now) };
    await h.store.erasePayload(seq, record, item);
    ctx.metrics.inc('cookwala_events_appended_total', { log: h.origin });
    ctx.metrics.set('cookwala_log_head_seq', item.entry.seq, { log: h.origin });
    ctx.logger.info({ event: 'erased', log: h.origin, seq, reason, erasureSeq: item.entry.seq }, `erased the payload of entry ${seq}`);
    return {
      seq: item.entry.seq,
      hash: item.entry.hash,
      eventHash: item.entry.eventHash,
      erased: { ...record, erasureSeq: item.entry.seq },
    };
  });
}

/** Erase every payload from `source` before `beforeSeq` that is still present; returns the erased seqs. */
export async function eraseSourcePayloads(
  ctx: SequencerContext,
  h: HostedLog,
  source: string,
  beforeSeq: number,
  reason = CONSENT_REASON,
): Promise<number[]> {
  if (h.mode !== 'hash_only') return [];
  const targets = (await h.store.seqsOfSource(source)).filter((seq) => seq < beforeSeq);
  const done: number[] = [];
  for (const seq of targets) {
    const p = await h.store.getPayload(seq);
    if (!p || 'erased' in p) continue;
    try {
      await erasePayload(ctx, h, seq, reason);
    } catch (e) {
      // Another sweep or an operator erase got there between the check above and our turn.
      if (e instanceof ProtocolError && e.code === 'payload_erased') continue;
      throw e;
    }
    done.push(seq);
  }
  if (done.length > 0) ctx.metrics.inc('cookwala_consent_erasures_total', { log: h.origin }, done.length);
  return done;
}
