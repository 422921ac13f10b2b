// testkit/verifier-fixtures.ts: fixed keys, times and documents for the verifier's unit tests. Test
// support only: no product module imports it. Seeds are fixed so signatures (EdDSA; ES256 on the
// noble backend) are reproducible; every seed is a valid P-256 scalar (first byte 0x11 < n).

import { createSigner, generateSecretKey, keyRecordOf, type Signer } from '../verifier/signing/signature.ts';
import type { Alg, KeyRecord, KeyRole } from '../verifier/signing/keys.ts';
import type { CryptoBackend } from '../verifier/crypto/backend.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';

export const T0 = '2026-11-30T10:00:00.000Z';
export const LOG = 'kitchen.example.org/missions/m-0042';
export const DEVICE = 'urn:cookwala:device:oven-7';

/** T0 plus `ms` milliseconds, in the wire spelling. */
export function at(ms: number): string {
  return formatTime(Date.parse(T0) + ms);
}

export function seed(n: number): Uint8Array {
  const b = Uint8Array.from({ length: 32 }, (_, i) => (i * 31 + n * 17 + 5) & 0xff);
  b[0] = 0x11;
  return b;
}

export function signerFor(alg: Alg, kid: string, n: number, backend?: CryptoBackend): Signer {
  return createSigner(generateSecretKey(alg, kid, backend, seed(n)), backend);
}

export function keyFor(
  signer: Signer,
  role: KeyRole,
  owner: string,
  extra: { validFrom?: string; validUntil?: string; revokedAt?: string } = {},
): KeyRecord {
  return keyRecordOf(signer, { owner, role, validFrom: extra.validFrom ?? T0, validUntil: extra.validUntil, revokedAt: extra.revokedAt });
}

export function lookupOf(...keys: KeyRecord[]): (kid: string) => KeyRecord | undefined {
  return (kid) => keys.find((k) => k.kid === kid);
}

/** A device event as an executor would send it (not yet signed). */
export function sampleEvent(overrides: Record<string, unknown> = {}): CloudEvent {
  return {
    specversion: '1.0',
    id: 'ev-0001',
    source: DEVICE,
    type: 'cookwala.execution.running',
    subject: 'exec-42',
    time: at(5),
    cookwalaseq: 3,
    datacontenttype: 'application/json',
    data: { state: 'running', tempC: 91.5 },
    ...overrides,
  } as CloudEvent;
}

/** A hash string whose hex digits repeat `c` (test data, not a real digest). */
export function fakeHash(c: string): string {
  return 'sha256:' + c.repeat(64).slice(0, 64);
}

export function deepFreeze<T>(x: T): T {
  if (x && typeof x === 'object') {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
}

export function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}
