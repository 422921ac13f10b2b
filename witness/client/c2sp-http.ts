// witness/client/c2sp-http.ts: the sequencer as a C2SP log asking a C2SP witness over HTTP (docs/design.md
// §7a; c2sp.org/tlog-witness at C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9). One
// connection per policy witness with `url` (its submission prefix) and `vkey` (cosignature/v1,
// 0x04). request() takes the same AddCheckpointRequest the libp2p connection takes and sends
// `POST <url>/add-checkpoint` with body `old <N>\n`, the consistency proof as base64 lines, a blank
// line, and the checkpoint as a signed note carrying the log's note signature (never the JCS
// signatures, which a C2SP witness cannot read). Answers map onto the libp2p reply shape, so the
// publisher treats both kinds alike and counts them toward one quorum:
//   200 → the cosignature/v1 line by the policy vkey (other lines ignored, as the spec asks),
//         checked over the rebuilt body before it is handed out (else bad_signature);
//   409 + `text/x.tlog.size` `<N>\n` → conflict with knownSeq N (the publisher resends from N);
//   409 without a size body, or 422 → inconsistent (fork or inconsistency evidence: logged, counted);
//   403 → bad_signature, 404 → unknown_log (misconfiguration: logged, counted);
//   400 → bad_request; 429 → wait Retry-After (capped) and ask again, at most `maxRetries` times,
//   then rate_limited; no answer → witness_unavailable.
// Metrics per witness (label `witness` = its display name, verifier/signing/witness-identity.ts): request latency, last cosigned size,
// last HTTP status, failures by outcome. It leaves out sign-subtree and the monitoring read.
// Invariant: nothing from the witness is believed unverified; bodies are read up to 64 KiB.

import { fail, ok, type Result } from '../../verifier/index.ts';
import { parseHash } from '../../verifier/encoding/index.ts';
import { toBase64Std } from '../../verifier/c2sp/note/index.ts';
import {
  checkpointToNote,
  isLogNoteAlg,
  cosignaturesFromWitnessReply,
  verifyCheckpointC2spCosignature,
  witnessCosignatureKey,
  type C2spSignature,
} from '../../verifier/documents/index.ts';
import type { Checkpoint } from '../../verifier/documents/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { witnessDisplayName } from '../../verifier/signing/index.ts';
import type { AddCheckpointRequest } from '../wire/messages.ts';
import type { PublisherMetrics } from './publisher.ts';
import { silentLogger, type Logger, readTextCapped } from '../../platform/index.ts';

export const MAX_REPLY_BYTES = 64 * 1024;
/** tlog-witness: a client MUST NOT send more than 63 consistency proof lines. */
export const MAX_PROOF_LINES = 63;

export type C2spReply =
  { ok: true; cosignature: C2spSignature } | { ok: false; code: string; detail: string; knownSeq?: number; status?: number };

export interface C2spWitnessConnection {
  /** The submission prefix, as configured. */
  readonly addr: string;
  readonly peerId: undefined;
  /** The policy witness this connection asks (its kid, and the record: a witness is its key). */
  readonly kid: string;
  readonly witness: KeyRecord;
  readonly connected: boolean;
  request(req: AddCheckpointRequest, opts?: { timeoutMs?: number }): Promise<Result<C2spReply>>;
  close(): Promise<void>;
}

export interface C2spWitnessOptions {
  /** The policy KeyRecord, with `url` and `vkey`. */
  witness: KeyRecord;
  /** The service logger (platform/logger.ts); lines carry event witness_error, `log` and `witness`. */
  logger?: Logger;
  metrics?: PublisherMetrics;
  /** The log origin, for metric labels. */
  origin: string;
  timeoutMs?: number;
  /** 429 answers retried this many times (default 3). */
  maxRetries?: number;
  /** The longest Retry-After honoured, ms (default 30 s). */
  maxBackoffMs?: number;
  /** Waiting, injectable (tests). */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
}

/** The witnesses of a policy that can be asked over C2SP HTTP: those with both `url` and `vkey`. */
export function c2spWitnessesOf(policy: { witnesses: KeyRecord[] }): KeyRecord[] {
  return policy.witnesses.filter((w) => typeof w.url === 'string' && typeof w.vkey === 'string');
}

/** The tlog-witness add-checkpoint request body for one of our requests. */
export function addCheckpointBody(req: Pick<AddCheckpointRequest, 'oldSeq' | 'consistency' | 'checkpoint'>): Result<string> {
  if (req.consistency.length > MAX_PROOF_LINES)
    return fail(
      'bad_request',
      `a consistency proof of ${req.consistency.length} hashes is more than tlog-witness allows (${MAX_PROOF_LINES})`,
    );
  const lines: string[] = [];
  for (const h of req.consistency) {
    const b = parseHash(h);
    if (!b.ok) return b;
    lines.push(toBase64Std(b.value) + '\n');
  }
  // Only the log's own note signatures travel (Ed25519 first, then ML-DSA-44): the witness verifies
  // the one its log vkey names and skips the other.
  const note = checkpointToNote({ ...req.checkpoint, signature: req.checkpoint.signature.filter((s) => isLogNoteAlg(s.alg)) });
  if (!note.ok) return note;
  return ok(`old ${req.oldSeq}\n${lines.join('')}\n${note.value}`);
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(v: string | null, now = Date.now()): number | undefined {
  if (v === null) return undefined;
  const t = v.trim();
  if (/^[0-9]{1,9}$/.test(t)) return Number(t) * 1000;
  const d = Date.parse(t);
  return Number.isFinite(d) ? Math.max(0, d - now) : undefined;
}

const readCapped = (res: Response): Promise<string> => readTextCapped(res, MAX_REPLY_BYTES);

export function createC2spWitnessConnection(o: C2spWitnessOptions): C2spWitnessConnection {
  const w = o.witness;
  if (typeof w.url !== 'string' || typeof w.vkey !== 'string') throw new TypeError(`witness ${w.kid} needs url and vkey for C2SP HTTP`);
  const vk = witnessCosignatureKey(w);
  if (!vk.ok || !vk.value) throw new TypeError(`witness ${w.kid}: ${vk.ok ? 'no vkey' : vk.detail}`);
  const vkey = vk.value;
  const endpoint = `${w.url.replace(/\/+$/, '')}/add-checkpoint`;
  const name = witnessDisplayName(w);
  const labels = { log: o.origin, witness: name };
  const logger = (o.logger ?? silentLogger()).child({ log: o.origin, witness: name, transport: 'http', url: w.url });
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
  const doFetch = o.fetch ?? fetch;
  let connected = false;
  let closed = false;
  const aborts = new Set<AbortController>();

  const failure = (
    outcome: string,
    code: string,
    detail: string,
    extra: { knownSeq?: number; status?: number } = {},
  ): Result<C2spReply> => {
    o.metrics?.inc('cookwala_c2sp_witness_errors_total', { ...labels, outcome });
    return ok({ ok: false, code, detail: `${w.kid} (${endpoint}): ${detail}`, ...extra });
  };

  async function once(cp: Checkpoint, body: string, timeoutMs: number): Promise<{ retryMs: number } | Result<C2spReply>> {
    const ac = new AbortController();
    aborts.add(ac);
    const timer = setTimeout(() => ac.abort(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await doFetch(endpoint, { method: 'POST', body, headers: { 'content-type': 'text/plain; charset=utf-8' }, signal: ac.signal });
      text = await readCapped(res);
    } catch (e) {
      connected = false;
      o.metrics?.set('cookwala_c2sp_witness_last_status', 0, labels);
      // fetch says "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND…), which the operator needs.
      const cause = (e as { cause?: { code?: unknown } }).cause?.code;
      const why = ac.signal.aborted
        ? String((ac.signal.reason as Error)?.message ?? 'aborted')
        : `${(e as Error).message}${typeof cause === 'string' ? ` (${cause === 'ECONNREFUSED' ? 'connection refused' : cause})` : ''}`;
      return failure('unavailable', 'witness_unavailable', why);
    } finally {
      clearTimeout(timer);
      aborts.delete(ac);
    }
    connected = true;
    o.metrics?.observe?.('cookwala_c2sp_witness_seconds', (performance.now() - started) / 1000, labels);
    o.metrics?.set('cookwala_c2sp_witness_last_status', res.status, labels);
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    switch (res.status) {
      case 200: {
        const sigs = cosignaturesFromWitnessReply(cp, text, [vkey]);
        if (!sigs.ok) return failure('bad_cosignature', 'bad_signature', `unreadable cosignature lines: ${sigs.detail}`);
        for (const s of sigs.value) {
          const v = verifyCheckpointC2spCosignature(cp, s, w);
          if (v.ok) {
            o.metrics?.set('cookwala_c2sp_witness_cosigned_size', cp.seq, labels);
            return ok({ ok: true, cosignature: s });
          }
          return failure('bad_cosignature', v.code, `its cosignature does not verify: ${v.detail}`);
        }
        return failure('bad_cosignature', 'unknown_key', `200 without a cosignature by ${vkey.name}+${vkey.keyId}`);
      }
      case 409: {
        const m = type === 'text/x.tlog.size' ? /^(0|[1-9][0-9]{0,15})\n$/.exec(text) : null;
        if (m && Number.isSafeInteger(Number(m[1]))) {
          o.metrics?.inc('cookwala_c2sp_witness_errors_total', { ...labels, outcome: 'conflict' });
          return ok({
            ok: false,
            code: 'conflict',
            detail: `${w.kid}: the witness's latest cosigned size is ${m[1]}`,
            knownSeq: Number(m[1]),
            status: 409,
          });
        }
        logger.error(
          { event: 'witness_error', seq: cp.seq, status: 409, outcome: 'inconsistent', body: text.slice(0, 200) },
          `C2SP witness ${w.kid} answered 409 without a tree size to seq ${cp.seq}: inconsistency or fork evidence`,
        );
        return failure('inconsistent', 'inconsistent', `409 without a text/x.tlog.size body (${type || 'no content type'})`, {
          status: 409,
        });
      }
      case 422:
        logger.error(
          { event: 'witness_error', seq: cp.seq, status: 422, outcome: 'inconsistent', body: text.slice(0, 200) },
          `C2SP witness ${w.kid} refused seq ${cp.seq} as inconsistent (422): inconsistency or fork evidence`,
        );
        return failure('inconsistent', 'inconsistent', `422: the witness finds seq ${cp.seq} inconsistent with what it cosigned`, {
          status: 422,
        });
      case 403:
        logger.warn(
          { event: 'witness_error', seq: cp.seq, status: 403, outcome: 'misconfigured' },
          `C2SP witness ${w.kid} does not trust our log key (403): misconfiguration; give it the log vkey`,
        );
        return failure('misconfigured', 'bad_signature', '403: no signature from a key the witness trusts for this origin', {
          status: 403,
        });
      case 404:
        logger.warn(
          { event: 'witness_error', seq: cp.seq, status: 404, outcome: 'misconfigured' },
          `C2SP witness ${w.kid} does not know origin ${cp.log} (404): misconfiguration; ask its operator to add the log`,
        );
        return failure('misconfigured', 'unknown_log', `404: the witness does not know origin ${cp.log}`, { status: 404 });
      case 400:
        return failure('bad_request', 'bad_request', `400: ${text.slice(0, 200)}`, { status: 400 });
      case 429:
        return { retryMs: retryAfterMs(res.headers.get('retry-after')) ?? 1000 };
      default:
        return failure('unavailable', 'witness_unavailable', `HTTP ${res.status}`, { status: res.status });
    }
  }

  return {
    addr: w.url,
    peerId: undefined,
    kid: w.kid,
    witness: w,
    get connected() {
      return connected;
    },
    async request(req, ropts = {}) {
      const body = addCheckpointBody(req);
      if (!body.ok) return body;
      const max = o.maxRetries ?? 3;
      for (let attempt = 0; ; attempt++) {
        if (closed) return fail('witness_unavailable', `${w.kid}: client closed`);
        const r = await once(req.checkpoint, body.value, ropts.timeoutMs ?? o.timeoutMs ?? 5000);
        if (!('retryMs' in r)) return r;
        const wait = Math.min((r as { retryMs: number }).retryMs, o.maxBackoffMs ?? 30_000);
        if (attempt >= max) return failure('rate_limited', 'rate_limited', `429 after ${max + 1} attempts`, { status: 429 });
        o.metrics?.inc('cookwala_c2sp_witness_errors_total', { ...labels, outcome: 'rate_limited' });
        logger.warn(
          { event: 'witness_error', status: 429, outcome: 'rate_limited', retryInMs: wait },
          `C2SP witness ${w.kid} asked us to back off (429): retrying in ${wait} ms`,
        );
        await sleep(wait);
      }
    },
    async close() {
      closed = true;
      for (const ac of aborts) ac.abort(new Error('client closed'));
    },
  };
}
