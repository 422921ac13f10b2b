// sequencer/ingest.ts: judging incoming events (docs/design.md §5), independent of HTTP. Each event is
// judged alone, checks in this order: readCloudEvent -> cookwalasig decode -> event hash ->
// device key lookup (the registered device KeyRecords of THIS log) -> signature (worker pool) ->
// key validity at signedAt -> source == key.owner -> heartbeat or group commit (dedup, then the
// time window, then per-subject order, in committer.ts). The time window (verifier/documents/time-bounds.ts,
// the hosted log's declared bounds): an event's signedAt against the sequencedAt its entry gets
// (signed_in_future, delivery_too_late; a revoked key's event signed before revokedAt only until
// maxDeliveryDelay after the revocation, else key_revoked), judged in the committer after dedup so
// that a late retry of a stored event still gets its 200; a heartbeat's signedAt within
// maxClockSkew of now on both sides (it is never queued, and an old one says nothing about now).
// Only events inside the window count as a sign of life. The signed bytes come from verifier/signing/signature.ts
// (signingHeaderText, whose UTF-8 is signingHeaderBytes, over {alg, hash: eventHash, kid, kind:"Event", signedAt}), the one encoder
// shared with signers; only the raw verification runs in the pool, with all events of a request
// in one call. Verified heartbeats (and every verified event inside the window) update liveness;
// heartbeats are not appended. All good events of one call go to the same group commit. The types only the
// sequencer appends (cookwala.log.erased, cookwala.hub.device_lost) are refused from devices:
// verifiers expect them signed by the sequencer key.

import { fail, statusOf, type Failure, type ReasonCode, type Result } from '../verifier/index.ts';
import { fromBase64url, timeMs } from '../verifier/encoding/index.ts';
import { checkKeyValidAt, type KeyRecord } from '../verifier/signing/index.ts';
import { checkHeartbeatTime, checkSignedAt, checkTimePrecision, type TimeBounds, type TimePrecision } from '../verifier/documents/index.ts';
import type { Clock } from '../platform/index.ts';
import { signingHeader, signingHeaderText, type Signature } from '../verifier/signing/index.ts';
import { decodeCookwalasig, eventHash, EVENT_KIND, readCloudEvent, type CloudEvent } from '../verifier/cloudevent/index.ts';
import type { SigPool, SigTextItem } from '../platform/index.ts';
import type { Candidate, Committer } from './committer.ts';
import type { DeviceKeyRegistry } from './device-keys.ts';
import type { Liveness } from './liveness.ts';
import type { Metrics } from './metrics.ts';
import { SEQUENCER_TYPES } from './system-events.ts';

export const HEARTBEAT_TYPE = 'cookwala.device.heartbeat';

export type ItemResult =
  | { status: 200 | 201; seq: number; hash: string; eventHash: string }
  | { status: 200; heartbeat: true; eventHash: string }
  | { status: number; code: ReasonCode; detail: string; [k: string]: unknown };

export interface IngestDeps {
  log: string;
  keys: DeviceKeyRegistry;
  committer: Committer;
  pool: SigPool;
  liveness: Liveness;
  /** The sequencer's clock: the "now" of the time window. */
  clock: Clock;
  /** The hosted log's time window (HostedLog.timeBounds). */
  timeBounds: TimeBounds;
  /** The hosted log's timePrecision: "day" refuses an event signed or timed finer (time_too_precise). */
  timePrecision?: TimePrecision;
  metrics?: Metrics;
  /** Runs for each event in the log (201, or 200 duplicate) before its answer leaves. */
  afterAppend?: (ce: CloudEvent, seq: number) => Promise<void>;
}

interface Pending {
  ce: CloudEvent;
  hash: string;
  sig: Signature;
  key: KeyRecord;
  /** The event's own JSON text as received, when the caller has it. */
  text: Uint8Array | undefined;
}

type Stage = { done: ItemResult } | { pending: Pending; item: SigTextItem };

function failed(f: Failure): ItemResult {
  const { ok: _ok, ...rest } = f;
  return { status: statusOf(f.code), ...rest };
}

/** Everything that can be decided before the signature check. */
function prepare(json: Result<unknown>, keys: DeviceKeyRegistry, text: Uint8Array | undefined): Stage {
  if (!json.ok) return { done: failed(json) };
  const r = readCloudEvent(json.value);
  if (!r.ok) return { done: failed(r) };
  const ce = r.value;
  if (SEQUENCER_TYPES.includes(ce.type))
    return { done: failed(fail('invalid_event', `type ${ce.type} is appended only by the sequencer itself`)) };
  if (typeof ce.cookwalasig !== 'string') return { done: failed(fail('bad_signature', 'the event carries no cookwalasig')) };
  const sig = decodeCookwalasig(ce.cookwalasig);
  if (!sig.ok) return { done: failed(sig) };
  const hash = eventHash(ce);
  if (!hash.ok) return { done: failed(hash) };
  const key = keys.get(sig.value.kid);
  const pub = keys.publicKey(sig.value.kid);
  if (!key || !pub)
    return { done: failed(fail('unknown_key', `no device key ${sig.value.kid} is registered with this log`, { kid: sig.value.kid })) };
  if (key.role !== 'device') return { done: failed(fail('key_role_mismatch', `key ${key.kid} has role ${key.role}, need device`)) };
  if (sig.value.alg !== key.alg)
    return { done: failed(fail('bad_signature', `signature alg ${sig.value.alg} is not the key's ${key.alg}`)) };
  const raw = fromBase64url(sig.value.sig);
  if (!raw.ok) return { done: failed(fail('malformed_signature', 'sig is not base64url')) };
  const msgText = signingHeaderText(signingHeader(sig.value, hash.value, EVENT_KIND));
  return { pending: { ce, hash: hash.value, sig: sig.value, key, text }, item: { alg: key.alg, publicKey: pub, msgText, sig: raw.value } };
}

/**
 * Judge and sequence events; one result per input, in order. `texts[i]`, when given, is the JSON
 * text inputs[i] was parsed from (JSON.parse of it gives that value): it is stored as the payload.
 */
export async function ingestEvents(
  d: IngestDeps,
  inputs: ReadonlyArray<Result<unknown>>,
  texts?: ReadonlyArray<Uint8Array | undefined>,
): Promise<ItemResult[]> {
  const stages = inputs.map((j, i) => prepare(j, d.keys, texts?.[i]));
  const toVerify = stages.filter((s): s is Extract<Stage, { pending: Pending }> => 'pending' in s);
  const verdicts = await d.pool.verify(toVerify.map((s) => s.item));
  const results: Array<ItemResult | undefined> = new Array(stages.length);
  const candidates: Candidate[] = [];
  const slots: number[] = [];
  let v = 0;
  stages.forEach((s, i) => {
    if ('done' in s) return void (results[i] = s.done);
    const { ce, hash, sig, key, text } = s.pending;
    if (!verdicts[v++])
      return void (results[i] = failed(
        fail('bad_signature', `the signature by ${sig.kid} does not verify over this event`, { kid: sig.kid }),
      ));
    const valid = checkKeyValidAt(key, sig.signedAt);
    if (!valid.ok) return void (results[i] = failed(valid));
    if (ce.source !== key.owner)
      return void (results[i] = failed(
        fail('source_mismatch', `key ${key.kid} belongs to ${key.owner}, the event source is ${ce.source}`, { kid: key.kid }),
      ));
    const signedAtMs = timeMs(sig.signedAt);
    const revokedAtMs = key.revokedAt === undefined ? undefined : timeMs(key.revokedAt);
    const bounds = d.timeBounds;
    if (d.timePrecision === 'day' && ce.type !== HEARTBEAT_TYPE) {
      // An open dataset publishes nothing finer than the day (§8): a finer time never enters it.
      const p = checkTimePrecision(sig.signedAt, 'day', 'signedAt');
      const t = p.ok && typeof ce.time === 'string' ? checkTimePrecision(ce.time, 'day', 'the event time') : p;
      if (!t.ok) return void (results[i] = failed(t));
    }
    if (ce.type === HEARTBEAT_TYPE) {
      const live = checkHeartbeatTime(signedAtMs, d.clock.now(), bounds, revokedAtMs);
      if (!live.ok) return void (results[i] = failed(live));
      d.liveness.seen(d.log, ce.source);
      d.metrics?.inc('cookwala_heartbeats_total', { log: d.log });
      return void (results[i] = { status: 200, heartbeat: true, eventHash: hash });
    }
    if (checkSignedAt(signedAtMs, d.clock.now(), bounds, revokedAtMs).ok) d.liveness.seen(d.log, ce.source);
    candidates.push({
      ce,
      eventHash: hash,
      signature: sig,
      payloadText: text,
      timeCheck: (atMs) => checkSignedAt(signedAtMs, atMs, bounds, revokedAtMs),
    });
    slots.push(i);
  });
  const outcomes = await d.committer.submit(candidates);
  outcomes.forEach((o, k) => {
    results[slots[k]] = o.ok ? { status: o.status, seq: o.seq, hash: o.hash, eventHash: o.eventHash } : failed(o);
    if (o.ok && o.status === 200) d.metrics?.inc('cookwala_events_duplicate_total', { log: d.log });
  });
  if (d.afterAppend) {
    for (let k = 0; k < outcomes.length; k++) {
      const o = outcomes[k];
      if (o.ok) await d.afterAppend(candidates[k].ce, o.seq);
    }
  }
  for (const r of results) if (r && 'code' in r) d.metrics?.inc('cookwala_events_rejected_total', { log: d.log, code: r.code });
  return results as ItemResult[];
}
