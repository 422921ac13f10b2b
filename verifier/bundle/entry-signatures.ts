// verifier/bundle/entry-signatures.ts: the event signature of each bundle entry (docs/design.md §4, §8; Core §5,
// RFC-0012): the key its kid names among the trusted ones (trust.ts: unknown_key), the role
// rule (a device key owned by ce.source; the sequencer's own key only for the entry types only the
// sequencer appends, and those only with it: key_role_mismatch, source_mismatch), the validity
// window at signedAt (key_revoked, key_not_valid_at), and the signature over the header {alg,
// hash: eventHash, kid, kind:"Event", signedAt} built by verifier/signing/signature.ts signingHeaderBytes (the one
// encoder). All is decided here on the reader's thread except the raw check, which is queued
// (signature-batches.ts) for the worker pool; its verdict then names bad_signature, or legacy_signature
// for a Core 0.2.0 bare-hash signature (accepted and counted only with allowLegacy).
// Invariant: while a check is in flight only a small record is held, never the parsed entry.

import type { FailureLog } from './report.ts';
import type { Trust } from './trust.ts';
import type { SigQueue } from './signature-batches.ts';
import { EVENT_KIND } from '../cloudevent/read.ts';
import type { Entry } from '../documents/entry.ts';
import { checkKeyValidAt, publicKeyBytes, type KeyRecord } from '../signing/keys.ts';
import { signingHeader, signingHeaderBytes, verifyRaw } from '../signing/signature.ts';
import { formatHash, fromBase64url, timeMs, utf8 } from '../encoding/wire.ts';
import type { CryptoBackend } from '../crypto/default.ts';
import type { Failure, Result } from '../errors.ts';

export const ERASED_TYPE = 'cookwala.log.erased';
export const DEVICE_LOST_TYPE = 'cookwala.hub.device_lost';
/** Entry types that only the sequencer appends, signed with its own key. */
export const SEQUENCER_TYPES: readonly string[] = [ERASED_TYPE, DEVICE_LOST_TYPE];

// Buffer when present (Node) for the two conversions on the hot path; the portable functions otherwise.
type B = { from(a: ArrayBuffer | string, o?: number | string, l?: number): Uint8Array & { toString(e: string): string } };
const NodeBuffer = (globalThis as { Buffer?: B }).Buffer;

/** `sha256:`+hex of a 32-byte digest (formatHash, faster under Node). */
export function hashString(d: Uint8Array): string {
  return NodeBuffer ? 'sha256:' + NodeBuffer.from(d.buffer as ArrayBuffer, d.byteOffset, d.byteLength).toString('hex') : formatHash(d);
}

/** Bytes of a base64url string the schema has already checked to be canonical. */
function checkedBase64url(s: string): Uint8Array | undefined {
  if (NodeBuffer) return NodeBuffer.from(s, 'base64url');
  const r = fromBase64url(s);
  return r.ok ? r.value : undefined;
}

/** A key's public bytes and validity window, computed once per record. */
interface KeyState {
  pub: Uint8Array | null;
  from: number;
  until: number;
  revoked: number;
}

export interface EntrySignatures {
  /** Decide and queue the check of `e`'s signature; `wait` is backpressure to await. */
  check(e: Entry, line: number, signedAtMs?: number, stringsPlain?: boolean): { wait?: Promise<void>; sequencerSigned: boolean };
  /** Legacy signatures accepted so far (allowLegacy). */
  readonly legacy: number;
}

export function createEntrySignatures(o: {
  failures: FailureLog;
  trust: Trust;
  sigs: SigQueue;
  backend: CryptoBackend;
  allowLegacy?: boolean;
}): EntrySignatures {
  const f = o.failures;
  const backend = o.backend;
  const keyStates = new WeakMap<KeyRecord, KeyState>();
  let legacy = 0;

  function keyState(key: KeyRecord): KeyState {
    let k = keyStates.get(key);
    if (!k) {
      const r = publicKeyBytes(key);
      const t = (x: string | undefined, dflt: number) => (x === undefined ? dflt : timeMs(x));
      k = {
        pub: r.ok ? r.value : null,
        from: t(key.validFrom, NaN),
        until: t(key.validUntil, Infinity),
        revoked: t(key.revokedAt, Infinity),
      };
      keyStates.set(key, k);
    }
    return k;
  }

  /** checkKeyValidAt's verdict, without re-reading the key's times for every entry. */
  function validAt(key: KeyRecord, k: KeyState, signedAt: string, signedAtMs?: number): Result<true> {
    const t = signedAtMs ?? timeMs(signedAt);
    if (t < k.revoked && t >= k.from && t <= k.until) return { ok: true, value: true };
    return checkKeyValidAt(key, signedAt); // the exact failure (and NaN windows fail closed there)
  }

  interface SigCheck {
    seq: number;
    line: number;
    kid: string;
    eventHash: string;
    signedAt: string;
    source: string;
    key: KeyRecord;
    pub: Uint8Array;
    sig: Uint8Array;
    invalid?: Failure;
    owner?: string;
  }

  /** What a verdict means: bad_signature (or legacy_signature), else the validity window, else the owner rule. */
  function verdict(c: SigCheck, good: boolean): void {
    const at = { seq: c.seq, line: c.line };
    if (!good) {
      const bare = verifyRaw(c.key.alg, c.pub, utf8(c.eventHash), c.sig, backend);
      if (!bare)
        return f.add({
          kind: 'bad_signature',
          ...at,
          found: c.kid,
          detail: `entry ${c.seq}: the event signature by ${c.kid} does not verify`,
        });
      if (!o.allowLegacy)
        return f.add({
          kind: 'legacy_signature',
          ...at,
          found: c.kid,
          detail: `entry ${c.seq}: signature by ${c.kid} covers the bare hash (Core 0.2.0); pass --allow-legacy-signatures to accept`,
        });
      legacy++;
    }
    const k = c.key;
    if (c.invalid)
      return f.add({
        kind: c.invalid.code,
        ...at,
        found: c.signedAt,
        expected: { validFrom: k.validFrom, validUntil: k.validUntil, revokedAt: k.revokedAt },
        detail: `entry ${c.seq}: ${c.invalid.detail}`,
      });
    if (c.owner !== undefined)
      f.add({
        kind: 'source_mismatch',
        ...at,
        expected: c.owner,
        found: c.source,
        detail: `entry ${c.seq}: key ${c.kid} belongs to ${c.owner}, the event source is ${c.source}`,
      });
  }

  /** Queues the device (or sequencer) signature of an entry; returns backpressure and whether the sequencer signed. */
  /**
   * `signedAtMs`: timeMs(e.eventSignature.signedAt) when the caller has it already; `stringsPlain`:
   * the entry was read from text that isPlainJsonText accepted (signingHeaderBytes).
   */
  function check(e: Entry, line: number, signedAtMs?: number, stringsPlain = false): { wait?: Promise<void>; sequencerSigned: boolean } {
    const s = e.eventSignature;
    const key = o.trust.lookup(s.kid);
    const at = { seq: e.seq, line };
    if (!key) {
      f.add({
        kind: 'unknown_key',
        ...at,
        found: s.kid,
        detail: `entry ${e.seq} is signed by ${s.kid}, which neither the policy, the key cache nor a sequencer-signed KeyRecord names`,
      });
      return { sequencerSigned: false };
    }
    const bySequencer = o.trust.isSequencer(key);
    const ownType = SEQUENCER_TYPES.includes(e.ce.type);
    if (bySequencer !== ownType) {
      const detail = bySequencer
        ? `the sequencer key signs only its own entry types (${SEQUENCER_TYPES.join(', ')}), not ${e.ce.type}`
        : `${e.ce.type} entries are the sequencer's own and must carry its signature, not ${s.kid}'s`;
      f.add({
        kind: 'key_role_mismatch',
        ...at,
        expected: bySequencer ? SEQUENCER_TYPES : 'the sequencer key',
        found: bySequencer ? e.ce.type : s.kid,
        detail,
      });
      return { sequencerSigned: false };
    }
    if (!bySequencer && key.role !== 'device') {
      f.add({
        kind: 'key_role_mismatch',
        ...at,
        expected: 'device',
        found: key.role,
        detail: `key ${key.kid} has role ${key.role}; events are signed by device keys`,
      });
      return { sequencerSigned: false };
    }
    if (s.alg !== key.alg) {
      f.add({
        kind: 'bad_signature',
        ...at,
        expected: key.alg,
        found: s.alg,
        detail: `entry ${e.seq}: signature alg ${s.alg} is not key ${key.kid}'s ${key.alg}`,
      });
      return { sequencerSigned: false };
    }
    const ks = keyState(key);
    const pub = ks.pub;
    const sig = checkedBase64url(s.sig);
    if (!pub || !sig) {
      f.add({
        kind: 'malformed_signature',
        ...at,
        detail: `entry ${e.seq}: ${pub ? 'sig' : `key ${key.kid}'s publicKey`} cannot be decoded`,
      });
      return { sequencerSigned: false };
    }
    const validity = validAt(key, ks, s.signedAt, signedAtMs);
    const check = {
      seq: e.seq,
      line,
      kid: s.kid,
      eventHash: e.eventHash,
      signedAt: s.signedAt,
      source: e.ce.source,
      key,
      pub,
      sig,
      invalid: validity.ok ? undefined : validity,
      owner: !bySequencer && key.owner !== e.ce.source ? key.owner : undefined,
    };
    const msg = signingHeaderBytes(signingHeader(s, e.eventHash, EVENT_KIND), stringsPlain);
    // The callback holds this small record, not the parsed entry, while the batch is in flight.
    const wait = o.sigs.add({ alg: key.alg, publicKey: pub, msg, sig }, (good) => verdict(check, good));
    return { wait, sequencerSigned: bySequencer };
  }

  return {
    check,
    get legacy() {
      return legacy;
    },
  };
}
