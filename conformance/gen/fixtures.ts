// conformance/gen/fixtures.ts: the fixed material the vector generator builds from: test keys whose
// secrets are SHA-256 of a fixed label (never random), fixed RFC 3339 times, and the case helpers.
// Signing uses the @noble backend, which is deterministic for EdDSA (RFC 8032) and ES256 (RFC 6979),
// so regenerating gives identical bytes. These keys are public test keys: never trust them.

import { createNobleBackend } from '../../verifier/crypto/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { toBase64url, utf8 } from '../../verifier/encoding/index.ts';
import type { ReasonCode } from '../../verifier/index.ts';
import type { Alg, KeyRecord, KeyRole } from '../../verifier/signing/index.ts';
import { createSigner, keyRecordOf, type Signer } from '../../verifier/signing/index.ts';

export const backend: CryptoBackend = createNobleBackend();

/** Fixed instants; every vector time is one of these or one millisecond from one. */
export const T = {
  keysFrom: '2026-01-01T00:00:00.000Z',
  genesis: '2026-11-30T09:00:00.000Z',
  t0: '2026-11-30T10:00:00.000Z',
  t1: '2026-11-30T10:00:01.000Z',
  t2: '2026-11-30T10:00:02.000Z',
  t3: '2026-11-30T10:00:03.000Z',
  revoked: '2026-12-01T00:00:00.000Z',
  until: '2027-01-01T00:00:00.000Z',
} as const;

export function shiftMs(time: string, ms: number): string {
  return new Date(Date.parse(time) + ms).toISOString();
}

/** 32 fixed bytes for a label (the SHA-256 of "cookwala conformance " + label). */
export function fixedBytes(label: string, n = 32): Uint8Array {
  return backend.sha256(utf8(`cookwala conformance ${label}`)).subarray(0, n);
}

export interface TestKey {
  signer: Signer;
  record: KeyRecord;
}

export function testKey(
  kid: string,
  alg: Alg,
  role: KeyRole,
  owner: string,
  window: { validFrom?: string; validUntil?: string; revokedAt?: string } = {},
): TestKey {
  const signer = createSigner({ alg, kid, secretKey: toBase64url(fixedBytes(`key ${kid}`)) }, backend);
  const record = keyRecordOf(signer, {
    owner,
    role,
    validFrom: window.validFrom ?? T.keysFrom,
    validUntil: window.validUntil,
    revokedAt: window.revokedAt,
  });
  return { signer, record };
}

export const LOG = 'kitchen.example.org/missions/m-0042';
export const OTHER_LOG = 'kitchen.example.org/missions/m-0043';
export const DEVICE = 'urn:cookwala:device:oven-7';
export const DEVICE2 = 'urn:cookwala:device:mixer-2';

/** The cast of every vector file; built on demand (nothing runs at import time). */
export function createKeys() {
  return {
    seq: testKey('seq-1', 'EdDSA', 'sequencer', 'kitchen.example.org'),
    seqOther: testKey('seq-2', 'EdDSA', 'sequencer', 'kitchen.example.org'),
    w1: testKey('w-1', 'EdDSA', 'witness', 'witness-one.example'),
    w2: testKey('w-2', 'EdDSA', 'witness', 'witness-two.example'),
    w3: testKey('w-3', 'ES256', 'witness', 'witness-three.example'),
    dev: testKey('dev-oven-7', 'EdDSA', 'device', DEVICE),
    devP256: testKey('dev-mixer-2', 'ES256', 'device', DEVICE2),
    operator: testKey('op-1', 'ES256', 'operator', 'kitchen.example.org'),
    revoked: testKey('dev-old', 'EdDSA', 'device', DEVICE, { revokedAt: T.revoked }),
    windowed: testKey('dev-window', 'EdDSA', 'device', DEVICE, { validFrom: T.t0, validUntil: T.until }),
  };
}
export type Keys = ReturnType<typeof createKeys>;

export interface VectorCase {
  id: string;
  description: string;
  input: { op: string; [k: string]: unknown };
  expected: { ok: true } | { ok: false; code: ReasonCode };
}

export interface VectorFile {
  topic: string;
  description: string;
  cases: VectorCase[];
}

export function valid(id: string, description: string, input: VectorCase['input']): VectorCase {
  return { id, description, input, expected: { ok: true } };
}

export function invalid(id: string, code: ReasonCode, description: string, input: VectorCase['input']): VectorCase {
  return { id, description, input, expected: { ok: false, code } };
}

/** A deep copy through JSON (vectors are JSON data; this also drops undefined members). */
export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
