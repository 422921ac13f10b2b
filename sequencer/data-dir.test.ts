// The data directory: init creates everything once and is idempotent (never overwrites a key or a
// token, adds new logs), secrets are mode 0600, the sequencer KeyRecord is self-signed and stable,
// and a store that belongs to another log, mode or key is refused (descriptor_mismatch).
import { afterAll, describe, expect, it } from 'vitest';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir, loadDataDir, sequencerKid, openOrCreateLogStore } from './data-dir.ts';
import { DATA_FILES } from './config.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { verifyDocument } from '../verifier/signing/signature.ts';
import { fromBase64url } from '../verifier/encoding/wire.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';

const tmp = tempDirs();
afterAll(() => tmp.cleanup());

it('creates keys, token, config, policy and signed logs once; re-running changes nothing but adds logs', async () => {
  const dir = join(await tmp.make(), 'data');
  const first = await initDataDir({ dir });
  expect(first.created).toEqual(
    expect.arrayContaining([DATA_FILES.key, DATA_FILES.token, DATA_FILES.config, 'policy.json', 'logs/localhost%2Fmissions%2Fdemo']),
  );
  expect((await stat(join(dir, DATA_FILES.key))).mode & 0o777).toBe(0o600);
  expect((await stat(join(dir, DATA_FILES.token))).mode & 0o777).toBe(0o600);
  const key = await readFile(join(dir, DATA_FILES.key), 'utf8');
  const token = await readFile(join(dir, DATA_FILES.token), 'utf8');
  expect(fromBase64url(token).ok && (fromBase64url(token) as { value: Uint8Array }).value.length).toBe(32);
  const k = JSON.parse(key);
  expect(Object.keys(k).sort()).toEqual(['alg', 'kid', 'secretKey']);
  const d = await loadDataDir(dir);
  expect(d.signer.kid).toBe(k.kid);
  expect(k.kid).toBe(sequencerKid(d.signer.publicKey));
  expect(
    verifyDocument(d.keyRecord as unknown as JsonObject, (kid) => (kid === d.keyRecord.kid ? d.keyRecord : undefined), {
      role: 'sequencer',
    }).ok,
  ).toBe(true);
  expect(d.policy).toMatchObject({ log: 'localhost/missions/demo', quorum: 0, witnesses: [], sequencer: d.keyRecord });
  expect(d.config.logs).toEqual([{ log: 'localhost/missions/demo', mode: 'hash_only' }]);

  const again = await initDataDir({ dir });
  expect(again.created).toEqual([]);
  expect(await readFile(join(dir, DATA_FILES.key), 'utf8')).toBe(key);
  expect(await readFile(join(dir, DATA_FILES.token), 'utf8')).toBe(token);
  const recordBefore = await readFile(join(dir, DATA_FILES.keyRecord), 'utf8');

  const more = await initDataDir({ dir, logs: ['b.example/x'], mode: 'full', port: 9000 });
  expect(more.created).toEqual(['logs/b.example%2Fx']);
  expect((await loadDataDir(dir)).config).toMatchObject({
    port: 9000,
    logs: [
      { log: 'localhost/missions/demo', mode: 'hash_only' },
      { log: 'b.example/x', mode: 'full' },
    ],
  });
  expect(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')).toBe(recordBefore);
});

it('keeps a token that is already there', async () => {
  const dir = await tmp.make();
  await writeFile(join(dir, DATA_FILES.token), 'an-operator-chosen-token-of-enough-length\n', { mode: 0o600 });
  await initDataDir({ dir });
  expect((await loadDataDir(dir)).token).toBe('an-operator-chosen-token-of-enough-length');
});

it('refuses a store that belongs to another mode, and a load without init', async () => {
  const dir = await tmp.make();
  await initDataDir({ dir, logs: ['c.example/y'], mode: 'full' });
  const d = await loadDataDir(dir);
  await expect(openOrCreateLogStore(dir, { log: 'c.example/y', mode: 'hash_only' }, d.signer, Date.now)).rejects.toMatchObject({
    code: 'descriptor_mismatch',
  });
  const s = await openOrCreateLogStore(dir, { log: 'c.example/y', mode: 'full' }, d.signer, Date.now);
  await s.close();
  await expect(loadDataDir(await tmp.make())).rejects.toMatchObject({ code: 'not_found' });
  await expect(initDataDir({ dir: await tmp.make(), logs: ['https://bad.example/x'] })).rejects.toMatchObject({ code: 'invalid_origin' });
});

describe('operator tokens', () => {
  it('are 32 bytes of base64url that never start like a flag', async () => {
    const { newOperatorToken } = await import('./data-dir.ts');
    for (let i = 0; i < 500; i++) {
      const t = newOperatorToken();
      expect(t).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{42}$/);
    }
  });
});
