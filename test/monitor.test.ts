// `cookwala monitor` following a live Cookwala log (docs/monitoring.md), all real child processes on
// 127.0.0.1: a sequencer (checkpoints every 100 ms), a witness over libp2p (its C2SP HTTP side
// serving the monitoring read), an executor simulating missions as the load (tools/soak-procs.ts),
// and the monitor, which reads the log through a proxy written here that can misbehave toward the
// monitor alone. On the honest log the monitor reports nothing but checkpoint_verified while it is
// SIGKILLed at random points: each restart resumes at exactly the size of its state file (never
// skips an entry, re-verifies at most the step it was in). Then, each within a few check
// intervals and with its seq: a checkpoint stripped of its cosignatures (quorum_lost), a payload
// whose device signature does not verify (entry_invalid, bad_signature, at that seq), a checkpoint
// of another tree at the verified size signed by the log's own key and shown to the monitor alone
// (fork_detected, with a ForkProof that `cookwala verify-fork` proves), and a stalled log (the
// witness killed: checkpoint_stale). The events table of monitor/events.ts is the one
// docs/monitoring.md lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { prepareSoakCluster, type Proc, type SoakCluster } from '../tools/soak-procs.ts';
import { spawnCookwala, type Child } from '../testkit/witness-procs.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { MONITOR_EVENTS, PROBLEMS } from '../monitor/events.ts';
import type { LogRecord } from '../platform/logger.ts';
import { loadDataDir } from '../sequencer/data-dir.ts';
import { buildCheckpoint } from '../verifier/documents/checkpoint.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import type { Signer } from '../verifier/signing/signature.ts';
import { runCookwala } from '../testkit/witness-procs.ts';

const LOG = 'monitor.example/missions/m-1';
const dirs = tempDirs('cookwala-mon-');
const procs: Proc[] = [];
const monitors: Child[] = [];
let cluster: SoakCluster;
let proxy: Server;
let proxyUrl = '';
let dir = '';
const mode = { strip: false, badPayloadFrom: 0, forge: false };
let signer: Signer;

type Rec = LogRecord & { seq?: number; entries?: number; code?: string };

beforeAll(async () => {
  dir = await dirs.make();
  cluster = await prepareSoakCluster(join(dir, 'cluster'), LOG, procs);
  await cluster.start('witness');
  await cluster.configureSequencer();
  await cluster.start('sequencer');
  await cluster.start('executor');
  signer = (await loadDataDir(cluster.dirs.sequencer)).signer;
  proxy = createServer((req, res) => {
    void (async () => {
      const up = await fetch(cluster.base + req.url, { headers: { accept: String(req.headers.accept ?? '*/*') } });
      let body = Buffer.from(await up.arrayBuffer());
      const path = decodeURIComponent((req.url ?? '').split('?')[0]);
      if (up.status === 200 && mode.forge && path === `/v1/logs/${LOG}/checkpoint`) {
        // The same sequencer key signs another tree at the size the monitor verified last: a fork
        // shown to this monitor alone (no witness ever saw it).
        const seq = await stateSize();
        const other = (n: number) => 'sha256:' + createHash('sha256').update(`forged ${n}`).digest('hex');
        body = Buffer.from(
          JSON.stringify(buildCheckpoint({ log: LOG, seq, head: other(1), root: other(2) }, signer, formatTime(Date.now()))),
        );
      }
      if (up.status === 200 && mode.strip && path === `/v1/logs/${LOG}/checkpoint`) {
        const cp = JSON.parse(body.toString());
        cp.signature = cp.signature.slice(0, 1);
        body = Buffer.from(JSON.stringify(cp));
      }
      const spoil = (e: { cookwalasig: string }) => {
        const sig = JSON.parse(Buffer.from(e.cookwalasig, 'base64url').toString());
        const raw = Buffer.from(sig.sig, 'base64url');
        raw[5] ^= 1;
        sig.sig = raw.toString('base64url');
        e.cookwalasig = Buffer.from(JSON.stringify(sig)).toString('base64url');
      };
      const ev = new RegExp(`^/v1/logs/${LOG.replace(/[./]/g, '\\$&')}/events/(\\d+)$`).exec(path);
      if (up.status === 200 && ev && mode.badPayloadFrom > 0 && Number(ev[1]) === mode.badPayloadFrom) {
        const e = JSON.parse(body.toString());
        spoil(e);
        body = Buffer.from(JSON.stringify(e));
      }
      // The same payload where the monitor reads it inline (GET …/entries?payloads=1).
      if (up.status === 200 && mode.badPayloadFrom > 0 && path === `/v1/logs/${LOG}/entries`) {
        const lines = body.toString().split('\n');
        for (let i = 0; i < lines.length; i++) {
          if (!lines[i].startsWith('{"kind":"Payload"')) continue;
          const p = JSON.parse(lines[i]);
          if (p.seq !== mode.badPayloadFrom) continue;
          spoil(p.event);
          lines[i] = JSON.stringify(p);
        }
        body = Buffer.from(lines.join('\n'));
      }
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/octet-stream' }).end(body);
    })().catch((e: unknown) => res.writeHead(502).end(String(e)));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const a = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  const policy = JSON.parse(await readFile(join(cluster.dirs.sequencer, 'policy.json'), 'utf8'));
  const info = JSON.parse(await readFile(join(cluster.dirs.witness, 'witness-info.json'), 'utf8'));
  policy.witnesses[0].url = cluster.witnessHttp;
  policy.witnesses[0].vkey = info.c2sp.vkey;
  await writeFile(join(dir, 'policy.json'), JSON.stringify(policy));
  await writeFile(
    join(dir, 'monitor.json'),
    JSON.stringify({
      kind: 'MonitorConfig',
      logs: [{ origin: LOG, kind: 'cookwala', url: proxyUrl, policy: 'policy.json' }],
      intervalMs: 200,
      staleAfterMs: 3000,
    }),
  );
}, 180_000);

afterAll(async () => {
  for (const m of monitors) if (m.proc.exitCode === null && m.proc.signalCode === null) m.proc.kill('SIGKILL');
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await Promise.all([...procs.map((p) => p.exited), ...monitors.map((m) => m.exited)]);
  await new Promise((r) => proxy?.close(r));
});

const stateFile = () => join(dir, 'state', `${createHash('sha256').update(LOG).digest('hex')}.json`);
const stateSize = async () => (JSON.parse(await readFile(stateFile(), 'utf8')) as { size: number }).size;

function startMonitor(): Child {
  const m = spawnCookwala(['monitor', '--config', join(dir, 'monitor.json'), '--state', join(dir, 'state'), '--listen', '127.0.0.1:0']);
  monitors.push(m);
  return m;
}
const problems = (m: Child) => m.logs.records.filter((r) => PROBLEMS.has(r.event as never));
const verified = (m: Child) => m.logs.events('checkpoint_verified') as Rec[];

describe('cookwala monitor on a live log under load', () => {
  it('reports nothing on the honest log and resumes exactly where its state was after SIGKILL', { timeout: 240_000 }, async () => {
    let m = startMonitor();
    await Promise.race([
      m.logs.next('listening', undefined, 60_000),
      m.exited.then((x) => {
        throw new Error(`the monitor exited (${String(x.code)}): ${m.err()}`);
      }),
    ]);
    for (let kill = 0; kill < 3; kill++) {
      const before = verified(m).length;
      await m.logs.next('checkpoint_verified', () => verified(m).length >= before + 2, 60_000);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300))); // a random point of a step
      m.proc.kill('SIGKILL');
      await m.exited;
      const vs = verified(m);
      // Within one run, each step starts where the one before ended.
      for (let i = 1; i < vs.length; i++) expect(vs[i].seq! - vs[i].entries!).toBe(vs[i - 1].seq);
      expect(problems(m)).toEqual([]);
      const s = await stateSize();
      expect(s).toBeGreaterThanOrEqual(vs[vs.length - 1].seq!);
      m = startMonitor();
      const first = (await m.logs.next('checkpoint_verified', undefined, 60_000)) as Rec;
      expect(first.seq! - first.entries!).toBe(s); // resumes at the committed size: nothing skipped, nothing redone
    }
    const h = await fetch(String((m.logs.events('listening')[0] as unknown as { url: string }).url) + '/healthz').then(
      (r) => r.json() as Promise<{ ok: boolean; logs: Array<{ size: number; problems: number }> }>,
    );
    expect(h.ok).toBe(true);
    expect(h.logs[0].size).toBeGreaterThan(0);
    const metrics = await fetch(String((m.logs.events('listening')[0] as unknown as { url: string }).url) + '/metrics').then((r) =>
      r.text(),
    );
    expect(metrics).toMatch(/cookwala_monitor_verified_size\{log="monitor\.example\/missions\/m-1"\} [1-9]/);

    // A checkpoint stripped of its cosignatures, served to the monitor alone.
    mode.strip = true;
    const q = (await m.logs.next('quorum_lost', undefined, 10_000)) as Rec;
    expect(q.seq).toBeGreaterThan(0);
    mode.strip = false;

    // A payload whose device signature does not verify, at a seq the monitor has not reached yet.
    const at = (await stateSize()) + 30;
    mode.badPayloadFrom = at;
    const bad = (await m.logs.next('entry_invalid', (r) => (r as Rec).code === 'bad_signature', 30_000)) as Rec;
    expect(bad.seq).toBe(at);
    mode.badPayloadFrom = 0;

    // A fork served to this monitor alone: a ForkProof that `cookwala verify-fork` accepts.
    mode.forge = true;
    const fk = (await m.logs.next('fork_detected', undefined, 10_000)) as Rec & { proof: string };
    mode.forge = false;
    expect(fk.seq).toBeGreaterThan(0);
    const vf = await runCookwala(['verify-fork', fk.proof, '--policy', join(dir, 'policy.json'), '--json']);
    expect(vf.code).toBe(0);
    expect(JSON.parse(vf.out)).toMatchObject({ proven: true, seq: fk.seq });

    // The log stalls: its witness is gone, nothing new is cosigned.
    const w = cluster.proc('witness')!;
    w.proc.kill('SIGKILL');
    await w.exited;
    const stale = (await m.logs.next('checkpoint_stale', undefined, 20_000)) as Rec;
    expect(stale.seq).toBeGreaterThan(0);
    // Nothing was reported but what was staged.
    for (const r of problems(m)) expect(['quorum_lost', 'entry_invalid', 'fork_detected', 'checkpoint_stale']).toContain(r.event);
  });

  it('docs/monitoring.md lists every monitor event', async () => {
    const doc = await readFile(join(import.meta.dirname, '..', 'docs', 'monitoring.md'), 'utf8');
    expect(Object.keys(MONITOR_EVENTS).filter((e) => !doc.includes(`\`${e}\``))).toEqual([]);
  });
});
