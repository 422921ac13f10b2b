// bench/witness-scale.ts: the `witnessScale` section of bench/results.json (docs/design.md §12a, §13):
// ONE `cookwala witness` child process admitting 40,000 logs by configuration (quick: 4,000),
// the fake sequencers in another child (bench/witness-client.ts, persistent libp2p streams): every
// log gets its first contact (untimed), then one round of add-checkpoint requests spread over all
// of them (timed: witnessScale.addCheckpointPerSec, every cosignature after a synced LevelDB
// commit). A second round is cut by a SIGKILL of the witness after a random number of
// cosignatures; its state is then read directly: every one of the n logs is still known, and
// every cosignature received is covered by the stored seq (witnessScale.sigkill). Then the
// witness is started again on that state (witnessScale.startupSeconds: spawn -> `listening`), and
// its peak RSS (VmHWM over both runs), its RSS after the restart and the state's size on disk are
// reported. Last, logs/v0 admission at the same size (witnessScale.listAdmission): n more logs in a
// list file the config follows, read before the witness listens (first read, then a restart).
// Leaves out: a list fetched over HTTP (the same parse and admission after the read), add-checkpoint
// requests to the listed logs (the same path as the configured ones' C2SP side), and gossip.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { formatVerifierKey, SIG_ED25519 } from '../verifier/c2sp/note/index.ts';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { initWitnessDir, WITNESS_FILES } from '../witness/server/data-dir.ts';
import { readLogLines } from '../platform/logger.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { fakeLogs } from './witness-client.ts';
import { openStateStore } from '../witness/server/state.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STREAMS = 4;
const PREFIX = 'scale';
/** The origin of fake log i (bench/witness-client.ts fakeLogs names them so). */
const scaleOrigin = (i: number) => `bench.example.org/${PREFIX}-${i}`;
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

async function startWitness(dir: string): Promise<{ proc: ChildProcess; addr: string; startupSeconds: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, ['bin/cookwala.js', 'witness', 'run', '--data', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let done = false;
  const addr = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      if (done) return;
      out += d;
      const l = readLogLines(out).find((r) => r.event === 'listening');
      if (l) {
        done = true;
        out = '';
        resolve((l.multiaddrs as string[])[0]);
      }
    });
    proc.stderr!.on('data', (d) => (out = (out + d).slice(-4000)));
    proc.once('exit', (code) => !done && reject(new Error(`witness exited with ${code}: ${out.slice(-2000)}`)));
  });
  return { proc, addr, startupSeconds: (performance.now() - t0) / 1000 };
}

const stop = (p: ChildProcess) =>
  new Promise<void>((r) => {
    p.once('exit', () => r());
    p.kill('SIGTERM');
  });

async function memOf(pid: number): Promise<{ rssMB: number; hwmMB: number }> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rssMB: round(kb('VmRSS') / 1024, 1), hwmMB: round(kb('VmHWM') / 1024, 1) };
}

function rawEd25519Pub(): Uint8Array {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

/** VmHWM of a live process, read synchronously (the next moment it is SIGKILLed). */
function hwmNow(pid: number): number {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024, 1);
}

/**
 * After the SIGKILL: every log admitted and given first contact has a stored state (a witness
 * never forgets a log), and every cosignature received is covered (stored seq >= its seq: no
 * rollback of anything the witness signed).
 */
async function checkAfterKill(stateDir: string, n: number, cosigned: Map<string, number>) {
  const state = await openStateStore(stateDir);
  let missing = 0;
  let rolledBack = 0;
  const examples: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const origin = scaleOrigin(i);
      const st = await state.get(origin);
      const want = cosigned.get(origin);
      if (!st) {
        missing++;
        if (examples.length < 5) examples.push(`${origin}: no state`);
      } else if (want !== undefined && st.seq < want) {
        rolledBack++;
        if (examples.length < 5) examples.push(`${origin}: stored ${st.seq} < cosigned ${want}`);
      }
    }
  } finally {
    await state.close();
  }
  if (missing + rolledBack > 0)
    throw new Error(`witness state after SIGKILL: ${missing} logs missing, ${rolledBack} rolled back: ${examples.join('; ')}`);
  return { cosignedInKilledRound: cosigned.size, logsChecked: n, missing, rolledBack };
}

async function du(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true }))
    n += e.isDirectory() ? await du(join(dir, e.name)) : (await stat(join(dir, e.name))).size;
  return n;
}

type ClientRun = { ms: number; failures: number; codes: Record<string, { n: number; detail: string }>; requests: number };
type ClientLine = Partial<ClientRun> & { phase: string; round?: number; log?: string; seq?: number };

/** Two timed rounds: the first is the figure, the second is cut by a SIGKILL (onLine sees every line). */
function runClients(addr: string, logs: number, onLine: (m: ClientLine) => void): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './bin/polyfill.ts', 'bench/witness-client.ts', addr, String(logs), '2', String(STREAMS), PREFIX],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, COOKWALA_BENCH_REPORT: '1' } },
    );
    let buf = '';
    let done: ClientRun | undefined;
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, i)) as ClientLine;
        buf = buf.slice(i + 1);
        onLine(m);
        if (m.phase === 'done') done = { ms: m.ms!, failures: m.failures!, codes: m.codes ?? {}, requests: m.requests! };
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && done ? resolve(done) : reject(new Error(`witness-client exited ${code}`))));
  });
}

export async function run(ctx: { quick: boolean; logs?: number }): Promise<Record<string, unknown>> {
  const n = ctx.logs ?? (ctx.quick ? 4000 : 40_000);
  const load = loadavg().map((x) => round(x, 2));
  const dir = await makeTempDir('cookwala-bench-witness-scale-');
  try {
    await initWitnessDir(dir, { name: 'scale' });
    const cfgPath = join(dir, WITNESS_FILES.config);
    const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
    cfg.logs = fakeLogs(PREFIX, n).map((l) => ({ log: l.origin, sequencer: l.keyRecord }));
    await writeFile(cfgPath, JSON.stringify(cfg) + '\n');
    const configMB = round((await stat(cfgPath)).size / 2 ** 20, 1);

    const first = await startWitness(dir);
    // Round 0 is the figure; in round 1 the witness is SIGKILLed after `killAfter` cosignatures,
    // then its state is read: every cosignature it gave must be covered by what it stored.
    const killAfter = Math.floor(n / 4 + ((Date.now() % 1000) / 1000) * (n / 2));
    const cosigned = new Map<string, number>();
    let figure: { ms: number; failures: number; requests: number } | undefined;
    let m1 = { rssMB: 0, hwmMB: 0 };
    let killed = false;
    const exited = new Promise<void>((r) => first.proc.once('exit', () => r()));
    const c = await runClients(first.addr, n, (m) => {
      if (m.phase === 'round' && m.round === 0) figure = { ms: m.ms!, failures: m.failures!, requests: m.requests! };
      if (m.phase !== 'cosigned' || killed) return;
      cosigned.set(m.log!, Math.max(cosigned.get(m.log!) ?? 0, m.seq!));
      if (cosigned.size >= killAfter) {
        killed = true;
        m1 = { rssMB: 0, hwmMB: hwmNow(first.proc.pid!) };
        first.proc.kill('SIGKILL');
      }
    });
    if (!killed) first.proc.kill('SIGKILL');
    await exited;
    if (!figure) throw new Error('the clients reported no first round');
    const kill = await checkAfterKill(join(dir, WITNESS_FILES.state), n, cosigned);
    const stateBytes = await du(join(dir, WITNESS_FILES.state));

    const again = await startWitness(dir);
    const m2 = await memOf(again.proc.pid!);
    await stop(again.proc);

    // logs/v0 admission at the same size: a list of n more C2SP logs (fresh Ed25519 vkeys) in the
    // config; the witness reads it before it listens, stores each admission (synced) and admits
    // it, so spawn -> `listening` is the whole admission of the list.
    const listPath = join(dir, 'logs-v0.txt');
    const lines = ['logs/v0'];
    for (let i = 0; i < n; i++)
      lines.push(`vkey ${formatVerifierKey(`bench.example.org/listed-${i}`, SIG_ED25519, rawEd25519Pub())}`, 'qpd 24', 'contact bench');
    await writeFile(listPath, lines.join('\n') + '\n');
    const listBytes = (await stat(listPath)).size;
    await writeFile(cfgPath, JSON.stringify({ ...JSON.parse(await readFile(cfgPath, 'utf8')), logLists: [listPath] }) + '\n');
    const listed = await startWitness(dir);
    const m3 = await memOf(listed.proc.pid!);
    await stop(listed.proc);
    const again2 = await startWitness(dir);
    const m4 = await memOf(again2.proc.pid!);
    await stop(again2.proc);
    const listAdmission = {
      listedLogs: n,
      listMB: round(listBytes / 2 ** 20, 1),
      firstReadStartupSeconds: round(listed.startupSeconds, 2),
      rssMB: m3.rssMB,
      restartStartupSeconds: round(again2.startupSeconds, 2),
      restartRssMB: m4.rssMB,
      totalLogs: 2 * n,
    };
    const perSec = Math.round((figure.requests / figure.ms) * 1000);
    return {
      logs: n,
      addCheckpointPerSec: perSec,
      requests: figure.requests,
      failures: figure.failures,
      // by code over both rounds: the second one is cut by the SIGKILL (its requests fail "stream closed")
      failureCodesAllRounds: c.codes,
      sigkill: kill,
      listAdmission,
      streams: STREAMS,
      peakRssMB: Math.max(m1.hwmMB, m2.hwmMB),
      peakRssWithListMB: Math.max(m3.hwmMB, m4.hwmMB),
      rssAfterRestartMB: m2.rssMB,
      rssPerLogKB: round((m2.rssMB * 1024) / n, 2),
      stateMB: round(stateBytes / 2 ** 20, 1),
      stateBytesPerLog: Math.round(stateBytes / n),
      configMB,
      firstStartupSeconds: round(first.startupSeconds, 2),
      startupSeconds: round(again.startupSeconds, 2),
      loadAvgAtStart: load,
      loadAvgAtEnd: loadavg().map((x) => round(x, 2)),
    };
  } finally {
    await removeDir(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const logs = process.argv.find((a) => a.startsWith('--logs='))?.slice(7);
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick'), logs: logs ? Number(logs) : undefined }), null, 2));
}
