// witness/server/config.ts: the witness's config file, DIR/witness.json (docs/design.md §7):
// {kind:"WitnessConfig", name, listen:[multiaddr…], bootstrap:[multiaddr…], httpHost, httpPort,
// logs:[{log, sequencer: KeyRecord}], c2spName?, c2spLogs?:[{origin, vkey}], logLists?:[path or URL],
// publicUrl?}
// (C2SP, docs/design.md §7a: c2sp-logs.ts). Logs are admitted here and only here, by the operator
// (`cookwala witness add-log`), never by whoever calls. Read strictly like every document:
// unknown members refused (`x-<vendor>-…` ignored), wrong types `invalid_document`. Pure code: the
// file I/O is data-dir.ts's. Invariant: each origin appears once, with a sequencer-role key.

import { fail, ok, type Result } from '../../verifier/index.ts';
import { isVendorMember } from '../../verifier/signing/index.ts';
import { checkOrigin } from '../../verifier/documents/index.ts';
import { readDocument } from '../../verifier/documents/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import type { AdmittedLog } from './add-checkpoint.ts';
import { readC2spLog, type C2spLog } from './c2sp-logs.ts';
import { isValidKeyName } from '../../verifier/c2sp/note/index.ts';

export interface WitnessConfig {
  kind: 'WitnessConfig';
  name: string;
  listen: string[];
  bootstrap: string[];
  httpHost: string;
  httpPort: number;
  logs: AdmittedLog[];
  /** C2SP key name of this witness's cosignature/v1 key (a schema-less URL is best); default `name`. */
  c2spName?: string;
  /** C2SP logs admitted by origin + vkey (`add-log --origin O --vkey V`), beside `logs`. */
  c2spLogs?: C2spLog[];
  /** logs/v0 lists followed (file paths or http(s) URLs): logs are added from them, never removed. */
  logLists?: string[];
  /** The public http(s) URL of the HTTP port (behind a proxy), for witness.v0.json and the about page. */
  publicUrl?: string;
}

export const DEFAULT_WITNESS_CONFIG: Readonly<Omit<WitnessConfig, 'name' | 'logs'>> = Object.freeze({
  kind: 'WitnessConfig',
  listen: ['/ip4/127.0.0.1/tcp/0'],
  bootstrap: [],
  httpHost: '127.0.0.1',
  httpPort: 0,
});

/**
 * Every member of witness.json with what it means: the reader accepts exactly these (plus
 * `x-<vendor>-…`); docs/config-reference.md is generated from this table (bin/config-reference.ts).
 */
export const WITNESS_CONFIG_MEMBERS: Readonly<Record<keyof WitnessConfig, string>> = Object.freeze({
  kind: 'Always "WitnessConfig".',
  name: 'The witness name (1-64 of A-Z a-z 0-9 . _ -), shown in cosignatures and policies.',
  listen: 'libp2p multiaddrs to listen on; `--listen` overrides. Open the TCP port to the sequencers and other witnesses.',
  bootstrap: 'libp2p multiaddrs of other witnesses to gossip checkpoints with (split-view detection).',
  httpHost: 'Address of the status page, /metrics and the C2SP tlog-witness endpoint (POST /add-checkpoint).',
  httpPort: 'Port of that HTTP server (0 picks a free port).',
  logs: 'Cookwala logs admitted, each {log: origin, sequencer: its sequencer KeyRecord}; `cookwala witness add-log` adds one. Never changed for an admitted origin.',
  c2spName: 'C2SP key name of the cosignature/v1 key (a schema-less URL is best); default: name.',
  c2spLogs: 'C2SP logs admitted by {origin, vkey} (`add-log --origin O --vkey V`).',
  logLists: 'logs/v0 log lists followed (file paths or http(s) URLs): logs are added from them, never removed or changed.',
  publicUrl:
    'Public http(s) URL of the HTTP port as logs reach it (say, behind nginx): the submission and monitoring prefix in /witness.v0.json and /about; default: the address it listens on.',
});

const MEMBERS = new Set(Object.keys(WITNESS_CONFIG_MEMBERS));

function stringList(x: unknown, where: string): Result<string[]> {
  if (!Array.isArray(x) || x.some((s) => typeof s !== 'string' || s.length === 0 || s.length > 1024))
    return fail('invalid_document', `${where} is an array of multiaddr strings`);
  return ok(x as string[]);
}

export function readAdmittedLog(json: unknown, where = 'log', keyRule: 'now' | 'on-use' = 'now'): Result<AdmittedLog> {
  const l = json as Record<string, unknown>;
  if (!l || typeof l !== 'object' || Array.isArray(l)) return fail('invalid_document', `${where} is {log, sequencer}`);
  for (const k of Object.keys(l)) if (k !== 'log' && k !== 'sequencer' && !isVendorMember(k)) return fail('unknown_field', `${where}.${k}`);
  const origin = checkOrigin(l.log);
  if (!origin.ok) return fail('invalid_origin', `${where}.log: ${origin.detail}`);
  const key = readDocument('KeyRecord', l.sequencer, { keyRule }) as Result<KeyRecord>;
  if (!key.ok) return fail(key.code, `${where}.sequencer: ${key.detail}`);
  if (key.value.role !== 'sequencer') return fail('key_role_mismatch', `${where}.sequencer has role ${key.value.role}`);
  return ok({ log: origin.value, sequencer: key.value });
}

/**
 * keyRule 'on-use' (loading and saving the witness's own config): the admitted keys were checked
 * by the key rule when admitted (add-log, a log list), so it is not run again for each of them;
 * a key that fails it (a hand-edited config) is refused at its first checkpoint (bad_signature: weak_key …).
 */
export function readWitnessConfig(json: unknown, keyRule: 'now' | 'on-use' = 'now'): Result<WitnessConfig> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return fail('invalid_document', 'witness config is a JSON object');
  for (const k of Object.keys(o)) if (!MEMBERS.has(k) && !isVendorMember(k)) return fail('unknown_field', `witness.${k}`);
  if (o.kind !== 'WitnessConfig') return fail('invalid_document', 'witness.kind is "WitnessConfig"');
  const c = { ...DEFAULT_WITNESS_CONFIG, name: 'witness', logs: [], ...o } as WitnessConfig;
  if (typeof c.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(c.name))
    return fail('invalid_document', 'witness.name is 1-64 of [A-Za-z0-9._-]');
  for (const k of ['listen', 'bootstrap'] as const) {
    const r = stringList(c[k], `witness.${k}`);
    if (!r.ok) return r;
  }
  if (typeof c.httpHost !== 'string' || c.httpHost.length === 0) return fail('invalid_document', 'witness.httpHost is a host');
  if (!Number.isSafeInteger(c.httpPort) || c.httpPort < 0 || c.httpPort > 65535)
    return fail('invalid_document', 'witness.httpPort is a port (0: any free one)');
  if (!Array.isArray(c.logs)) return fail('invalid_document', 'witness.logs is an array');
  const seen = new Set<string>();
  const logs: AdmittedLog[] = [];
  for (const [i, l] of c.logs.entries()) {
    const r = readAdmittedLog(l, `witness.logs[${i}]`, keyRule);
    if (!r.ok) return r;
    if (seen.has(r.value.log)) return fail('invalid_document', `witness.logs names ${r.value.log} twice`);
    seen.add(r.value.log);
    logs.push(r.value);
  }
  if (c.c2spName !== undefined && (!isValidKeyName(c.c2spName) || c.c2spName.length > 256))
    return fail('invalid_document', 'witness.c2spName is a note key name (no spaces or +)');
  const c2spLogs: C2spLog[] = [];
  if (c.c2spLogs !== undefined) {
    if (!Array.isArray(c.c2spLogs)) return fail('invalid_document', 'witness.c2spLogs is an array of {origin, vkey}');
    for (const [i, l] of c.c2spLogs.entries()) {
      const r = readC2spLog(l, `witness.c2spLogs[${i}]`, keyRule);
      if (!r.ok) return r;
      if (seen.has(r.value.origin)) return fail('invalid_document', `witness.c2spLogs names ${r.value.origin}, already admitted`);
      seen.add(r.value.origin);
      c2spLogs.push(r.value);
    }
  }
  if (c.logLists !== undefined) {
    const r = stringList(c.logLists, 'witness.logLists');
    if (!r.ok) return r;
  }
  if (
    c.publicUrl !== undefined &&
    (typeof c.publicUrl !== 'string' || c.publicUrl.length > 512 || !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(c.publicUrl))
  )
    return fail('invalid_document', 'witness.publicUrl is an http(s) URL without query or fragment');
  return ok({ ...c, logs, ...(c.c2spLogs !== undefined ? { c2spLogs } : {}) });
}

/** Admit a C2SP log by origin + vkey: add-only, like admitLog (another key is refused). */
export function admitC2spLog(c: WitnessConfig, entry: C2spLog): Result<{ config: WitnessConfig; changed: boolean }> {
  const r = readC2spLog(entry, 'log');
  if (!r.ok) return r;
  if (c.logs.some((l) => l.log === entry.origin))
    return fail(
      'descriptor_mismatch',
      `${entry.origin} is admitted as a Cookwala log by its sequencer key; its vkey follows from that key`,
    );
  const list = c.c2spLogs ?? [];
  const have = list.find((l) => l.origin === entry.origin);
  if (have) {
    if (have.vkey === entry.vkey) return ok({ config: c, changed: false });
    return fail('descriptor_mismatch', `${entry.origin} is already admitted with vkey ${have.vkey}; a witness does not switch a log's key`);
  }
  return ok({ config: { ...c, c2spLogs: [...list, r.value] }, changed: true });
}

/**
 * Admit a log: a new origin is added; the same origin with the same key replaces the record (say,
 * to add revokedAt); another key is refused: a witness never silently switches a log's key, and
 * its stored state for the origin stays whatever happens to the config.
 */
export function admitLog(c: WitnessConfig, entry: AdmittedLog): Result<{ config: WitnessConfig; changed: boolean }> {
  const origin = checkOrigin(entry.log);
  if (!origin.ok) return fail('invalid_origin', `--log: ${origin.detail}`);
  const have = c.logs.find((l) => l.log === entry.log);
  if (have) {
    if (
      have.sequencer.publicKey === entry.sequencer.publicKey &&
      have.sequencer.kid === entry.sequencer.kid &&
      have.sequencer.alg === entry.sequencer.alg
    ) {
      if (JSON.stringify(have.sequencer) === JSON.stringify(entry.sequencer)) return ok({ config: c, changed: false });
      return ok({ config: { ...c, logs: c.logs.map((l) => (l.log === entry.log ? entry : l)) }, changed: true });
    }
    return fail(
      'descriptor_mismatch',
      `${entry.log} is already admitted with key ${have.sequencer.kid}; a witness does not switch a log's key`,
    );
  }
  return ok({ config: { ...c, logs: [...c.logs, entry] }, changed: true });
}
