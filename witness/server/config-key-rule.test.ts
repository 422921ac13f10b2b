// The witness's admitted keys and the Ed25519 key rule (verifier/crypto/ed25519-rules.ts,
// witness/server/config.ts): reading a config that a person hands in (`readWitnessConfig`, eager)
// refuses a mixed-order sequencer key with weak_key; the witness's own config at start-up and on
// save ('on-use': its keys were checked when admitted) is read without the rule, so 40,000 logs
// load in well under a second, and a key that breaks the rule is then refused at its first
// checkpoint (bad_signature, its detail naming weak_key) and nothing stored.
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Point } from '@noble/ed25519';
import { fromBase64url, toBase64url } from '../../verifier/encoding/wire.ts';
import { T8 } from '../../testkit/ed25519-adversarial.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { tmpDir } from '../../testkit/tmp.ts';
import { readWitnessConfig } from './config.ts';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig, WITNESS_FILES } from './data-dir.ts';
import { processAddCheckpoint, type AdmittedLog } from './add-checkpoint.ts';
import { openStateStore } from './state.ts';
import { createLogRegistry } from './c2sp-logs.ts';

const ORIGIN = 'example.org/missions/m-weak';
const log = createFakeLog(ORIGIN);
const pub = fromBase64url(log.keyRecord.publicKey);
if (!pub.ok) throw new Error(pub.detail);
/** The log's own key plus a point of order 8: a mixed-order key. */
const weakRecord = { ...log.keyRecord, publicKey: toBase64url(Point.fromBytes(pub.value).add(T8).toBytes()) };
const config = (sequencer: unknown) => ({
  kind: 'WitnessConfig',
  name: 'w',
  listen: [],
  bootstrap: [],
  httpHost: '127.0.0.1',
  httpPort: 0,
  logs: [{ log: ORIGIN, sequencer }],
});

describe('the key rule of admitted keys', () => {
  it('an eager read refuses a mixed-order key with weak_key; an on-use read of the same config passes', () => {
    const eager = readWitnessConfig(config(weakRecord));
    expect(eager.ok ? 'ok' : eager.code).toBe('weak_key');
    expect(readWitnessConfig(config(weakRecord), 'on-use').ok).toBe(true);
    expect(readWitnessConfig(config(log.keyRecord)).ok).toBe(true);
    // The C2SP registry derives the vkey without the rule and makes the verifier on first use:
    // a weak key yields none (every note signature of that log is refused), a sound one one.
    const reg = createLogRegistry(
      [
        { log: ORIGIN, sequencer: weakRecord },
        { log: 'example.org/ok', sequencer: log.keyRecord },
      ],
      [],
    );
    if (!reg.ok) throw new Error(reg.detail);
    expect(reg.value.vkeyOf(ORIGIN)).toMatch(/^example\.org\/missions\/m-weak\+[0-9a-f]{8}\+/);
    expect(reg.value.get(ORIGIN)).toEqual([]);
    expect(reg.value.get('example.org/ok')).toHaveLength(1);
    // Everything else is still checked on-use: a bad shape is refused.
    const shape = readWitnessConfig(config({ ...weakRecord, publicKey: 'AAAA' }), 'on-use');
    expect(shape.ok ? 'ok' : shape.code).toBe('invalid_document');
  });

  it('the witness loads and saves such a config, then refuses the log at its first checkpoint (bad_signature naming weak_key)', async () => {
    const dir = await tmpDir('cookwala-witness-keyrule-');
    await initWitnessDir(dir, { name: 'w' });
    const path = join(dir, WITNESS_FILES.config);
    const cfg = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...cfg, logs: [{ log: ORIGIN, sequencer: weakRecord }] }));
    const d = await loadWitnessDir(dir);
    expect(d.config.logs[0].sequencer.publicKey).toBe(weakRecord.publicKey);
    await saveWitnessConfig(dir, d.config);
    const state = await openStateStore(join(dir, WITNESS_FILES.state));
    try {
      const admitted = new Map<string, AdmittedLog>([[ORIGIN, d.config.logs[0]]]);
      log.append(3);
      const r = await processAddCheckpoint(await log.request(0), {
        state,
        logs: { get: (o) => admitted.get(o) },
        signer: testKey('w1', 'witness').signer,
        clock: () => Date.parse('2026-01-01T00:00:00.000Z'),
        onFork: () => undefined,
      });
      // The signature check names the rule (every checkpoint refusal is bad_signature on the wire).
      expect(r.ok ? 'ok' : `${r.code} ${r.detail}`).toMatch(/^bad_signature weak_key: a mixed-order/);
      expect(await state.get(ORIGIN)).toBeUndefined();
    } finally {
      await state.close();
    }
  });
});
