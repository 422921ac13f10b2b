// The device key registry file: records signed by the sequencer, durable across reopen, a torn
// last line (a crash mid-write) cut off, an edited line fatal, concurrent registrations serialized.
import { afterAll, expect, it } from 'vitest';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openDeviceKeys } from './device-keys.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { deviceKey, signerKey } from '../testkit/keys.ts';
import { signDocument, verifyDocument } from '../verifier/signing/signature.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';

const tmp = tempDirs();
afterAll(() => tmp.cleanup());
const seq = signerKey('s', 'sequencer');
const seqRecord = signDocument(seq.record as unknown as JsonObject, seq.signer, seq.record.validFrom) as unknown as KeyRecord;
const AT = '2026-11-30T10:00:00.000Z';
const open = (file: string) => openDeviceKeys(file, seq.signer, seqRecord);

it('signs, persists and reloads records', async () => {
  const file = join(await tmp.make(), 'k', 'log.ndjson');
  const reg = await open(file);
  const d = deviceKey(1);
  const r = await reg.register(d.record, AT);
  expect(r.ok && r.value.created).toBe(true);
  if (!r.ok) throw new Error();
  expect(verifyDocument(r.value.record as unknown as JsonObject, (k) => (k === seqRecord.kid ? seqRecord : undefined)).ok).toBe(true);
  expect(r.value.record.signature?.signedAt).toBe(AT);
  expect(reg.publicKey(d.record.kid)?.length).toBe(32);
  await reg.close();
  const again = await open(file);
  expect(again.all()).toEqual([r.value.record]);
  await again.close();
});

it('cuts a torn last line, and refuses an edited record', async () => {
  const file = join(await tmp.make(), 'log.ndjson');
  const reg = await open(file);
  await reg.register(deviceKey(1).record, AT);
  await reg.close();
  await appendFile(file, '{"kind":"KeyRecord","kid":"dev-2"');
  const cut = await open(file);
  expect(cut.all().map((k) => k.kid)).toEqual(['dev-1']);
  await cut.register(deviceKey(3).record, AT);
  await cut.close();
  expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace('cookwala:device/dev-1', 'cookwala:device/evil'));
  await expect(open(file)).rejects.toMatchObject({ code: 'hash_mismatch' });
});

it('serializes concurrent registrations of one kid: one record wins, the other conflicts', async () => {
  const reg = await open(join(await tmp.make(), 'log.ndjson'));
  const a = deviceKey(5).record;
  const b = { ...a, publicKey: deviceKey(6).record.publicKey };
  const [ra, rb] = await Promise.all([reg.register(a, AT), reg.register(b, AT)]);
  expect(ra.ok).toBe(true);
  expect(rb).toMatchObject({ ok: false, code: 'key_conflict' });
  expect(await reg.register({ ...a, kid: seqRecord.kid }, AT)).toMatchObject({ ok: false, code: 'key_conflict' });
  await reg.close();
  expect(await reg.register(a, AT)).toMatchObject({ ok: false, code: 'shutting_down' });
});
