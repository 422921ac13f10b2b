// A witness policy reload while the witnesses are being asked (docs/operators.md, "Witnessing"):
// real processes on 127.0.0.1, a `cookwala sequencer` witnessed by w1 (quorum 1) with events
// flowing (each resent unchanged on a 503, as a device does), then `cookwala policy add-witness` replaces its policy.json and config.json with w2
// added at quorum 2 while it runs. The sequencer re-opens on the same port (`policy_reloaded`, a
// `witnessing` line naming both peers and quorum 2), the next checkpoint is cosigned by both
// (`cookwala checkpoint --wait` names them) and the exported bundle verifies with the new policy;
// the sequencer never logs `witness_error` or `quorum_lost` about its own log through the reload,
// and nothing at error level.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runCookwala, spawnCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { readLogLines } from '../platform/logger.ts';
import { waitFor } from '../testkit/wait.ts';

const LOG = 'reload.example/missions/m-1';
let root: string;
const children: Child[] = [];
beforeAll(async () => {
  root = await makeTempDir('cookwala-reload-probe-');
});
afterAll(async () => {
  for (const c of children) await stopChild(c, 'SIGKILL');
  await removeDir(root);
});

async function ok(args: string[]): Promise<string> {
  const r = await runCookwala(args);
  expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
  return r.out;
}

it('add-witness while the sequencer runs: re-opened, the new witness counted, no witness_error or quorum_lost', async () => {
  const seq = join(root, 'seq');
  const [w1, w2] = [join(root, 'w1'), join(root, 'w2')];
  for (const w of [w1, w2]) await ok(['witness', 'init', '--data', w, '--http-port', '0']);
  await ok(['init', '--data', seq, '--log', LOG]);
  const witnesses = [];
  for (const w of [w1, w2]) {
    const c = await startWitnessProcess(w);
    children.push(c);
    witnesses.push(c);
    await ok(['witness', 'add-log', '--data', w, '--log', LOG, '--sequencer-key', join(seq, 'sequencer.keyrecord.json')]);
    await c.logs.next('log_admitted', undefined, 60_000);
  }
  await ok(['policy', 'add-witness', '--data', seq, '--from', join(w1, 'witness-info.json')]);

  const s = spawnCookwala(['sequencer', '--data', seq, '--port', '0']);
  children.push(s);
  const url = (await s.logs.next('listening', undefined, 60_000)).url as string;
  expect((await s.logs.next('witnessing', undefined, 60_000)).quorum).toBe(1);

  const dev = deviceKey(7);
  const token = (await readFile(join(seq, 'operator.token'), 'utf8')).trim();
  const reg = await fetch(`${url}${logPath(LOG, '/keys')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(dev.record),
  });
  expect(reg.status, await reg.text()).toBe(201);
  const events = eventStream(dev);
  let posted = 0;
  /** One event, resent unchanged (same Idempotency-Key) on a 503, as a device's outbox does: the reload closes the old app. */
  const post = async () => {
    const ce = events.next('exec-1');
    const key = `reload-${posted}`;
    for (let attempt = 0; ; attempt++) {
      const r = await fetch(`${url}${logPath(LOG, '/events')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': key },
        body: JSON.stringify(ce),
      }).catch(() => undefined); // a connection closed by the old app: resend
      const text = (await r?.text()) ?? '';
      if (r?.status === 201 || r?.status === 200) break;
      if ((r !== undefined && r.status !== 503) || attempt >= 200) throw new Error(`post ${key}: ${r?.status} ${text}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    posted++;
  };
  await post();
  const policy = join(seq, 'policy.json');
  const before = await ok(['checkpoint', '--url', url, '--log', LOG, '--policy', policy, '--wait', '60s']);
  expect(before).toMatch(/1 cosignature \(quorum 1 of 1 witnesses\): met/);

  // Events keep flowing while the policy file is replaced under the running sequencer.
  let flowing = true;
  let loadError: unknown;
  const load = (async () => {
    while (flowing) await post();
  })().catch((e: unknown) => void (loadError = e));
  const reloaded = s.logs.next('policy_reloaded', undefined, 60_000);
  const witnessing = s.logs.next('witnessing', (r) => r.quorum === 2, 60_000);
  await ok(['policy', 'add-witness', '--data', seq, '--from', join(w2, 'witness-info.json'), '--quorum', '2']);
  expect((await reloaded).url).toBe(url);
  const w = await witnessing;
  expect(w.witnesses).toHaveLength(2);
  const firstAfter = posted;
  await waitFor(
    () => {
      if (loadError) throw loadError;
      return posted >= firstAfter + 5 || undefined;
    },
    { what: 'five events posted after the reload', intervalMs: 20 },
  );
  flowing = false;
  await load;
  expect(loadError).toBeUndefined();

  const after = await ok(['checkpoint', '--url', url, '--log', LOG, '--policy', policy, '--wait', '60s']);
  expect(after).toMatch(/2 cosignatures \(quorum 2 of 2 witnesses\): met/);
  const bundle = join(root, 'bundle.ndjson');
  await ok(['export', '--url', url, '--log', LOG, '--out', bundle]);
  await ok(['verify', bundle, '--policy', policy]);

  const exit = await stopChild(s);
  expect(exit.code, s.err()).toBe(0);
  const lines = readLogLines(s.out());
  expect(lines.filter((r) => r.event === 'witness_error' || r.event === 'quorum_lost').map((r) => `${r.event}: ${r.msg}`)).toEqual([]);
  expect(lines.filter((r) => r.level === 'error' || r.level === 'fatal').map((r) => `${r.event}: ${r.msg}`)).toEqual([]);
}, 240_000);
