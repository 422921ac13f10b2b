// witness/cli.ts: `cookwala witness` (DESIGN §12, issue 4).
//   cookwala witness init --data DIR [--name N] [--http-port P] [--listen MA]... [--bootstrap MA]...
//   cookwala witness add-log --data DIR --log ORIGIN --sequencer-key KEYRECORD.json
//   cookwala witness [run] --data DIR [--bootstrap MA]...
// `run` prints its multiaddrs (with /p2p/<peerId>), its KeyRecord and HTTP URL, writes
// DIR/witness-info.json for scripts, and stops cleanly on SIGTERM/SIGINT (exit 0). Logs are
// admitted only by `add-log` (the operator's configuration). Exit codes: 0 ok, 1 the witness
// cannot run (store locked, bad files), 2 usage.

import { join } from 'node:path';
import { readFile, rm } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/args.ts';
import { ProtocolError, type Result } from '../verifier/errors.ts';
import { parseJson, readDocument } from '../verifier/documents/read.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import { admitLog } from './server/config.ts';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig, writeFileDurable, WITNESS_FILES } from './server/data-dir.ts';
import { loadOrCreatePeerKey } from './wire/identity.ts';
import { openStateStore } from './server/state.ts';
import { createWitness } from './server/service.ts';

const USAGE = `usage:
  cookwala witness init --data DIR [--name N] [--http-port P] [--listen MULTIADDR]... [--bootstrap MULTIADDR]...
  cookwala witness add-log --data DIR --log ORIGIN --sequencer-key KEYRECORD.json
  cookwala witness [run] --data DIR [--bootstrap MULTIADDR]...

init      create the witness key (witness.key.json, 0600), its KeyRecord, a libp2p identity and
          witness.json (idempotent; never replaces a key)
add-log   admit a log: only checkpoints signed by this sequencer key are cosigned
run       start the witness: libp2p (/cookwala/witness/1.0.0, gossip) and the status API`;

const say = (s: string) => process.stdout.write(s + '\n');
const warn = (s: string) => process.stderr.write(s + '\n');

async function cmdInit(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    data: { type: 'string' },
    name: { type: 'string' },
    'http-port': { type: 'string' },
    listen: { type: 'string', multiple: true },
    bootstrap: { type: 'string', multiple: true },
  }, false);
  if (!values.data) throw new UsageError('--data DIR is required');
  const port = values['http-port'] === undefined ? undefined : Number(values['http-port']);
  if (port !== undefined && (!Number.isSafeInteger(port) || port < 0 || port > 65535)) throw new UsageError('--http-port is a port number');
  const created = await initWitnessDir(values.data, { name: values.name, httpPort: port, listen: values.listen, bootstrap: values.bootstrap });
  await loadOrCreatePeerKey(join(values.data, WITNESS_FILES.peerKey));
  const d = await loadWitnessDir(values.data);
  say(created.length ? `created ${created.join(', ')} in ${values.data}` : `${values.data} already initialised`);
  say(`witness "${d.config.name}": key ${d.keyRecord.kid}`);
  return 0;
}

async function cmdAddLog(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: 'string' }, log: { type: 'string' }, 'sequencer-key': { type: 'string' } }, false);
  if (!values.data || !values.log || !values['sequencer-key']) throw new UsageError('--data, --log and --sequencer-key are required');
  const j = parseJson(await readFile(values['sequencer-key'], 'utf8'));
  if (!j.ok) throw new ProtocolError(j.code, `${values['sequencer-key']}: ${j.detail}`);
  // A file holding a WitnessPolicy or a well-known document also names the key: take it from there.
  const v = j.value as { kind?: string; sequencer?: unknown; keys?: unknown[] };
  const candidate = v && v.kind === 'WitnessPolicy' ? v.sequencer : v && Array.isArray(v.keys) ? v.keys.find((k) => (k as KeyRecord).role === 'sequencer') : v;
  const key = readDocument('KeyRecord', candidate) as Result<KeyRecord>;
  if (!key.ok) throw new ProtocolError(key.code, `${values['sequencer-key']}: ${key.detail}`);
  const d = await loadWitnessDir(values.data);
  const r = admitLog(d.config, { log: values.log, sequencer: key.value });
  if (!r.ok) throw ProtocolError.from(r);
  if (r.value.changed) await saveWitnessConfig(values.data, r.value.config);
  say(r.value.changed ? `admitted ${values.log} (sequencer key ${key.value.kid})` : `${values.log} already admitted with ${key.value.kid}`);
  return 0;
}

async function cmdRun(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: 'string' }, bootstrap: { type: 'string', multiple: true } }, false);
  if (!values.data) throw new UsageError('--data DIR is required');
  const dir = values.data;
  const d = await loadWitnessDir(dir);
  const infoPath = join(dir, WITNESS_FILES.info);
  await rm(infoPath, { force: true });
  const peerKey = await loadOrCreatePeerKey(join(dir, WITNESS_FILES.peerKey));
  const state = await openStateStore(join(dir, WITNESS_FILES.state));
  const log = (line: string) => warn(`${new Date().toISOString()} witness ${d.config.name}: ${line}`);
  const witness = createWitness(
    { state, signer: d.signer, keyRecord: d.keyRecord, log },
    {
      peerKey,
      listen: d.config.listen,
      bootstrap: [...d.config.bootstrap, ...(values.bootstrap ?? [])],
      httpHost: d.config.httpHost,
      httpPort: d.config.httpPort,
      logs: d.config.logs,
    },
  );
  let stop!: (sig: string) => void;
  const stopped = new Promise<string>((r) => (stop = r));
  const onSignal = (s: string) => stop(s);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    let info;
    try {
      info = await witness.start();
    } catch (e) {
      warn(`cookwala witness: cannot start: ${(e as Error).message}`);
      return 1;
    }
    say(`witness ${d.config.name} peer ${info.peerId}`);
    for (const a of info.multiaddrs) say(`listening ${a}`);
    if (info.http) say(`http ${info.http}`);
    say(`keyRecord ${JSON.stringify(d.keyRecord)}`);
    say(`following ${d.config.logs.map((l) => l.log).join(', ') || '(no logs: add one with `cookwala witness add-log`)'}`);
    await writeFileDurable(infoPath, JSON.stringify(info, null, 2) + '\n');
    const sig = await stopped;
    log(`${sig}: stopping`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await witness.stop().catch((e) => warn(`stop: ${(e as Error).message}`));
    await state.close();
    await rm(infoPath, { force: true });
  }
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const [sub, ...rest] = argv;
    try {
      if (sub === 'init') return await cmdInit(rest);
      if (sub === 'add-log') return await cmdAddLog(rest);
      if (sub === 'run') return await cmdRun(rest);
      return await cmdRun(argv);
    } catch (e) {
      if (e instanceof ProtocolError) {
        warn(`cookwala witness: ${e.message}`);
        return 1;
      }
      throw e;
    }
  });
}
