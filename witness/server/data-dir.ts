// witness/server/data-dir.ts: the witness's data directory (docs/design.md §7):
//   DIR/witness.json            WitnessConfig (config.ts)
//   DIR/witness.key.json        {"alg":"EdDSA","kid":…,"secretKey":…}            (mode 0600)
//   DIR/witness.keyrecord.json  its public KeyRecord (role witness), self-signed at creation
//   DIR/peer.key                the libp2p identity (witness/wire/identity.ts)                 (mode 0600)
//   DIR/witness.mldsa44.skey    optional ML-DSA-44 cosigner key, a signed-note skey (type 0x06,
//                               the 32-byte seed) under the witness's C2SP key name            (mode 0600)
//   DIR/state/                  LevelDB: per-log state and fork proofs (state.ts)
//   DIR/witness-info.json       {peerId, multiaddrs, http, keyRecord}, written while running
// `init` is idempotent and never overwrites a key: secrets go to a temp file, are fsync'd and
// hard-linked into place (link fails if the name exists); other files are replaced atomically
// (write, fsync, rename, fsync the folder). `init --key` imports an existing key (key-import.ts)
// instead of making one; a DIR that holds another key refuses it, as it refuses any key change.
// Left out: key rotation (a new key is a new witness).

import { mkdir, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { formatSignerKey, parseSignerKey, SIG_MLDSA44 } from '../../verifier/c2sp/note/index.ts';
import { join } from 'node:path';
import { ProtocolError, type Result } from '../../verifier/index.ts';
import { createSigner, generateSecretKey, keyRecordOf, signDocument, type SecretKey, type Signer } from '../../verifier/signing/index.ts';
import { formatTime, toBase64url } from '../../verifier/encoding/index.ts';
import { sha256 } from '../../verifier/crypto/index.ts';
import { parseJson, readDocument } from '../../verifier/documents/index.ts';
import { readJsonIfExists as readJsonFile, writeFileDurable, writeFileOnce } from '../../platform/index.ts';

export { readJsonFile, writeFileDurable };
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { DEFAULT_WITNESS_CONFIG, readWitnessConfig, type WitnessConfig } from './config.ts';
import type { ImportedKey } from './key-import.ts';

export const WITNESS_FILES = {
  config: 'witness.json',
  key: 'witness.key.json',
  keyRecord: 'witness.keyrecord.json',
  peerKey: 'peer.key',
  state: 'state',
  info: 'witness-info.json',
  mldsaKey: 'witness.mldsa44.skey',
} as const;

/** The owner named in a witness KeyRecord. */
export const witnessOwner = (name: string) => `cookwala:witness/${name}`;

/** `wit-` + the first 8 base64url characters of SHA-256(public key): stable across restarts. */
export function witnessKid(publicKey: Uint8Array): string {
  return `wit-${toBase64url(sha256(publicKey)).slice(0, 8)}`;
}

export interface WitnessDataDir {
  dir: string;
  config: WitnessConfig;
  signer: Signer;
  /** The key the signer signs with (the CLI hands it to the witness's signing worker). */
  secretKey: SecretKey;
  keyRecord: KeyRecord;
  /** The ML-DSA-44 skey, when the witness has one (mldsa-cosigner.ts). */
  mldsaSkey?: string;
}

/** The C2SP key name the witness's cosigners sign under. */
export const c2spNameOf = (c: WitnessConfig): string => c.c2spName ?? c.name;

/**
 * Give the witness an ML-DSA-44 cosigner key: `skey` imported (a type 0x06 skey whose name is the
 * witness's C2SP name) or a fresh seed. Never overwrites: a different key already there is refused.
 */
export async function ensureMldsaKey(dir: string, config: WitnessConfig, skey?: string): Promise<{ created: boolean; skey: string }> {
  const path = join(dir, WITNESS_FILES.mldsaKey);
  const name = c2spNameOf(config);
  let text: string;
  if (skey !== undefined) {
    const k = parseSignerKey(skey.trim());
    if (!k.ok) throw new ProtocolError(k.code, `ML-DSA-44 key: ${k.detail}`);
    if (k.value.type !== SIG_MLDSA44)
      throw new ProtocolError('unsupported_alg', `the key is of type 0x${k.value.type.toString(16)}, not ML-DSA-44 (0x06)`);
    if (k.value.name !== name)
      throw new ProtocolError('descriptor_mismatch', `the key is named ${k.value.name}; this witness signs as ${name}`);
    text = skey.trim();
  } else text = formatSignerKey(name, SIG_MLDSA44, randomBytes(32));
  if (await writeFileOnce(path, text + '\n', 0o600)) return { created: true, skey: text };
  const have = (await readFile(path, 'utf8')).trim();
  if (skey !== undefined && have !== text)
    throw new ProtocolError('descriptor_mismatch', `${path} holds another ML-DSA-44 key; it is never overwritten`);
  return { created: false, skey: have };
}

async function readMldsaKey(dir: string): Promise<string | undefined> {
  const path = join(dir, WITNESS_FILES.mldsaKey);
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const k = parseSignerKey(text);
  if (!k.ok || k.value.type !== SIG_MLDSA44) throw new ProtocolError('invalid_document', `${path} is not an ML-DSA-44 skey`);
  return text;
}

export interface WitnessInitOptions {
  name?: string;
  /** The C2SP key name of the cosignature/v1 key (config c2spName); a URL-like name is best. */
  c2spName?: string;
  /** An existing key to keep (key-import.ts) instead of a fresh one. */
  key?: ImportedKey;
  httpPort?: number;
  listen?: string[];
  bootstrap?: string[];
  now?: () => number;
}

async function ensureKey(dir: string, name: string, now: () => number, created: string[], imported?: ImportedKey): Promise<void> {
  const keyPath = join(dir, WITNESS_FILES.key);
  if ((await readJsonFile(keyPath)) === undefined) {
    const fresh = generateSecretKey('EdDSA', 'pending', undefined, imported?.seed);
    const kid = witnessKid(createSigner(fresh).publicKey);
    if (await writeFileOnce(keyPath, JSON.stringify({ alg: 'EdDSA', kid, secretKey: fresh.secretKey }) + '\n', 0o600))
      created.push(WITNESS_FILES.key);
  }
  const signer = createSigner(readSecretKey(await readJsonFile(keyPath), keyPath));
  if (imported) {
    const want = createSigner(generateSecretKey('EdDSA', 'imported', undefined, imported.seed)).publicKey;
    if (toBase64url(want) !== toBase64url(signer.publicKey))
      throw new ProtocolError(
        'descriptor_mismatch',
        `${keyPath} holds another key (${signer.kid}); a witness key is never replaced: import into a new --data DIR`,
      );
  }
  const recPath = join(dir, WITNESS_FILES.keyRecord);
  if ((await readJsonFile(recPath)) === undefined) {
    const validFrom = formatTime(now());
    const rec = signDocument(keyRecordOf(signer, { owner: witnessOwner(name), role: 'witness', validFrom }) as never, signer, validFrom);
    await writeFileDurable(recPath, JSON.stringify(rec, null, 2) + '\n');
    created.push(WITNESS_FILES.keyRecord);
  }
}

function readSecretKey(j: unknown, path: string): SecretKey {
  const k = j as SecretKey;
  if (!k || k.alg !== 'EdDSA' || typeof k.kid !== 'string' || typeof k.secretKey !== 'string')
    throw new ProtocolError('invalid_document', `${path} is {"alg":"EdDSA","kid":…,"secretKey":…}`);
  return k;
}

/** Create (or complete) a witness data directory; returns the names of the files it created. */
export async function initWitnessDir(dir: string, opts: WitnessInitOptions = {}): Promise<string[]> {
  const created: string[] = [];
  await mkdir(dir, { recursive: true });
  const cfgPath = join(dir, WITNESS_FILES.config);
  const existing = await readJsonFile(cfgPath);
  let name = opts.name ?? 'witness';
  if (existing === undefined) {
    const config: WitnessConfig = {
      ...DEFAULT_WITNESS_CONFIG,
      name,
      ...(opts.c2spName !== undefined ? { c2spName: opts.c2spName } : {}),
      listen: opts.listen ?? [...DEFAULT_WITNESS_CONFIG.listen],
      bootstrap: opts.bootstrap ?? [],
      httpPort: opts.httpPort ?? DEFAULT_WITNESS_CONFIG.httpPort,
      logs: [],
    };
    const r = readWitnessConfig(config);
    if (!r.ok) throw ProtocolError.from(r);
    await writeFileDurable(cfgPath, JSON.stringify(config, null, 2) + '\n');
    created.push(WITNESS_FILES.config);
  } else {
    const r = readWitnessConfig(existing, 'on-use');
    if (!r.ok) throw new ProtocolError(r.code, `${cfgPath}: ${r.detail}`);
    name = r.value.name;
    const have = r.value.c2spName ?? r.value.name;
    if (opts.c2spName !== undefined && opts.c2spName !== have)
      throw new ProtocolError(
        'descriptor_mismatch',
        `${cfgPath} names the C2SP key ${have}; another name is another vkey (edit c2spName there if that is meant)`,
      );
  }
  await ensureKey(dir, name, opts.now ?? Date.now, created, opts.key);
  return created;
}

export async function loadWitnessDir(dir: string): Promise<WitnessDataDir> {
  const cfgPath = join(dir, WITNESS_FILES.config);
  const j = await readJsonFile(cfgPath);
  if (j === undefined) throw new ProtocolError('not_found', `${cfgPath} is missing; run \`cookwala witness init --data ${dir}\``);
  const c = readWitnessConfig(j, 'on-use');
  if (!c.ok) throw new ProtocolError(c.code, `${cfgPath}: ${c.detail}`);
  const keyPath = join(dir, WITNESS_FILES.key);
  const k = await readJsonFile(keyPath);
  if (k === undefined) throw new ProtocolError('not_found', `${keyPath} is missing`);
  const secretKey = readSecretKey(k, keyPath);
  const signer = createSigner(secretKey);
  const recPath = join(dir, WITNESS_FILES.keyRecord);
  const rec = readDocument('KeyRecord', await readJsonFile(recPath)) as Result<KeyRecord>;
  if (!rec.ok) throw new ProtocolError(rec.code, `${recPath}: ${rec.detail}`);
  if (rec.value.kid !== signer.kid || rec.value.publicKey !== toBase64url(signer.publicKey))
    throw new ProtocolError('descriptor_mismatch', `${recPath} is not the record of ${keyPath}`);
  const mldsaSkey = await readMldsaKey(dir);
  return { dir, config: c.value, signer, secretKey, keyRecord: rec.value, ...(mldsaSkey ? { mldsaSkey } : {}) };
}

export async function saveWitnessConfig(dir: string, config: WitnessConfig): Promise<void> {
  const r = readWitnessConfig(config, 'on-use');
  if (!r.ok) throw ProtocolError.from(r);
  await writeFileDurable(join(dir, WITNESS_FILES.config), JSON.stringify(config, null, 2) + '\n');
}

/** What /witness.v0.json and /about name as the software: this package's name and version. */
export async function readPackageSoftware(): Promise<{ name: string; version: string }> {
  try {
    const r = parseJson(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const p = (r.ok && r.value && typeof r.value === 'object' ? r.value : {}) as { name?: unknown; version?: unknown };
    return { name: String(p.name ?? 'cookwala-log'), version: String(p.version ?? 'unknown') };
  } catch {
    return { name: 'cookwala-log', version: 'unknown' };
  }
}
