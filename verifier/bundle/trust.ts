// verifier/bundle/trust.ts: which keys an offline audit trusts (docs/design.md §8): the policy's sequencer
// key, the auditor's key cache, and a KeyRecord inside the bundle only when the policy's sequencer
// key signed it (the record's hash recomputed, the signature checked against the POLICY's record,
// never against a record from the bundle), so an edited or replaced record fails its signature.
// The bundle's first record must be the sequencer's own and carry the policy's public key. When the
// cache and the bundle both hold a kid, the public keys must agree (key_conflict otherwise, and the
// cache's record is kept); the stricter window wins (latest validFrom, earliest validUntil and
// revokedAt), so a revocation known to either side counts. Left out: fetching keys (auditor/keys.ts).

import { fail, ok, type Result } from '../errors.ts';
import { sameKey, type KeyRecord } from '../signing/keys.ts';
import { verifyDocument, type VerifyOptions } from '../signing/signature.ts';
import { timeMs } from '../encoding/wire.ts';
import type { JsonObject } from '../signing/document-hash.ts';
import type { WitnessPolicy } from '../documents/policy.ts';

export interface Trust {
  /** The key an event signature names, from the policy, the cache or a verified bundle record. */
  lookup(kid: string): KeyRecord | undefined;
  /** Checks and admits one KeyRecord line of the bundle (the line order is the caller's check). */
  admit(rec: KeyRecord): Result<{ legacy: boolean }>;
  /** True when `key` is the policy's sequencer key (compared by public key, not kid). */
  isSequencer(key: KeyRecord): boolean;
  readonly trusted: number;
  readonly fromBundle: number;
}

function later(a: string, b: string | undefined): string {
  return b !== undefined && timeMs(b) > timeMs(a) ? b : a;
}
function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return timeMs(b) < timeMs(a) ? b : a;
}

/** The stricter of two records for one key: the narrower window and the earlier revocation. */
export function stricterRecord(a: KeyRecord, b: KeyRecord): KeyRecord {
  const out: KeyRecord = { ...a, validFrom: later(a.validFrom, b.validFrom) };
  const until = earlier(a.validUntil, b.validUntil);
  const revoked = earlier(a.revokedAt, b.revokedAt);
  if (until !== undefined) out.validUntil = until;
  if (revoked !== undefined) out.revokedAt = revoked;
  return out;
}

export function createTrust(policy: WitnessPolicy, cache: readonly KeyRecord[] = [], opts: VerifyOptions = {}): Trust {
  const seqKey = policy.sequencer;
  const byKid = new Map<string, KeyRecord>();
  for (const k of cache) {
    if (k.kid === seqKey.kid) continue; // the policy decides the sequencer key
    const had = byKid.get(k.kid);
    byKid.set(k.kid, had && sameKey(had, k) ? stricterRecord(had, k) : k);
  }
  let fromBundle = 0;
  const seqLookup = (kid: string) => (kid === seqKey.kid ? seqKey : undefined);

  return {
    lookup(kid) {
      return kid === seqKey.kid ? seqKey : byKid.get(kid);
    },
    isSequencer: (key) => sameKey(key, seqKey),
    admit(rec) {
      if (rec.signature === undefined)
        return fail('bad_signature', `KeyRecord ${rec.kid} carries no signature by the sequencer key`, { kid: rec.kid });
      const v = verifyDocument(rec as unknown as JsonObject, seqLookup, { ...opts, role: 'sequencer' });
      if (!v.ok)
        return v.code === 'unknown_key'
          ? fail('unknown_key', `KeyRecord ${rec.kid} is signed by ${rec.signature.kid}, not by the policy's sequencer key ${seqKey.kid}`, {
              kid: rec.kid,
            })
          : v;
      if (rec.kid === seqKey.kid) {
        if (!sameKey(rec, seqKey))
          return fail('key_conflict', `the bundle's sequencer record ${rec.kid} holds another public key than the policy's`, {
            kid: rec.kid,
          });
        return ok({ legacy: v.value.legacy });
      }
      const had = byKid.get(rec.kid);
      if (had && !sameKey(had, rec))
        return fail('key_conflict', `KeyRecord ${rec.kid} in the bundle holds another public key than the key cache's`, { kid: rec.kid });
      const { hash: _h, signature: _s, ...plain } = rec;
      byKid.set(rec.kid, had ? stricterRecord(had, plain as KeyRecord) : (plain as KeyRecord));
      fromBundle++;
      return ok({ legacy: v.value.legacy });
    },
    get trusted() {
      return byKid.size + 1;
    },
    get fromBundle() {
      return fromBundle;
    },
  };
}
