// End to end, in separate processes over TCP on 127.0.0.1: one `cookwala sequencer` and three
// `cookwala witness` processes (policy quorum 2). Events flow; checkpoints reach the quorum and
// verify offline with the policy (and the exported bundle with `cookwala verify`). Faults: a
// witness down does not stop publication while the quorum holds; with the quorum lost nothing is
// published and the sequencer says why in its log and /metrics; witnesses back, publication
// resumes; a sequencer SIGKILLed and restarted mid-run resynchronises through `conflict`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir } from '../sequencer/data-dir.ts';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig } from '../witness/server/data-dir.ts';
import { admitLog } from '../witness/server/config.ts';
import { spawnCookwala, startWitnessProcess, stopChild, runCookwala, type Child } from '../testkit/witness-procs.ts';
import { waitFor } from '../testkit/wait.ts';
import { verifyCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { WitnessInfo } from '../witness/server/service.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { freePort } from '../testkit/net.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const ORIGIN = 'e2e.example.org/missions/m-7';
const enc = encodeURIComponent(ORIGIN);
let root: string;
let seqDir: string;
const wDirs: string[] = [];
const wAddrs: string[] = [];
const witnesses: Array<(Child & { info: WitnessInfo }) | undefined> = [];
let sequencer: Child;
let url: string;
let token: string;
let policy: WitnessPolicy;
const device = deviceKey(71);
const stream = eventStream(device, { signedAt: new Date().toISOString() });
let subjectRun = 0;

async function startSequencer(): Promise<void> {
  sequencer = spawnCookwala(['sequencer', '--data', seqDir, '--port', '0']);
  const exited = sequencer.exited.then(() => Promise.reject(new Error(`sequencer exited: ${sequencer.err()}`)));
  exited.catch(() => undefined);
  const listening = await Promise.race([sequencer.logs.next('listening', undefined, 60_000), exited]);
  url = listening.url as string;
}

async function startWitness(i: number): Promise<void> {
  witnesses[i] = await startWitnessProcess(wDirs[i], i === 0 ? [] : ['--bootstrap', wAddrs[0]]);
}

async function post(n: number): Promise<number> {
  let last = 0;
  const subject = `exec-${++subjectRun}`;
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${url}/v1/logs/${enc}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `e2e-${subjectRun}-${i}` },
      body: JSON.stringify(stream.next(subject)),
    });
    expect(r.status).toBe(201);
    last = ((await r.json()) as { seq: number }).seq;
  }
  return last;
}

async function published(): Promise<Checkpoint | undefined> {
  const r = await fetch(`${url}/v1/logs/${enc}/checkpoint`);
  return r.status === 200 ? ((await r.json()) as Checkpoint) : undefined;
}

const publishedAtLeast = (seq: number, timeoutMs = 20_000) =>
  waitFor(
    async () => {
      const cp = await published();
      return cp && cp.seq >= seq ? cp : undefined;
    },
    { timeoutMs, what: `a published checkpoint at seq >= ${seq}` },
  );

async function metric(base: string, name: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .join('\n');
}

beforeAll(async () => {
  root = await makeTempDir('cookwala-e2e-');
  seqDir = join(root, 'sequencer');
  await initDataDir({ dir: seqDir, logs: [ORIGIN], mode: 'hash_only' });
  token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim();
  const seqKey = JSON.parse(await readFile(join(seqDir, 'sequencer.keyrecord.json'), 'utf8')) as KeyRecord;
  const wKeys: KeyRecord[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = join(root, `w${i}`);
    wDirs.push(dir);
    const port = await freePort();
    await initWitnessDir(dir, { name: `w${i}`, listen: [`/ip4/127.0.0.1/tcp/${port}`] });
    const d = await loadWitnessDir(dir);
    const a = admitLog(d.config, { log: ORIGIN, sequencer: seqKey });
    if (!a.ok) throw new Error(a.detail);
    await saveWitnessConfig(dir, a.value.config);
    wKeys.push(d.keyRecord);
  }
  // Witness 0 first: the others bootstrap from it (addresses are the configured ports).
  await startWitness(0);
  wAddrs.push(witnesses[0]!.info.multiaddrs[0]);
  await Promise.all([startWitness(1), startWitness(2)]);
  for (const i of [1, 2]) wAddrs.push(witnesses[i]!.info.multiaddrs[0]);
  const p = readWitnessPolicy({ kind: 'WitnessPolicy', log: ORIGIN, sequencer: seqKey, witnesses: wKeys, quorum: 2 });
  if (!p.ok) throw new Error(p.detail);
  policy = p.value;
  await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy, null, 2));
  const cfg = JSON.parse(await readFile(join(seqDir, 'config.json'), 'utf8'));
  await writeFile(join(seqDir, 'config.json'), JSON.stringify({ ...cfg, checkpointIntervalMs: 200, witnessPeers: wAddrs }, null, 2));
  await startSequencer();
  const r = await fetch(`${url}/v1/logs/${enc}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(device.record),
  });
  expect([200, 201]).toContain(r.status);
}, 120_000);

afterAll(async () => {
  if (sequencer) await stopChild(sequencer, 'SIGKILL');
  for (const w of witnesses) if (w) await stopChild(w, 'SIGKILL');
  await removeDir(root);
});

describe('sequencer + three witnesses over libp2p', () => {
  it('events flow and checkpoints reach the quorum; they and the bundle verify offline with the policy', async () => {
    const head = await post(12);
    const cp = await publishedAtLeast(head);
    const v = verifyCheckpoint(cp, policy);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.value.witnesses.length).toBeGreaterThanOrEqual(2);
    // Every witness cosigned (late ones are kept) and follows the log at the head.
    for (const w of witnesses) {
      const logs = await waitFor(
        async () => {
          const j = (await (await fetch(`${w!.info.http}/v1/logs`)).json()) as { logs: Array<{ seq: number | null }> };
          return j.logs[0]?.seq !== null && j.logs[0].seq! >= head ? j : undefined;
        },
        { timeoutMs: 20_000, what: 'every witness at the head' },
      );
      expect(logs.logs[0].seq).toBeGreaterThanOrEqual(head);
    }
    // Cosigned checkpoints travel on gossip (from the sequencer and from the witnesses).
    await waitFor(
      async () =>
        (await metric(witnesses[2]!.info.http!, 'cookwala_witness_gossip_total{topic="/cookwala/checkpoints/1",verdict="accept"}'))
          ? true
          : undefined,
      { timeoutMs: 20_000, what: 'checkpoint gossip' },
    );
    // The exported bundle verifies offline with the same policy.
    const bundle = await (await fetch(`${url}/v1/logs/${enc}/bundle`)).text();
    await writeFile(join(root, 'bundle.ndjson'), bundle);
    const verdict = await runCookwala(['verify', join(root, 'bundle.ndjson'), '--policy', join(seqDir, 'policy.json')]);
    expect(verdict.code, verdict.out + verdict.err).toBe(0);
  });

  it('a witness down does not stop publication while the quorum holds', async () => {
    await stopChild(witnesses[2]!, 'SIGTERM');
    const head = await post(5);
    const cp = await publishedAtLeast(head);
    const v = verifyCheckpoint(cp, policy);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.value.witnesses).not.toContain(policy.witnesses[2].kid);
  });

  it('quorum lost: nothing is published and the sequencer says why; witnesses back: it resumes', async () => {
    await stopChild(witnesses[1]!, 'SIGKILL');
    const earlier = [...sequencer.logs.records];
    const fresh = (r: object) => !earlier.includes(r as never);
    const before = (await published())!.seq;
    const head = await post(4);
    // One JSON log line on the sequencer's stdout says why, with the log it is about; the publisher
    // sets the gauge just before it writes that line, so the line is the event to wait on.
    const lost = await sequencer.logs.next('quorum_lost', fresh, 30_000);
    expect(lost).toMatchObject({
      level: 'warn',
      service: 'sequencer',
      log: ORIGIN,
      quorum: 2,
      reason: expect.stringMatching(/^seq \d+: 1 cosignature \(quorum 2\): /),
    });
    expect(await metric(url, 'cookwala_quorum_missing')).toMatch(/ 1$/m);
    expect((await published())!.seq).toBe(before);
    await Promise.all([startWitness(1), startWitness(2)]);
    await publishedAtLeast(head, 30_000);
    expect(await metric(url, 'cookwala_quorum_missing')).toMatch(/ 0$/m);
    expect(await sequencer.logs.next('quorum_restored', fresh, 30_000)).toMatchObject({ level: 'info', log: ORIGIN });
    expect([
      sequencer.logs.events('quorum_lost').filter(fresh).length,
      sequencer.logs.events('quorum_restored').filter(fresh).length,
    ]).toEqual([1, 1]);
  });

  it('a sequencer SIGKILLed mid-run and restarted resynchronises through conflict', async () => {
    await post(3);
    await stopChild(sequencer, 'SIGKILL');
    const conflictsBefore = await metric(witnesses[0]!.info.http!, 'cookwala_witness_requests_total{code="conflict"}');
    await startSequencer();
    const head = await post(4);
    const cp = await publishedAtLeast(head, 30_000);
    expect(verifyCheckpoint(cp, policy).ok).toBe(true);
    // The restarted sequencer did not know the witnesses' state: it asked from 0 and was told.
    const conflictsAfter = await metric(witnesses[0]!.info.http!, 'cookwala_witness_requests_total{code="conflict"}');
    expect(conflictsAfter).not.toBe(conflictsBefore);
  });
});
