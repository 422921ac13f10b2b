// The witness status API over a real state store: its routes answer, and its errors are the
// project's one problem+json shape (a code from verifier/errors.ts, its status and meaning).
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openStateStore, type StateStore } from './state.ts';
import { buildStatusApp } from './status-api.ts';
import { testKey } from '../../testkit/witness.ts';
import { REASONS } from '../../verifier/errors.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';

let dir: string;
let state: StateStore;
afterAll(async () => {
  await state?.close();
  if (dir) await removeDir(dir);
});

describe('witness status API', () => {
  it('serves its key and logs; unknown routes and store faults are problem+json with a code', async () => {
    dir = await makeTempDir('cookwala-wstatus-');
    state = await openStateStore(join(dir, 'state'));
    const k = testKey('status-w', 'witness');
    const seq = testKey('status-seq', 'sequencer');
    let broken = false;
    const app = buildStatusApp({
      state: {
        ...state,
        forks: async () => {
          if (broken) throw new Error('disk gone');
          return state.forks();
        },
      } as StateStore,
      logs: () => [{ log: 'status.example/l', sequencer: seq.keyRecord }],
      keyRecord: k.keyRecord,
      metrics: async () => '# none\n',
    });
    const wk = await app.inject({ method: 'GET', url: '/.well-known/cookwala.json' });
    expect(wk.json().keys[0].kid).toBe(k.keyRecord.kid);
    expect((await app.inject({ method: 'GET', url: '/v1/logs' })).json().logs[0].log).toBe('status.example/l');
    const nf = await app.inject({ method: 'GET', url: '/v1/nothing?x=1' });
    expect(nf.statusCode).toBe(404);
    expect(nf.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(nf.json()).toMatchObject({
      code: 'not_found',
      status: 404,
      type: 'urn:cookwala:reason:not_found',
      title: REASONS.not_found.meaning,
    });
    broken = true;
    const down = await app.inject({ method: 'GET', url: '/v1/forks' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ code: 'witness_unavailable', detail: 'disk gone' });
    await app.close();
  });
});
