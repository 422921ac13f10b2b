// witness/cli.ts: `cookwala witness` (docs/design.md §12).
//   cookwala witness init --data DIR [--name N] [--c2sp-name NAME] [--key FILE] [--http-port P] [--listen MA]... [--bootstrap MA]...
//                         [--mldsa44 | --mldsa44-key SKEYFILE]   (a second, ML-DSA-44 cosigner key)
//   cookwala witness add-log --data DIR --log ORIGIN --sequencer-key KEYRECORD.json
//   cookwala witness [run] --data DIR [--bootstrap MA]...
// `init` prints the peer id, multiaddrs and KeyRecord and keeps them in DIR/witness-info.json
// (witness/wire/witness-info.ts), which outlives the process; `run` rewrites it with the addresses
// it listens on, and stops cleanly on SIGTERM/SIGINT (exit 0). Logs are admitted only by `add-log`
// (the operator's configuration). Each subcommand has its own --help, an unknown one gets "did you
// mean" (cli-usage.ts). Exit codes: 0 ok, 1 the witness cannot run (store locked, bad files), 2 the
// input or the environment is unusable, in one line naming the flag (usage, a DIR of another kind
// or missing, a busy port, a --bootstrap that is not a /p2p/ multiaddr). While it runs, everything it says is a JSON log
// line on stdout (platform/logger.ts; level from COOKWALA_LOG_LEVEL): `listening` with peerId,
// multiaddrs, the status URL and the KeyRecord, then `fork_detected`, `witness_error`, `shutdown`.

import { join } from 'node:path';
import { open, readFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError, readTextCapped } from '../platform/index.ts';
import { ProtocolError, type Result } from '../verifier/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { admitC2spLog, admitLog, type WitnessConfig } from './server/config.ts';
import { watchWitnessConfig, type ConfigWatch } from './server/config-watch.ts';
import { isValidKeyName, parseVerifierKey } from '../verifier/c2sp/note/index.ts';
import { importWitnessKey, MAX_KEY_FILE_BYTES, type ImportedKey } from './server/key-import.ts';
import { createWitnessCosigner } from './server/note-cosigner.ts';
import {
  ensureMldsaKey,
  initWitnessDir,
  loadWitnessDir,
  readJsonFile,
  saveWitnessConfig,
  writeFileDurable,
  WITNESS_FILES,
} from './server/data-dir.ts';
import { createMldsaCosigner } from './server/mldsa-cosigner.ts';
import { loadOrCreatePeerKey } from './wire/identity.ts';
import { openStateStore } from './server/state.ts';
import { createWitness, defaultWorkers } from './server/service.ts';
import { infoFromConfig } from './wire/witness-info.ts';
import { readPackageSoftware } from './server/data-dir.ts';
import {
  checkBootstrap,
  resolveBootstrap,
  describeStartFault,
  didYouMean,
  SUB_USAGE,
  SUBCOMMANDS,
  WITNESS_USAGE,
  type Subcommand,
} from './cli-usage.ts';
import { claimDataDir } from '../platform/index.ts';
import { createLogger } from '../platform/index.ts';

// The usage texts, per subcommand: cli-usage.ts.

const say = (s: string) => process.stdout.write(s + '\n');
const warn = (s: string) => process.stderr.write(s + '\n');

async function cmdInit(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      data: { type: 'string' },
      name: { type: 'string' },
      'c2sp-name': { type: 'string' },
      key: { type: 'string' },
      'http-port': { type: 'string' },
      listen: { type: 'string', multiple: true },
      bootstrap: { type: 'string', multiple: true },
      mldsa44: { type: 'boolean' },
      'mldsa44-key': { type: 'string' },
    },
    false,
  );
  if (!values.data) throw new UsageError('--data DIR is required');
  const c2spArg = values['c2sp-name'];
  if (c2spArg !== undefined && (!isValidKeyName(c2spArg) || c2spArg.length > 256))
    throw new UsageError('--c2sp-name is a signed-note key name: no spaces, no +, e.g. witness.example.org/w1');
  const imported = values.key === undefined ? undefined : await readKeyFile(values.key);
  if (imported && !imported.ok) return envFault(imported.line);
  const key = imported?.value;
  if (key?.name !== undefined && c2spArg !== undefined && key.name !== c2spArg)
    throw new UsageError(
      `--key ${values.key} is the C2SP key ${key.name}; --c2sp-name ${c2spArg} would make another vkey (leave --c2sp-name out, or give ${key.name})`,
    );
  const c2spName = c2spArg ?? key?.name;
  if (values.mldsa44 && values['mldsa44-key'] !== undefined)
    throw new UsageError('--mldsa44 (a new key) or --mldsa44-key FILE (import), not both');
  const port = values['http-port'] === undefined ? undefined : Number(values['http-port']);
  if (port !== undefined && (!Number.isSafeInteger(port) || port < 0 || port > 65535)) throw new UsageError('--http-port is a port number');
  const badBootstrap = checkBootstrap(values.bootstrap ?? []);
  if (badBootstrap) return envFault(badBootstrap);
  const claim = await claimDataDir(values.data, 'witness', { create: true });
  if (!claim.ok) return envFault(claim.reason);
  const created = await initWitnessDir(values.data, {
    name: values.name,
    c2spName,
    key,
    httpPort: port,
    listen: values.listen,
    bootstrap: values.bootstrap,
  });
  const peerKey = await loadOrCreatePeerKey(join(values.data, WITNESS_FILES.peerKey));
  if (values.mldsa44 || values['mldsa44-key'] !== undefined) {
    const loaded = await loadWitnessDir(values.data);
    const imported = values['mldsa44-key'] === undefined ? undefined : await readFile(values['mldsa44-key'], 'utf8');
    const r = await ensureMldsaKey(values.data, loaded.config, imported);
    if (r.created) created.push(WITNESS_FILES.mldsaKey);
  }
  const d = await loadWitnessDir(values.data);
  say(created.length ? `created ${created.join(', ')} in ${values.data}` : `${values.data} already initialised`);
  if (key && created.includes(WITNESS_FILES.key)) say(`imported the witness key from ${values.key} (${key.form})`);
  say(`witness "${d.config.name}": key ${d.keyRecord.kid}`);
  // The business card, kept (witness-info.ts): what `cookwala policy add-witness --from` reads.
  const { info, unknownPorts } = infoFromConfig(d.config, peerKey, d.keyRecord);
  // Its C2SP identity (docs/design.md §7a): the cosignature/v1 key name and vkey, for tlog-policy files.
  const cosigner = d.signer.alg === 'EdDSA' ? createWitnessCosigner(d.config.c2spName ?? d.config.name, d.signer) : undefined;
  const pq = d.mldsaSkey === undefined ? undefined : createMldsaCosigner(d.mldsaSkey);
  const mldsaVkey = pq?.ok ? pq.value.vkey : undefined;
  const card = cosigner ? { ...info, c2sp: { name: cosigner.name, vkey: cosigner.vkey, ...(mldsaVkey ? { mldsaVkey } : {}) } } : info;
  await writeFileDurable(join(values.data, WITNESS_FILES.info), JSON.stringify(card, null, 2) + '\n');
  say(`peer ${info.peerId}`);
  for (const a of info.multiaddrs) say(`multiaddr ${a}`);
  if (info.http) say(`http ${info.http}`);
  say(`keyRecord ${JSON.stringify(d.keyRecord)}`);
  if (cosigner) say(`c2sp ${cosigner.name} vkey ${cosigner.vkey}`);
  if (mldsaVkey && cosigner) say(`c2sp ${cosigner.name} mldsa44 vkey ${mldsaVkey}`);
  say(`kept in ${join(values.data, WITNESS_FILES.info)}${unknownPorts ? ' (a port 0 address is filled in when the witness runs)' : ''}`);
  return 0;
}

async function cmdAddLog(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      data: { type: 'string' },
      log: { type: 'string' },
      'sequencer-key': { type: 'string' },
      origin: { type: 'string' },
      vkey: { type: 'string' },
      'log-list': { type: 'string' },
    },
    false,
  );
  const c2sp = values.vkey !== undefined || values['log-list'] !== undefined;
  if (!values.data) throw new UsageError('--data DIR is required');
  if (!c2sp && (!values.log || !values['sequencer-key']))
    throw new UsageError(
      '--log and --sequencer-key (a Cookwala log), --origin and --vkey (a C2SP log) or --log-list (a logs/v0 list) are required',
    );
  const claimed = await claimDataDir(values.data, 'witness', { create: false, createWith: `cookwala witness init --data ${values.data}` });
  if (!claimed.ok) return envFault(claimed.reason);
  if (c2sp) return addC2spLog(values.data, { origin: values.origin ?? values.log, vkey: values.vkey, list: values['log-list'] });
  if (!values.log || !values['sequencer-key']) throw new UsageError('--log and --sequencer-key are required');
  const j = parseJson(await readFile(values['sequencer-key'], 'utf8'));
  if (!j.ok) throw new ProtocolError(j.code, `${values['sequencer-key']}: ${j.detail}`);
  // A file holding a WitnessPolicy or a well-known document also names the key: take it from there.
  const v = j.value as { kind?: string; sequencer?: unknown; keys?: unknown[] };
  const candidate =
    v && v.kind === 'WitnessPolicy'
      ? v.sequencer
      : v && Array.isArray(v.keys)
        ? v.keys.find((k) => (k as KeyRecord).role === 'sequencer')
        : v;
  const key = readDocument('KeyRecord', candidate) as Result<KeyRecord>;
  if (!key.ok) throw new ProtocolError(key.code, `${values['sequencer-key']}: ${key.detail}`);
  const d = await loadWitnessDir(values.data);
  const r = admitLog(d.config, { log: values.log, sequencer: key.value });
  if (!r.ok) throw ProtocolError.from(r);
  if (r.value.changed) await saveWitnessConfig(values.data, r.value.config);
  say(r.value.changed ? `admitted ${values.log} (sequencer key ${key.value.kid})` : `${values.log} already admitted with ${key.value.kid}`);
  return confirmRunning(values.data, values.log);
}

/**
 * After add-log: a witness running on DIR (its witness-info.json names its status API, and that
 * answers with our peer id) takes the log from witness.json at once; wait until /v1/logs lists
 * it, so a script may submit right after. 0 when it does (or no witness runs: it reads the file
 * when it starts), 1 when a running witness did not take it within CONFIRM_MS.
 */
async function confirmRunning(dir: string, origin: string): Promise<number> {
  const info = (await readJsonFile(join(dir, WITNESS_FILES.info)).catch(() => undefined)) as
    { http?: unknown; peerId?: unknown } | undefined;
  if (typeof info?.http !== 'string' || !/^http:\/\//.test(info.http)) return 0;
  const url = `${info.http.replace(/\/$/, '')}/v1/logs?log=${encodeURIComponent(origin)}`;
  const deadline = Date.now() + CONFIRM_MS;
  for (let attempt = 0; ; attempt++) {
    let body: { peerId?: unknown; logs?: Array<{ log?: unknown }> } | undefined;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      const j = res.ok ? parseJson(await readTextCapped(res, 1 << 20)) : undefined;
      body = j?.ok ? (j.value as typeof body) : undefined;
    } catch {
      body = undefined;
    }
    if (body === undefined && attempt === 0) {
      say(`no witness answers at ${info.http}: the log is cosigned once the witness starts`);
      return 0;
    }
    // Another process on that port (a witness of another DIR) is not ours to wait for.
    if (body !== undefined && body.peerId !== info.peerId) return 0;
    if (body?.logs?.some((l) => l.log === origin)) {
      say(`the running witness at ${info.http} cosigns ${origin} now`);
      return 0;
    }
    if (Date.now() >= deadline) {
      warn(
        `cookwala witness: the witness at ${info.http} has not taken ${origin} within ${CONFIRM_MS / 1000} s; it is admitted in witness.json and taken at the next start`,
      );
      return 1;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const CONFIRM_MS = 10_000;

/** add-log for C2SP (docs/design.md §7a): a log by origin + vkey (origin defaults to the vkey's name), or a logs/v0 list to follow. */
async function addC2spLog(dir: string, a: { origin?: string; vkey?: string; list?: string }): Promise<number> {
  const d = await loadWitnessDir(dir);
  if (a.list !== undefined) {
    if (a.vkey !== undefined) throw new UsageError('--log-list is given alone');
    if (a.list.length === 0 || a.list.length > 1024) throw new UsageError('--log-list is a file path or an http(s) URL');
    const lists = d.config.logLists ?? [];
    if (lists.includes(a.list)) {
      say(`already following ${a.list}`);
      return 0;
    }
    await saveWitnessConfig(dir, { ...d.config, logLists: [...lists, a.list] });
    say(`following log list ${a.list} (logs/v0; logs are added from it, never removed)`);
    return 0;
  }
  const k = parseVerifierKey(a.vkey ?? '');
  if (!k.ok) throw ProtocolError.from(k);
  const origin = a.origin ?? k.value.name;
  const r = admitC2spLog(d.config, { origin, vkey: a.vkey! });
  if (!r.ok) throw ProtocolError.from(r);
  if (r.value.changed) await saveWitnessConfig(dir, r.value.config);
  say(r.value.changed ? `admitted C2SP log ${origin} (vkey ${a.vkey})` : `${origin} already admitted with that vkey`);
  return confirmRunning(dir, origin);
}

async function cmdRun(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: 'string' }, bootstrap: { type: 'string', multiple: true } }, false);
  if (!values.data) throw new UsageError('--data DIR is required');
  const dir = values.data;
  const resolved = await resolveBootstrap(values.bootstrap ?? []);
  if (!resolved.ok) return envFault(resolved.line);
  const bootstrapArgs = resolved.addrs;
  const badBootstrap = checkBootstrap(bootstrapArgs);
  if (badBootstrap) return envFault(badBootstrap);
  const claimed = await claimDataDir(dir, 'witness', { create: false, createWith: `cookwala witness init --data ${dir}` });
  if (!claimed.ok) return envFault(claimed.reason);
  const d = await loadWitnessDir(dir);
  const configured = checkBootstrap(d.config.bootstrap, `bootstrap in ${join(dir, WITNESS_FILES.config)}:`);
  if (configured) return envFault(configured);
  // witness-info.json stays (witness-info.ts): it is rewritten once the witness listens.
  const infoPath = join(dir, WITNESS_FILES.info);
  const peerKey = await loadOrCreatePeerKey(join(dir, WITNESS_FILES.peerKey));
  const state = await openStateStore(join(dir, WITNESS_FILES.state));
  const logger = createLogger({ service: 'witness', level: process.env.COOKWALA_LOG_LEVEL }).child({ witness: d.config.name });
  const software = await readPackageSoftware();
  const witness = createWitness(
    { state, signer: d.signer, secretKey: d.secretKey, keyRecord: d.keyRecord, logger, mldsaSkey: d.mldsaSkey, software },
    {
      peerKey,
      listen: d.config.listen,
      bootstrap: [...d.config.bootstrap, ...bootstrapArgs],
      httpHost: d.config.httpHost,
      httpPort: d.config.httpPort,
      logs: d.config.logs,
      c2sp: {
        name: d.config.c2spName ?? d.config.name,
        logs: d.config.c2spLogs ?? [],
        logLists: d.config.logLists ?? [],
        publicUrl: d.config.publicUrl,
      },
      // Sequencer and note signatures are checked on workers, and our cosignatures signed on one
      // holding the witness key, when there are cores for them (defaultWorkers, docs/design.md §13).
      ...defaultWorkers(),
    },
  );
  let watcher: ConfigWatch | undefined;
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
      const line = describeStartFault(e, { listen: d.config.listen, httpPort: d.config.httpPort, dir });
      if (line) return envFault(line);
      warn(`cookwala witness: cannot start: ${(e as Error).message}`);
      return 1;
    }
    const following = [...d.config.logs.map((l) => l.log), ...(d.config.c2spLogs ?? []).map((l) => l.origin)];
    logger.info(
      {
        event: 'listening',
        peerId: info.peerId,
        multiaddrs: info.multiaddrs,
        http: info.http,
        keyRecord: d.keyRecord,
        c2sp: info.c2sp,
        logs: following,
        logLists: d.config.logLists ?? [],
      },
      `witness ${d.config.name} peer ${info.peerId} listening on ${info.multiaddrs[0] ?? '(no address)'}; following ${following.join(', ') || '(no logs: add one with `cookwala witness add-log`)'}`,
    );
    await writeFileDurable(infoPath, JSON.stringify(info, null, 2) + '\n');
    // Logs admitted while it runs (`witness add-log`) are taken from witness.json at once (config-watch.ts).
    const restartOnly = (c: WitnessConfig) =>
      (['listen', 'httpHost', 'httpPort', 'name', 'c2spName'] as const).filter((k) => JSON.stringify(c[k]) !== JSON.stringify(d.config[k]));
    watcher = watchWitnessConfig(dir, WITNESS_FILES.config, {
      onConfig: async (c) => {
        await witness.admitConfig({ logs: c.logs, c2spLogs: c.c2spLogs, logLists: c.logLists });
        const later = restartOnly(c);
        if (later.length > 0)
          logger.warn(
            { event: 'config_restart_needed', fields: later },
            `witness.json changed ${later.join(', ')}: that takes effect when the witness restarts`,
          );
      },
      onError: (detail) => logger.warn({ event: 'config_refused', detail }, detail),
    });
    await watcher.check();
    const sig = await stopped;
    logger.info({ event: 'shutdown', signal: sig }, `${sig}: stopping`);
  } finally {
    watcher?.close();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await witness.stop().catch((e) => logger.error({ event: 'service_error', err: e }, 'stop failed'));
    await state.close();
  }
  return 0;
}

/** `--key FILE`: an existing witness key in one of key-import.ts's forms, or the line that says why not. */
async function readKeyFile(path: string): Promise<{ ok: true; value: ImportedKey } | { ok: false; line: string }> {
  let bytes: Buffer;
  try {
    const h = await open(path, 'r');
    try {
      const buf = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
      const { bytesRead } = await h.read(buf, 0, buf.length, 0);
      bytes = buf.subarray(0, bytesRead);
    } finally {
      await h.close();
    }
  } catch (e) {
    return { ok: false, line: `--key ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  const r = importWitnessKey(bytes);
  bytes.fill(0);
  if (!r.ok) return { ok: false, line: `--key ${path}: ${r.code}: ${r.detail}` };
  return { ok: true, value: r.value };
}

/** One line for an environment fault (a busy port, a bad --bootstrap, a DIR of another kind): exit 2. */
function envFault(line: string): number {
  warn(`cookwala witness: ${line}`);
  return 2;
}

export async function run(argv: string[]): Promise<number> {
  const [first, ...after] = argv;
  const named = (SUBCOMMANDS as readonly string[]).includes(first ?? '') ? (first as Subcommand) : undefined;
  if (first !== undefined && !first.startsWith('-') && !named) {
    const guess = didYouMean(first, SUBCOMMANDS);
    warn(`cookwala witness: unknown subcommand '${first}'${guess ? `, did you mean ${guess}?` : ''}\n\n${WITNESS_USAGE}`);
    return 2;
  }
  const sub: Subcommand = named ?? 'run';
  const rest = named ? after : argv;
  // `witness --help` prints the overview; `witness SUB --help` that subcommand's.
  const usage = named ? SUB_USAGE[sub] : WITNESS_USAGE;
  return runCli(rest, usage, async () => {
    try {
      if (sub === 'init') return await cmdInit(rest);
      if (sub === 'add-log') return await cmdAddLog(rest);
      return await cmdRun(rest);
    } catch (e) {
      if (e instanceof ProtocolError) {
        warn(`cookwala witness: ${e.message}${e.code === 'store_locked' ? ' (another witness runs on this --data DIR)' : ''}`);
        return e.code === 'store_locked' ? 2 : 1;
      }
      throw e;
    }
  });
}
