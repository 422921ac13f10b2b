// testkit/keys.ts: deterministic key fixtures. deviceKey(n) is the same Ed25519 (or P-256)
// key in every run (seed = SHA-256 of a label), with its device KeyRecord owned by its source;
// signerKey(label, role) gives other roles (witness, sequencer) the same way.

import { createHash } from 'node:crypto';
import { createSigner, generateSecretKey, keyRecordOf, type Signer } from '../verifier/signing/signature.ts';
import type { Alg, KeyRecord, KeyRole } from '../verifier/signing/keys.ts';

export const FIXTURE_VALID_FROM = '2026-01-01T00:00:00.000Z';

export function seedOf(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`cookwala-test:${label}`).digest());
}

export interface TestKey {
  signer: Signer;
  record: KeyRecord;
  /** The owner (for a device: the CloudEvent source it signs for). */
  owner: string;
}

export function signerKey(
  label: string,
  role: KeyRole,
  opts: { alg?: Alg; owner?: string; validFrom?: string; validUntil?: string; revokedAt?: string; kid?: string } = {},
): TestKey {
  const alg = opts.alg ?? 'EdDSA';
  const kid = opts.kid ?? `${role}-${label}`;
  const signer = createSigner(generateSecretKey(alg, kid, undefined, seedOf(`${alg}:${label}`)));
  const owner = opts.owner ?? `cookwala:${role}/${label}`;
  const record = keyRecordOf(signer, {
    owner,
    role,
    validFrom: opts.validFrom ?? FIXTURE_VALID_FROM,
    validUntil: opts.validUntil,
    revokedAt: opts.revokedAt,
  });
  return { signer, record, owner };
}

/** Device n: kid `dev-<n>`, source/owner `cookwala:device/dev-<n>`. */
export function deviceKey(n: number, opts: { alg?: Alg; revokedAt?: string; validUntil?: string; validFrom?: string } = {}): TestKey {
  return signerKey(`dev-${n}`, 'device', {
    ...opts,
    kid: `dev-${n}${opts.alg === 'ES256' ? '-p256' : ''}`,
    owner: `cookwala:device/dev-${n}`,
  });
}
