// Device key registration over real HTTP (POST /v1/logs/{log}/keys on 127.0.0.1) refuses the
// identity-point key (the known forgery), a mixed-order key and a y >= p encoding with 400 weak_key, and
// registers none of them; an event "signed" by the identity-key forgery cannot append; a registry
// file written by a sequencer without the rule (a sequencer-signed identity-key record) is
// refused at open with weak_key instead of being trusted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey, signerKey, type TestKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { IDENTITY, NONCANONICAL_Y, T8, identityForgery, keyOf } from '../testkit/ed25519-adversarial.ts';
import { toBase64url } from '../verifier/encoding/wire.ts';
import { signDocument, type Signer } from '../verifier/signing/signature.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';
import { openDeviceKeys } from '../sequencer/device-keys.ts';

let t: TestSequencer;
const tmp = tempDirs();
beforeAll(async () => {
  t = await startSequencer({ listen: true });
});
afterAll(async () => {
  await t.close();
  await tmp.cleanup();
});

const http = (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const register = (record: KeyRecord) => http('POST', logPath(t.log, '/keys'), record, { authorization: `Bearer ${t.token}` });
const weak = (n: number, pub: Uint8Array): KeyRecord => ({ ...deviceKey(n).record, publicKey: toBase64url(pub) });

describe('registration over HTTP', () => {
  it('refuses the identity key, a mixed-order key and a y >= p key with 400 weak_key, and lists none of them', async () => {
    for (const [n, pub] of [
      [40, IDENTITY],
      [41, keyOf(987654321n, T8)],
      [42, NONCANONICAL_Y[0]],
    ] as const) {
      const r = await register(weak(n, pub));
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await r.json()).toMatchObject({ code: 'weak_key' });
    }
    const ok = await register(deviceKey(43).record); // the control: an honest key registers
    expect(ok.status).toBe(201);
    const keys = (await (await http('GET', logPath(t.log, '/keys'))).json()) as { keys: KeyRecord[] };
    expect(keys.keys.map((k) => k.kid)).toEqual(['dev-43']);
  });

  it('an event signed by the identity-key forgery cannot append', async () => {
    const rec = weak(44, IDENTITY);
    expect((await register(rec)).status).toBe(400);
    const forger: Signer = { kid: rec.kid, alg: 'EdDSA', publicKey: IDENTITY, sign: () => identityForgery(31337n).sig };
    const key: TestKey = { signer: forger, record: rec, owner: rec.owner };
    const r = await http(
      'POST',
      logPath(t.log, '/events'),
      signed(makeEvent({ source: rec.owner, subject: 'exec-1', cookwalaseq: 1, data: { step: 1 } }), key),
      { 'content-type': 'application/cloudevents+json', 'idempotency-key': 'weak-1' },
    );
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ code: 'unknown_key' });
    expect(t.headSeq()).toBe(0);
  });
});

it('a registry file holding a sequencer-signed identity-key record is refused at open with weak_key', async () => {
  const seq = signerKey('s', 'sequencer');
  const seqRecord = signDocument(seq.record as unknown as JsonObject, seq.signer, seq.record.validFrom) as unknown as KeyRecord;
  const file = join(await tmp.make(), 'log.ndjson');
  const bad = signDocument(weak(45, IDENTITY) as unknown as JsonObject, seq.signer, seq.record.validFrom);
  await writeFile(file, JSON.stringify(bad) + '\n');
  await expect(openDeviceKeys(file, seq.signer, seqRecord)).rejects.toMatchObject({
    code: 'weak_key',
    message: expect.stringMatching(/line 1/),
  });
});
