// executor/device-key.ts: a device's identity in its data dir (docs/design.md §3, §9): an EdDSA key whose
// KeyRecord has role `device` and owner = the device's CloudEvents source `urn:cookwala:device:<name>`
// (the sequencer accepts an event only when the signing key's owner equals its source). Files:
//   DIR/device.key.json   {"alg":"EdDSA","kid":…,"secretKey":…}     mode 0600, never overwritten
//   DIR/device.json       {"kind":"DeviceIdentity","name":…,"source":…,"keyRecord":{…}}
// Creation is crash-safe and race-safe: each file is written to a temp name, fsync'd, then linked
// into place (link fails if the name exists), so two starts cannot make two keys and a crash never
// leaves half a key. kid = `<name>-<first 8 base64url chars of sha256(public key)>`.
// Left out: key rotation and revocation (a new key is a new device name).

import { mkdir, readFile } from 'node:fs/promises';
import { writeFileOnce } from '../platform/index.ts';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { formatTime, toBase64url } from '../verifier/encoding/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { createSigner, generateSecretKey, keyRecordOf, type SecretKey, type Signer } from '../verifier/signing/index.ts';

export interface DeviceIdentity {
  name: string;
  source: string;
  signer: Signer;
  keyRecord: KeyRecord;
}

/** A device dir that cannot be used as asked (wrong name, damaged or mismatched files). */
export class DeviceSetupError extends Error {
  override readonly name = 'DeviceSetupError';
}

export const NAME_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const sourceOf = (name: string) => `urn:cookwala:device:${name}`;

async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DeviceSetupError(`${path}: ${(e as Error).message}`);
  }
  const j = parseJson(text); // a file anyone with the directory can edit: I-JSON, one reading
  if (!j.ok) throw new DeviceSetupError(`${path}: ${j.code}: ${j.detail}`);
  return j.value as T;
}

/**
 * Load the device in `dir`, or create it. `name` is used only at creation (a random `device-xxxxxx`
 * when absent); asking for another name than the stored one is an error, not a silent new identity.
 */
export async function loadOrCreateDevice(dir: string, opts: { name?: string; now?: () => number } = {}): Promise<DeviceIdentity> {
  if (opts.name !== undefined && !NAME_RE.test(opts.name))
    throw new DeviceSetupError(`device name ${JSON.stringify(opts.name)} is 1-63 characters of a-z, 0-9 and -`);
  await mkdir(dir, { recursive: true });
  const keyPath = join(dir, 'device.key.json');
  const idPath = join(dir, 'device.json');
  let secret = await readJson<SecretKey & { name?: string }>(keyPath);
  if (!secret) {
    const name = opts.name ?? `device-${randomBytes(3).toString('hex')}`;
    const k = generateSecretKey('EdDSA', 'pending');
    const pk = createSigner(k).publicKey;
    const kid = `${name}-${createHash('sha256').update(pk).digest('base64url').slice(0, 8)}`;
    await writeFileOnce(keyPath, JSON.stringify({ ...k, kid, name }, null, 2) + '\n', 0o600);
    secret = await readJson<SecretKey & { name?: string }>(keyPath); // whoever won the race
    if (!secret) throw new DeviceSetupError(`${keyPath} vanished`);
  }
  const name = secret.name;
  if (typeof name !== 'string' || !NAME_RE.test(name)) throw new DeviceSetupError(`${keyPath} names no valid device`);
  if (opts.name !== undefined && opts.name !== name) throw new DeviceSetupError(`${dir} holds device ${name}, not ${opts.name}`);
  const signer = createSigner({ alg: secret.alg, kid: secret.kid, secretKey: secret.secretKey });
  let id = await readJson<{ kind: string; name: string; source: string; keyRecord: KeyRecord }>(idPath);
  if (!id) {
    // Valid from the start of its creation day: under open consent events are signed at the day (§8).
    const now = (opts.now ?? Date.now)();
    const keyRecord = keyRecordOf(signer, { owner: sourceOf(name), role: 'device', validFrom: formatTime(now - (now % 86_400_000)) });
    await writeFileOnce(idPath, JSON.stringify({ kind: 'DeviceIdentity', name, source: sourceOf(name), keyRecord }, null, 2) + '\n', 0o644);
    id = await readJson(idPath);
    if (!id) throw new DeviceSetupError(`${idPath} vanished`);
  }
  if (id.keyRecord.publicKey !== toBase64url(signer.publicKey) || id.keyRecord.kid !== signer.kid || id.source !== sourceOf(name)) {
    throw new DeviceSetupError(`${idPath} does not match ${keyPath}`);
  }
  return { name, source: id.source, signer, keyRecord: id.keyRecord };
}
