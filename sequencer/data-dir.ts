// sequencer/data-dir.ts: the sequencer's data directory (docs/design.md §12, §12a): `cookwala init`
// creates it and `cookwala sequencer` loads it.
//   DIR/config.json               SequencerConfig (config.ts)
//   DIR/sequencer.key.json        {"alg":"EdDSA","kid":…,"secretKey":…}  (mode 0600)
//   DIR/sequencer.keyrecord.json  the sequencer's public KeyRecord, self-signed at creation
//   DIR/operator.token            32 random bytes, base64url              (mode 0600)
//   DIR/sequencer.mldsa44.skey    optional ML-DSA-44 log key (mldsa-key.ts)  (mode 0600)
//   DIR/policy.json               WitnessPolicy {kind, log, sequencer, witnesses:[], quorum:0}
//   DIR/logs/<encodeURIComponent(origin)>/   one LevelDB per log, its signed descriptor inside
//   DIR/device-keys/<encodeURIComponent(origin)>.ndjson   registered device KeyRecords
// Init is idempotent and never overwrites a key or a token: secrets are written to a temp file,
// fsync'd, then hard-linked into place (link fails if the name exists), so two racing inits
// cannot both win and a crash never leaves half a key. Other files are replaced atomically
// (write, fsync, rename, fsync the folder). Left out: key rotation (a new key is a new log).

import { mkdir } from 'node:fs/promises';
import { DEFAULT_DIRS } from '../platform/index.ts';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../verifier/index.ts';
import { createSigner, generateSecretKey, keyRecordOf, signDocument, type SecretKey, type Signer } from '../verifier/signing/index.ts';
import { formatTime, toBase64url } from '../verifier/encoding/index.ts';
import { sha256 } from '../verifier/crypto/index.ts';
import { buildLogDescriptor, type LogMldsaSigner } from '../verifier/documents/index.ts';
import { ensureMldsaKey, readMldsaKey } from './mldsa-key.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import { readJsonIfExists, readTextIfExists, writeFileDurable, writeFileOnce } from '../platform/index.ts';

export { writeFileDurable };
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { JsonObject } from '../verifier/signing/index.ts';
import { openLogStore, type FaultHooks, type LogStore, type OpenOptions } from '../logstore/index.ts';
import { DEFAULT_LEASE_MS, openPostgresLogStore } from '../logstore/postgres/index.ts';
import type { StoreBackend } from './store-backend.ts';
import {
  DATA_FILES,
  DEFAULT_CONFIG,
  DEFAULT_LOG,
  DEFAULT_MODE,
  logDirName,
  readConfig,
  timeBoundsOf,
  type LogConfig,
  type SequencerConfig,
} from './config.ts';
import { boundsForPrecision, DEFAULT_TIME_BOUNDS, type TimeBounds } from '../verifier/documents/index.ts';

/** The owner named in the sequencer's KeyRecord; its own events use `cookwala:sequencer/<log>`. */
export const SEQUENCER_OWNER = 'cookwala:sequencer';

export interface DataDir {
  dir: string;
  config: SequencerConfig;
  signer: Signer;
  /** The sequencer's self-signed KeyRecord (what /.well-known/cookwala.json serves). */
  keyRecord: KeyRecord;
  token: string;
  /** The witness policy named by config.policy, when the file exists. */
  policy?: WitnessPolicy;
  /** The log's ML-DSA-44 signer, when DIR holds sequencer.mldsa44.skey (mldsa-key.ts). */
  mldsa?: LogMldsaSigner;
}

export interface InitOptions {
  dir?: string;
  /** Create the logs in this PostgreSQL database instead of LevelDB under DIR/logs. */
  store?: StoreBackend;
  logs?: string[];
  mode?: LogConfig['mode'];
  port?: number;
  host?: string;
  /** The time window of logs created from now on (config.json keeps it). */
  maxClockSkewMs?: number;
  maxDeliveryDelayMs?: number;
  now?: () => number;
  /** Give the sequencer an ML-DSA-44 log key: 'new' (a fresh seed) or an skey's text (import). */
  mldsa44?: 'new' | { skey: string };
}

/** `seq-` + the first 8 base64url characters of SHA-256(public key): stable across restarts. */
export function sequencerKid(publicKey: Uint8Array): string {
  return `seq-${toBase64url(sha256(publicKey)).slice(0, 8)}`;
}

function readSecretKey(j: unknown, path: string): SecretKey {
  const k = j as SecretKey;
  if (!k || k.alg !== 'EdDSA' || typeof k.kid !== 'string' || typeof k.secretKey !== 'string')
    throw new ProtocolError('invalid_document', `${path} is {"alg":"EdDSA","kid":…,"secretKey":…}`);
  return k;
}

async function ensureKey(dir: string, now: () => number, created: string[]): Promise<{ signer: Signer; keyRecord: KeyRecord }> {
  const keyPath = join(dir, DATA_FILES.key);
  let j = await readJsonIfExists(keyPath);
  if (j === undefined) {
    const fresh = generateSecretKey('EdDSA', 'pending');
    const kid = sequencerKid(createSigner(fresh).publicKey);
    if (await writeFileOnce(keyPath, JSON.stringify({ alg: 'EdDSA', kid, secretKey: fresh.secretKey }) + '\n', 0o600))
      created.push(DATA_FILES.key);
    j = await readJsonIfExists(keyPath);
  }
  const signer = createSigner(readSecretKey(j, keyPath));
  const recPath = join(dir, DATA_FILES.keyRecord);
  let rec = (await readJsonIfExists(recPath)) as KeyRecord | undefined;
  if (rec === undefined) {
    const validFrom = formatTime(now());
    rec = signDocument(
      keyRecordOf(signer, { owner: SEQUENCER_OWNER, role: 'sequencer', validFrom }) as unknown as JsonObject,
      signer,
      validFrom,
    ) as unknown as KeyRecord;
    await writeFileDurable(recPath, JSON.stringify(rec, null, 2) + '\n');
    created.push(DATA_FILES.keyRecord);
  }
  const r = readDocument('KeyRecord', rec);
  if (!r.ok) throw new ProtocolError(r.code, `${recPath}: ${r.detail}`);
  if (r.value.kid !== signer.kid || r.value.publicKey !== toBase64url(signer.publicKey))
    throw new ProtocolError('descriptor_mismatch', `${recPath} is not the record of ${keyPath}`);
  return { signer, keyRecord: r.value };
}

async function ensureToken(dir: string, created: string[]): Promise<string> {
  const p = join(dir, DATA_FILES.token);
  if ((await readTextIfExists(p)) === undefined) {
    if (await writeFileOnce(p, newOperatorToken(), 0o600)) created.push(DATA_FILES.token);
  }
  const t = ((await readTextIfExists(p)) ?? '').trim();
  if (t.length < 16) throw new ProtocolError('invalid_document', `${p} holds no usable token`);
  return t;
}

/**
 * 32 random bytes, base64url; drawn again while it starts with '-' or '_', so `--token VALUE`
 * never reads as a flag (node:util parseArgs refuses a value that looks like one).
 */
export function newOperatorToken(): string {
  for (;;) {
    const t = toBase64url(randomBytes(32));
    if (/^[A-Za-z0-9]/.test(t)) return t;
  }
}

export async function saveConfig(dir: string, c: SequencerConfig): Promise<void> {
  await writeFileDurable(join(dir, DATA_FILES.config), JSON.stringify(c, null, 2) + '\n');
}

async function readConfigFile(dir: string): Promise<SequencerConfig | undefined> {
  const j = await readJsonIfExists(join(dir, DATA_FILES.config));
  if (j === undefined) return undefined;
  const r = readConfig(j);
  if (!r.ok) throw new ProtocolError(r.code, `${join(dir, DATA_FILES.config)}: ${r.detail}`);
  return r.value;
}

export function logStoreDir(dir: string, origin: string): string {
  return join(dir, DATA_FILES.logs, logDirName(origin));
}

export function deviceKeysFile(dir: string, origin: string): string {
  return join(dir, DATA_FILES.deviceKeys, `${logDirName(origin)}.ndjson`);
}

/**
 * Open a log's store, creating it with a signed descriptor when new (declaring `timeBounds`). An
 * existing descriptor must name this origin, mode and sequencer key (else descriptor_mismatch: the
 * folder belongs to another log or another key); its time bounds, fixed at creation, stay.
 */
export async function openOrCreateLogStore(
  dir: string,
  l: LogConfig,
  signer: Signer,
  now: () => number,
  timeBounds: TimeBounds = DEFAULT_TIME_BOUNDS,
  faults?: FaultHooks,
  backend?: StoreBackend,
  level?: Pick<OpenOptions, 'writeBufferSize' | 'cacheSize' | 'maxOpenFiles' | 'onMigrated'>,
): Promise<LogStore> {
  await mkdir(join(dir, DATA_FILES.logs), { recursive: true, mode: 0o700 });
  // With a PostgreSQL backend (store-backend.ts) the log lives in that database, not under DIR/logs.
  const pg = backend
    ? await openPostgresLogStore({
        url: backend.url,
        log: l.log,
        address: backend.address,
        leaseMs: backend.leaseMs,
        faults,
        onLeaseChange: backend.onLeaseChange,
        onWipe: backend.onWipe,
      })
    : undefined;
  const store = pg ?? (await openLogStore(logStoreDir(dir, l.log), { createIfMissing: true, faults, ...level }));
  try {
    // A new log in PostgreSQL is created by whichever process leads it (another may be creating it).
    if (pg && !pg.descriptor()) await pg.waitLeader(4 * (backend?.leaseMs ?? DEFAULT_LEASE_MS));
    const d = store.descriptor();
    if (!d)
      await store.init(
        buildLogDescriptor({ log: l.log, mode: l.mode, createdAt: formatTime(now()), timeBounds, timePrecision: l.timePrecision }, signer),
      );
    else if (d.log !== l.log || d.mode !== l.mode || d.sequencer !== signer.kid) {
      throw new ProtocolError(
        'descriptor_mismatch',
        `${store.dir} holds log ${d.log} (${d.mode}, sequencer ${d.sequencer}), not ${l.log} (${l.mode}, ${signer.kid})`,
      );
    }
    return store;
  } catch (e) {
    await store.close();
    throw e;
  }
}

/** `cookwala init`: create or complete a data directory. Returns what was created. */
export async function initDataDir(
  opts: InitOptions = {},
): Promise<{ dir: string; created: string[]; config: SequencerConfig; kid: string; publicKey: Uint8Array; mldsa?: LogMldsaSigner }> {
  const dir = opts.dir ?? DEFAULT_DIRS.sequencer;
  const now = opts.now ?? Date.now;
  const created: string[] = [];
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { signer, keyRecord } = await ensureKey(dir, now, created);
  await ensureToken(dir, created);
  const old = await readConfigFile(dir);
  const config: SequencerConfig = old ?? { ...DEFAULT_CONFIG, witnessPeers: [], logs: [] };
  let changed = old === undefined;
  const wanted = opts.logs && opts.logs.length > 0 ? opts.logs : config.logs.length === 0 ? [DEFAULT_LOG] : [];
  for (const origin of wanted) {
    if (config.logs.some((l) => l.log === origin)) continue;
    config.logs.push({ log: origin, mode: opts.mode ?? DEFAULT_MODE });
    changed = true;
  }
  if (opts.port !== undefined && opts.port !== config.port) {
    config.port = opts.port;
    changed = true;
  }
  if (opts.host !== undefined && opts.host !== config.host) {
    config.host = opts.host;
    changed = true;
  }
  if (opts.maxClockSkewMs !== undefined && opts.maxClockSkewMs !== config.maxClockSkewMs) {
    config.maxClockSkewMs = opts.maxClockSkewMs;
    changed = true;
  }
  if (opts.maxDeliveryDelayMs !== undefined && opts.maxDeliveryDelayMs !== config.maxDeliveryDelayMs) {
    config.maxDeliveryDelayMs = opts.maxDeliveryDelayMs;
    changed = true;
  }
  const checked = readConfig(config);
  if (!checked.ok) throw new ProtocolError(checked.code, checked.detail);
  for (const l of config.logs) {
    const had = (await readTextIfExists(join(logStoreDir(dir, l.log), 'CURRENT'))) !== undefined;
    const store = await openOrCreateLogStore(dir, l, signer, now, timeBoundsOf(config), undefined, opts.store);
    await store.close();
    if (!had && !opts.store) created.push(`${DATA_FILES.logs}/${logDirName(l.log)}`);
  }
  if (changed) {
    await saveConfig(dir, config);
    if (!old) created.push(DATA_FILES.config);
  }
  const mldsa = opts.mldsa44
    ? await ensureMldsaKey(dir, config, opts.mldsa44 === 'new' ? undefined : opts.mldsa44.skey)
    : { created: false, signer: await readMldsaKey(dir) };
  if (mldsa.created) created.push(DATA_FILES.mldsaKey);
  const policyPath = join(dir, config.policy);
  const policyText = await readTextIfExists(policyPath);
  if (policyText !== undefined && mldsa.created && mldsa.signer) {
    // The sequencer's own policy names the new ML-DSA-44 log key too (docs/post-quantum.md).
    const json = parseJson(policyText);
    const parsed = json.ok ? readWitnessPolicy(json.value) : json;
    const raw = parsed.ok ? parsed.value : undefined;
    const next = raw && { ...raw, logMldsaVkey: mldsa.signer.vkey(raw.log) };
    if (raw && next && raw.logMldsaVkey === undefined && readWitnessPolicy(next).ok)
      await writeFileDurable(policyPath, JSON.stringify(next, null, 2) + '\n');
  }
  if (policyText === undefined && config.logs.length > 0) {
    // The auditor's side of time (docs/design.md §4): the bounds this log declares are required and capped.
    const declared = boundsForPrecision(timeBoundsOf(config), config.logs[0].timePrecision ?? 'ms');
    const policy = {
      kind: 'WitnessPolicy',
      log: config.logs[0].log,
      sequencer: keyRecord,
      witnesses: [],
      quorum: 0,
      timeBounds: { required: true, ...declared },
      ...(mldsa.signer ? { logMldsaVkey: mldsa.signer.vkey(config.logs[0].log) } : {}),
    };
    await writeFileDurable(policyPath, JSON.stringify(policy, null, 2) + '\n');
    created.push(config.policy);
  }
  return { dir, created, config, kid: signer.kid, publicKey: signer.publicKey, mldsa: mldsa.signer };
}

/** Load an initialised data directory (what `cookwala sequencer` runs on). */
export async function loadDataDir(dir: string): Promise<DataDir> {
  const config = await readConfigFile(dir);
  if (!config)
    throw new ProtocolError('not_found', `${join(dir, DATA_FILES.config)} is missing: run \`cookwala init --data ${dir}\` first`);
  const created: string[] = [];
  if ((await readTextIfExists(join(dir, DATA_FILES.key))) === undefined)
    throw new ProtocolError('not_found', `${join(dir, DATA_FILES.key)} is missing`);
  const { signer, keyRecord } = await ensureKey(dir, Date.now, created);
  const token = await ensureToken(dir, created);
  let policy: WitnessPolicy | undefined;
  const pj = await readJsonIfExists(join(dir, config.policy));
  if (pj !== undefined) {
    const r = readWitnessPolicy(pj);
    if (!r.ok) throw new ProtocolError(r.code, `${join(dir, config.policy)}: ${r.detail}`);
    policy = r.value;
  }
  const mldsa = await readMldsaKey(dir);
  return { dir, config, signer, keyRecord, token, policy, ...(mldsa ? { mldsa } : {}) };
}
