// monitor/config.ts: the monitor's configuration file (docs/monitoring.md), read strictly:
//   {"kind":"MonitorConfig",
//    "logs":[{"origin":ORIGIN, "kind":"cookwala"|"c2sp", "url":SEQUENCER (cookwala),
//             "tiles":PREFIX (c2sp; cookwala default URL/tlog/<origin>/; a cookwala log without
//             url is read whole from the static copy there), "policy":FILE,
//             "keys":FILE?, "staleAfterMs":N?}],
//    "peers":[MONITOR URL…]?, "intervalMs":N?, "staleAfterMs":N?, "idWindow":N?, "pageEntries":N?,
//    "erasureWithinMs":N?, "erasureWithinEntries":N?}
// The policy is a WitnessPolicy JSON file or a C2SP tlog-policy text file
// (verifier/c2sp/tlog-policy.ts), for a C2SP log its `sequencer` key being the log's Ed25519 note key; the key
// cache a KeyCache. Relative paths are read from the config file's directory. Every fault is a
// ConfigError naming what to fix (exit 2). Left out: reloading (restart the monitor).
// Invariant: every log's policy names that log's origin.

import { dirname, resolve } from 'node:path';
import { readBoundedText } from '../platform/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import { policyFromTlog } from '../verifier/c2sp/index.ts';
import { isValidOrigin } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { FollowedLog } from './follow.ts';
import { DEFAULT_ID_WINDOW } from './id-window.ts';
import { PAGE } from './entries-step.ts';
import { DEFAULT_ERASURE_WITHIN_ENTRIES, DEFAULT_ERASURE_WITHIN_MS } from './erasures.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface MonitorConfig {
  logs: FollowedLog[];
  peers: string[];
  intervalMs: number;
}

export const DEFAULT_INTERVAL_MS = 1000;
export const DEFAULT_STALE_AFTER_MS = 5 * 60_000;
const ERASURE_KEYS = ['erasureWithinMs', 'erasureWithinEntries'] as const;

/** The members of a MonitorConfig and what each means (docs/config-reference.md is generated from it). */
export const MONITOR_CONFIG_MEMBERS: Readonly<Record<string, string>> = Object.freeze({
  kind: 'Always "MonitorConfig".',
  logs: 'The logs followed, each an object of the members below (at least one; an origin once).',
  peers: 'Other monitors whose views are compared with ours (`GET <peer>/v1/monitor/views`), http(s) URLs.',
  intervalMs: 'How often each log is read and checked.',
  staleAfterMs:
    'How old the newest cosignature of the served checkpoint (or the last answer) may be before checkpoint_stale; a log may set its own.',
  idWindow: 'Recent (source, id) pairs kept to refuse a repeated event.',
  pageEntries: 'Entries read and checked per request (at most 10,000); a longer catch-up keeps its place after each.',
  erasureWithinMs: 'How long a payload found erased may wait for the erasure entry that names it.',
  erasureWithinEntries: 'How many verified entries a payload found erased may wait for the erasure entry that names it.',
});

/** The defaults of MONITOR_CONFIG_MEMBERS. */
export const DEFAULT_MONITOR_CONFIG: Readonly<Record<string, unknown>> = Object.freeze({
  peers: [],
  intervalMs: DEFAULT_INTERVAL_MS,
  staleAfterMs: DEFAULT_STALE_AFTER_MS,
  idWindow: DEFAULT_ID_WINDOW,
  pageEntries: PAGE,
  erasureWithinMs: DEFAULT_ERASURE_WITHIN_MS,
  erasureWithinEntries: DEFAULT_ERASURE_WITHIN_ENTRIES,
});

/** The members of one entry of `logs`. */
export const MONITOR_LOG_MEMBERS: Readonly<Record<string, string>> = Object.freeze({
  origin: "The log's origin.",
  kind: '"cookwala" (a Cookwala log: entries, payloads, device signatures) or "c2sp" (any C2SP tlog-tiles log: tree and cosignatures).',
  url: "A Cookwala log's sequencer base URL. Without it, a Cookwala log is read whole from the static copy at `tiles` (`cookwala tiles --url … --entries`); a Cookwala log needs `url` or `tiles`.",
  tiles:
    "The tlog-tiles prefix (required for a C2SP log; a Cookwala log's default is `<url>/tlog/<origin>/`), or the root of a Cookwala log's static copy.",
  policy: "The auditor's witness policy: a WitnessPolicy JSON file or a C2SP tlog-policy text file, relative to the config file.",
  keys: 'An optional KeyCache file of device keys beside those the log serves.',
  staleAfterMs: "This log's staleAfterMs.",
});

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readBoundedText(path);
  } catch (e) {
    throw new ConfigError(`cannot read the ${what} ${path}: ${(e as Error).message}`);
  }
}

async function readPolicy(path: string): Promise<WitnessPolicy> {
  const t = await readText(path, 'policy');
  const j = parseJson(t);
  const r = j.ok ? readWitnessPolicy(j.value) : policyFromTlog(t);
  if (!r.ok) throw new ConfigError(`the policy ${path} is neither a WitnessPolicy nor a tlog-policy: ${r.code}: ${r.detail}`);
  return r.value;
}

async function readKeys(path: string | undefined): Promise<KeyRecord[]> {
  if (path === undefined) return [];
  const j = parseJson(await readText(path, 'key cache'));
  const r = j.ok ? readDocument('KeyCache', j.value) : j;
  if (!r.ok) throw new ConfigError(`the key cache ${path} is not a KeyCache: ${r.code}: ${r.detail}`);
  return r.value.all();
}

const isUrl = (u: unknown): u is string => typeof u === 'string' && /^https?:\/\/[^\s]+$/.test(u);
const isMs = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;

export async function readMonitorConfig(path: string): Promise<MonitorConfig> {
  const j = parseJson(await readText(path, 'config'));
  if (!j.ok) throw new ConfigError(`the config ${path} is not JSON: ${j.detail}`);
  const c = j.value as Record<string, unknown>;
  if (c === null || typeof c !== 'object' || c.kind !== 'MonitorConfig') throw new ConfigError(`${path}: kind is not "MonitorConfig"`);
  for (const k of Object.keys(c)) if (!Object.hasOwn(MONITOR_CONFIG_MEMBERS, k)) throw new ConfigError(`${path}: unknown member ${k}`);
  if (!Array.isArray(c.logs) || c.logs.length === 0) throw new ConfigError(`${path}: logs is a non-empty array`);
  const peers = c.peers ?? [];
  if (!Array.isArray(peers) || !peers.every(isUrl)) throw new ConfigError(`${path}: peers is an array of http(s) URLs`);
  for (const k of ['intervalMs', 'staleAfterMs', 'idWindow', 'pageEntries', ...ERASURE_KEYS] as const)
    if (c[k] !== undefined && !isMs(c[k])) throw new ConfigError(`${path}: ${k} is a positive integer`);
  const base = dirname(resolve(path));
  const logs: FollowedLog[] = [];
  for (const [i, raw] of (c.logs as unknown[]).entries()) {
    const l = raw as Record<string, unknown>;
    const at = `${path}: logs[${i}]`;
    if (l === null || typeof l !== 'object') throw new ConfigError(`${at} is an object`);
    for (const k of Object.keys(l)) if (!Object.hasOwn(MONITOR_LOG_MEMBERS, k)) throw new ConfigError(`${at}: unknown member ${k}`);
    if (!isValidOrigin(l.origin)) throw new ConfigError(`${at}: origin is a log origin`);
    const kind = l.kind ?? 'cookwala';
    if (kind !== 'cookwala' && kind !== 'c2sp') throw new ConfigError(`${at}: kind is "cookwala" or "c2sp"`);
    if (l.url !== undefined && !isUrl(l.url)) throw new ConfigError(`${at}: url (the sequencer's base URL) is an http(s) URL`);
    if (kind === 'cookwala' && l.url === undefined && l.tiles === undefined)
      throw new ConfigError(
        `${at}: a cookwala log needs url (the sequencer's base URL) or tiles (its static copy, cookwala tiles --entries)`,
      );
    if (l.tiles !== undefined && !isUrl(l.tiles)) throw new ConfigError(`${at}: tiles is an http(s) URL`);
    if (kind === 'c2sp' && l.tiles === undefined) throw new ConfigError(`${at}: tiles (the log's tlog-tiles prefix) is required`);
    if (typeof l.policy !== 'string') throw new ConfigError(`${at}: policy (a file) is required`);
    if (l.keys !== undefined && typeof l.keys !== 'string') throw new ConfigError(`${at}: keys is a file`);
    if (l.staleAfterMs !== undefined && !isMs(l.staleAfterMs)) throw new ConfigError(`${at}: staleAfterMs is a positive integer`);
    const policy = await readPolicy(resolve(base, l.policy));
    if (policy.log !== l.origin) throw new ConfigError(`${at}: the policy is for ${policy.log}`);
    const url = typeof l.url === 'string' ? l.url.replace(/\/+$/, '') : undefined;
    const tiles = typeof l.tiles === 'string' ? l.tiles.replace(/\/*$/, '/') : `${url}/tlog/${encodeURIComponent(l.origin)}/`;
    logs.push({
      origin: l.origin,
      kind,
      url,
      tiles,
      policy,
      keyCache: await readKeys(typeof l.keys === 'string' ? resolve(base, l.keys) : undefined),
      staleAfterMs: (l.staleAfterMs as number | undefined) ?? (c.staleAfterMs as number | undefined) ?? DEFAULT_STALE_AFTER_MS,
      idWindow: c.idWindow as number | undefined,
      pageEntries: c.pageEntries as number | undefined,
      erasureWithinMs: c.erasureWithinMs as number | undefined,
      erasureWithinEntries: c.erasureWithinEntries as number | undefined,
    });
  }
  if (new Set(logs.map((l) => l.origin)).size !== logs.length) throw new ConfigError(`${path}: a log is listed twice`);
  return { logs, peers: peers as string[], intervalMs: (c.intervalMs as number | undefined) ?? DEFAULT_INTERVAL_MS };
}
