// sequencer/device-keys.ts: the device KeyRecords registered with one log (docs/design.md §5, §8; POST
// /v1/logs/{log}/keys). The sequencer adds `hash` and a `signature` by its own key
// (signDocument), so an auditor who trusts the sequencer key can trust the device keys in a bundle,
// and an edited record fails its signature. Storage: one append-only NDJSON file per log, each
// line one signed record, written and fsync'd before the registration is answered, so a 201
// survives a crash. A torn last line (a crash mid-write, never answered) is cut off at open; any
// other unreadable or badly signed line is fatal, since the file is the sequencer's own. A later
// record for a kid replaces the earlier one, and may differ from it only by adding `revokedAt`
// (key_conflict otherwise). Left out: deleting keys (revoke instead, so old events still verify).

import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fail, ok, ProtocolError, type Result } from '../verifier/index.ts';
import { canonicalize } from '../verifier/encoding/index.ts';
import { publicKeyBytes, type KeyRecord } from '../verifier/signing/index.ts';
import { signDocument, verifyDocument, type Signer } from '../verifier/signing/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import type { JsonObject } from '../verifier/signing/index.ts';
import { SEQUENCER_SOURCE_PREFIX } from './system-events.ts';

export interface DeviceKeyRegistry {
  get(kid: string): KeyRecord | undefined;
  /** The raw public key of a registered kid (decoded once). */
  publicKey(kid: string): Uint8Array | undefined;
  all(): KeyRecord[];
  /** Read, check, sign, persist (fsync'd) and index a device KeyRecord; `created` false when nothing changed. */
  register(input: unknown, signedAt: string): Promise<Result<{ record: KeyRecord; created: boolean }>>;
  close(): Promise<void>;
}

/** The record without what the sequencer adds, and without revokedAt: what a revocation may not change. */
function identity(k: KeyRecord): string {
  const { hash: _h, signature: _s, revokedAt: _r, ...rest } = k;
  const c = canonicalize(rest);
  return c.ok ? c.value : '';
}

export async function openDeviceKeys(file: string, signer: Signer, sequencerKey: KeyRecord): Promise<DeviceKeyRegistry> {
  const byKid = new Map<string, KeyRecord>();
  const pubs = new Map<string, Uint8Array>();
  const lookup = (kid: string) => (kid === sequencerKey.kid ? sequencerKey : undefined);

  function index(k: KeyRecord): void {
    byKid.set(k.kid, k);
    const pk = publicKeyBytes(k);
    if (pk.ok) pubs.set(k.kid, pk.value);
  }

  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  let text = '';
  let existed = true;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    existed = false;
  }
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) await truncate(file, Buffer.byteLength(text.slice(0, end)));
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (line === '') return;
      const j = parseJson(line);
      const r = j.ok ? readDocument('KeyRecord', j.value) : j;
      const v = r.ok ? verifyDocument(r.value as unknown as JsonObject, lookup, { role: 'sequencer' }) : r;
      if (!r.ok || !v.ok) throw new ProtocolError(v.ok ? 'invalid_document' : v.code, `${file} line ${i + 1}: ${v.ok ? '' : v.detail}`);
      index(r.value);
    });

  const fh: FileHandle = await open(file, 'a', 0o600);
  if (!existed) {
    // The new file's name must be durable too, or a crash could lose every record in it.
    const d = await open(dirname(file), 'r');
    await d.sync().finally(() => d.close());
  }
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function registerNow(input: unknown, signedAt: string): Promise<Result<{ record: KeyRecord; created: boolean }>> {
    if (closed) return fail('shutting_down', 'the key registry is closed');
    const r = readDocument('KeyRecord', input);
    if (!r.ok) return r;
    const { hash: _h, signature: _s, ...bare } = r.value;
    if (bare.role !== 'device') return fail('invalid_document', `only device keys are registered here; role is ${bare.role}`);
    if (bare.kid === sequencerKey.kid) return fail('key_conflict', `kid ${bare.kid} is the sequencer's`);
    if (bare.owner.startsWith(SEQUENCER_SOURCE_PREFIX))
      return fail('invalid_document', `owner ${bare.owner} is a sequencer source, not a device`);
    const pk = publicKeyBytes(bare);
    if (!pk.ok) return pk;
    const old = byKid.get(bare.kid);
    if (old) {
      if (identity(old) !== identity(bare as KeyRecord))
        return fail('key_conflict', `kid ${bare.kid} is registered with other fields; a new record may only add revokedAt`);
      if (old.revokedAt === bare.revokedAt) return ok({ record: old, created: false });
      if (old.revokedAt !== undefined) return fail('key_conflict', `kid ${bare.kid} is already revoked at ${old.revokedAt}`);
    }
    const record = signDocument(bare as unknown as JsonObject, signer, signedAt) as unknown as KeyRecord;
    await fh.write(JSON.stringify(record) + '\n');
    await fh.datasync();
    index(record);
    return ok({ record, created: true });
  }

  return {
    get: (kid) => byKid.get(kid),
    publicKey: (kid) => pubs.get(kid),
    all: () => [...byKid.values()],
    register(input, signedAt) {
      // One registration at a time: the check and the append must not interleave.
      const p = tail.then(() => registerNow(input, signedAt));
      tail = p.catch(() => undefined);
      return p;
    },
    async close() {
      if (closed) return;
      closed = true;
      await tail;
      await fh.close();
    },
  };
}
