// device/key-file.ts: a device maker's private key file and the KeyRecord to register
// (docs/design.md §3, §9; docs/devices.md). KEY.json is {"kind":"DeviceKey","alg","kid","secretKey","owner"}
// (secretKey: the 32-byte Ed25519 seed or P-256 scalar, base64url; owner: the CloudEvents source
// the key signs for), created with mode 0600 and never overwritten (written durably under a temp
// name, then linked into place). The executor's DIR/device.key.json ({alg, kid, secretKey}) reads
// too; its owner then comes from --source. Invariant: the secret never leaves the file: nothing
// here prints it.

import { readBoundedText, writeFileOnce } from '../platform/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { createSigner, generateSecretKey, keyRecordOf, type Signer } from '../verifier/signing/index.ts';
import type { Alg, KeyRecord } from '../verifier/signing/index.ts';
import { isUriReference } from '../verifier/cloudevent/index.ts';
import { isTime } from '../verifier/encoding/index.ts';

export interface DeviceKeyFile {
  kind: 'DeviceKey';
  alg: Alg;
  kid: string;
  secretKey: string;
  owner?: string;
}

export interface LoadedKey {
  signer: Signer;
  owner: string | undefined;
}

/** Thrown for a key file or flag the user must fix; the CLI prints it as one line, exit 2. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
}

const KID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A new key (random; a P-256 scalar drawn again in the rare case it is not below the group order). */
export function newDeviceKey(alg: Alg, kid: string, owner: string): DeviceKeyFile {
  if (!KID_RE.test(kid)) throw new KeyFileError(`--kid ${JSON.stringify(kid)}: 1 to 128 of A-Z a-z 0-9 . _ : -`);
  if (!isUriReference(owner) || owner === '') throw new KeyFileError(`--source ${JSON.stringify(owner)} is not a URI-reference`);
  for (let i = 0; i < 8; i++) {
    const k = generateSecretKey(alg, kid);
    try {
      createSigner(k);
      return { kind: 'DeviceKey', alg, kid, secretKey: k.secretKey, owner };
    } catch {
      // not a valid P-256 scalar: draw again
    }
  }
  throw new Error('could not draw a valid key');
}

/** The KeyRecord an operator registers for this key (role device, owner = the event source). */
export function recordOf(k: DeviceKeyFile, validFrom: string, validUntil?: string): KeyRecord {
  if (!isTime(validFrom)) throw new KeyFileError(`--valid-from ${validFrom}: an RFC 3339 UTC time with milliseconds`);
  if (validUntil !== undefined && !isTime(validUntil)) throw new KeyFileError(`--valid-until ${validUntil}: an RFC 3339 UTC time`);
  if (!k.owner) throw new KeyFileError('the key has no owner: give --source');
  return keyRecordOf(createSigner(k), { owner: k.owner, role: 'device', validFrom, validUntil });
}

/** Write KEY.json (mode 0600); refuses to replace an existing file. */
export async function writeKeyFile(path: string, k: DeviceKeyFile): Promise<void> {
  if (!(await writeFileOnce(path, JSON.stringify(k, null, 2) + '\n', 0o600)))
    throw new KeyFileError(`${path} exists: a key file is never overwritten (choose another --out)`);
}

export async function readKeyFile(path: string, source?: string): Promise<LoadedKey> {
  let text: string;
  try {
    text = await readBoundedText(path, 4096);
  } catch (e) {
    throw new KeyFileError(`cannot read the key ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const j = parseJson(text);
  if (!j.ok) throw new KeyFileError(`${path}: ${j.code}: ${j.detail}`);
  const o = j.value as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o) || (o.alg !== 'EdDSA' && o.alg !== 'ES256') || typeof o.kid !== 'string')
    throw new KeyFileError(`${path} is not a device key file ({"kind":"DeviceKey","alg","kid","secretKey","owner"})`);
  let signer: Signer;
  try {
    signer = createSigner({ alg: o.alg, kid: o.kid, secretKey: String(o.secretKey) });
  } catch (e) {
    throw new KeyFileError(`${path}: ${(e as Error).message}`);
  }
  const owner = source ?? (typeof o.owner === 'string' ? o.owner : undefined);
  return { signer, owner };
}
