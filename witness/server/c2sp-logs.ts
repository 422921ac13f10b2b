// witness/server/c2sp-logs.ts: which C2SP logs this witness cosigns (docs/design.md §7a). A C2SP log is
// admitted by origin + signed-note vkey (Ed25519 0x01 or ECDSA P-256 0x02; `cookwala witness
// add-log --origin O --vkey V`, or learned from a followed `logs/v0` list); every Cookwala log
// admitted by its sequencer KeyRecord is also a C2SP log, with the vkey derived from that key
// (note-cosigner.ts logVkeyOf). The registry answers "which note verifiers for this origin".
// The `logs/v0` list format is the witness network's, as its validator reads it:
// transparency-dev/witness-network cmd/validate/main.go at commit
// 04704dec18c08cbe079353d2b953aa9cf58f0d2f (docs/log-list-format.md at 05bd68d12dafd9e4f9ca59b8b7042aaa832e5169):
// lines trimmed of surrounding whitespace (and a final \r), blank lines and lines starting with
// `#` ignored; the first line is `logs/v0`; then per log, in order: `vkey <vkey>`, an optional
// `origin <origin>` (absent: the vkey's key name), `qpd <positive integer>`, `contact <text>`.
// Invariants: admission is add-only: an origin once admitted keeps its key; a list or command
// naming another key for it is refused (and reported), never applied; a list that drops a log
// un-admits nothing. Pure code (reading the list is log-list-follow.ts's).

import { fail, ok, type Failure, type Result } from '../../verifier/index.ts';
import { createNoteVerifier, parseVerifierKey, SIG_COSIGNATURE_V1, type NoteVerifier } from '../../verifier/c2sp/note/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { isValidOrigin } from '../../verifier/documents/index.ts';
import { isVendorMember } from '../../verifier/signing/index.ts';
import { logVkeyOf } from './note-cosigner.ts';
import type { AdmittedLog } from './add-checkpoint.ts';

export interface C2spLog {
  origin: string;
  vkey: string;
}

export interface LogListEntry extends C2spLog {
  qpd: number;
  contact: string;
}

/** Largest list read (the network's 1M-log lists are ~150 MB; a witness follows smaller ones). */
export const MAX_LOG_LIST_BYTES = 32 * 1024 * 1024;
export const MAX_LOG_LIST_ENTRIES = 200_000;
const MAX_ORIGIN_CHARS = 1024;

/** A vkey a log can sign checkpoints with: parses, is verifiable here, and is not a cosigner key. */
export function checkLogVkey(vkey: string, backend?: CryptoBackend): Result<NoteVerifier> {
  const k = checkLogVkeyShape(vkey, 'now');
  if (!k.ok) return k;
  return createNoteVerifier(vkey, backend);
}

/**
 * The same checks without making a verifier; keyRule 'on-use' leaves the Ed25519 key rule to the
 * verifier made at the log's first checkpoint (checkLogVkey), so 40,000 vkeys read in well under a
 * second. A vkey that breaks the rule is then refused at every checkpoint, never trusted.
 */
export function checkLogVkeyShape(vkey: string, keyRule: 'now' | 'on-use'): Result<{ name: string }> {
  const k = parseVerifierKey(vkey, keyRule === 'now');
  if (!k.ok) return k;
  if (k.value.type === SIG_COSIGNATURE_V1)
    return fail('key_role_mismatch', `${k.value.name}+${k.value.keyId} is a cosignature/v1 (witness) key, not a log key`);
  if (!k.value.supported)
    return fail(
      'unsupported_alg',
      `signed-note signature type 0x${k.value.type.toString(16).padStart(2, '0')} of key ${k.value.name}+${k.value.keyId} cannot be verified here`,
    );
  return ok({ name: k.value.name });
}

function originOk(o: unknown): o is string {
  // A C2SP origin is any non-empty line of note text; ours must also be usable as a log name.
  return typeof o === 'string' && o.length > 0 && o.length <= MAX_ORIGIN_CHARS && !/[\u0000-\u001f\u007f]/.test(o) && o.trim() === o;
}

/** One `c2spLogs` member of the witness config: {origin, vkey}. */
export function readC2spLog(json: unknown, where = 'c2spLog', keyRule: 'now' | 'on-use' = 'now'): Result<C2spLog> {
  const l = json as Record<string, unknown>;
  if (!l || typeof l !== 'object' || Array.isArray(l)) return fail('invalid_document', `${where} is {origin, vkey}`);
  for (const k of Object.keys(l)) if (k !== 'origin' && k !== 'vkey' && !isVendorMember(k)) return fail('unknown_field', `${where}.${k}`);
  if (!originOk(l.origin)) return fail('invalid_document', `${where}.origin is a checkpoint origin line`);
  if (typeof l.vkey !== 'string') return fail('invalid_document', `${where}.vkey is a signed-note vkey`);
  const v = checkLogVkeyShape(l.vkey, keyRule);
  if (!v.ok) return fail(v.code, `${where}.vkey: ${v.detail}`);
  return ok({ origin: l.origin, vkey: l.vkey });
}

/** Parse a logs/v0 list (format and source in the header). */
export function parseLogListV0(text: string, keyRule: 'now' | 'on-use' = 'now'): Result<LogListEntry[]> {
  if (typeof text !== 'string') return fail('bad_request', 'a log list is text');
  if (text.length > MAX_LOG_LIST_BYTES) return fail('body_too_large', `a log list over ${MAX_LOG_LIST_BYTES} bytes`);
  const out: LogListEntry[] = [];
  let header = false;
  let cur: Partial<LogListEntry> | undefined;
  let want: 'vkey' | 'origin-or-qpd' | 'qpd' | 'contact' = 'vkey';
  const lines = text.split('\n');
  const bad = (n: number, d: string): Failure => fail('invalid_document', `log list line ${n}: ${d}`);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith('\r')) line = line.slice(0, -1);
    line = line.trim();
    if (line === '' || line.startsWith('#')) continue;
    const n = i + 1;
    if (!header) {
      if (line !== 'logs/v0') return bad(n, `expected the logs/v0 header, found ${JSON.stringify(line.slice(0, 40))}`);
      header = true;
      continue;
    }
    const sp = line.indexOf(' ');
    const word = sp < 0 ? line : line.slice(0, sp);
    const arg = sp < 0 ? '' : line.slice(sp + 1);
    if (want === 'vkey') {
      if (word !== 'vkey') return bad(n, `expected vkey, found ${JSON.stringify(word.slice(0, 20))}`);
      if (arg === '' || arg.includes(' ')) return bad(n, 'vkey takes exactly one parameter');
      const v = checkLogVkeyShape(arg, keyRule);
      if (!v.ok) return bad(n, `invalid vkey: ${v.detail}`);
      cur = { vkey: arg, origin: v.value.name };
      want = 'origin-or-qpd';
      continue;
    }
    if (want === 'origin-or-qpd' || want === 'qpd') {
      if (word === 'origin' && want === 'origin-or-qpd') {
        if (!originOk(arg)) return bad(n, 'origin takes the log origin line');
        cur!.origin = arg;
        want = 'qpd';
        continue;
      }
      if (word !== 'qpd' && want === 'qpd') return bad(n, `expected qpd, found ${JSON.stringify(word.slice(0, 20))}`);
      if (word !== 'qpd') return bad(n, `expected origin or qpd, found ${JSON.stringify(word.slice(0, 20))}`);
      if (!/^[1-9][0-9]{0,15}$/.test(arg)) return bad(n, 'qpd takes one positive integer');
      cur!.qpd = Number(arg);
      want = 'contact';
      continue;
    }
    if (word !== 'contact') return bad(n, `expected contact, found ${JSON.stringify(word.slice(0, 20))}`);
    if (arg === '') return bad(n, 'no contact details');
    cur!.contact = arg;
    out.push(cur as LogListEntry);
    if (out.length > MAX_LOG_LIST_ENTRIES) return fail('body_too_large', `a log list with more than ${MAX_LOG_LIST_ENTRIES} logs`);
    cur = undefined;
    want = 'vkey';
  }
  if (!header) return fail('invalid_document', 'a log list starts with logs/v0');
  if (want !== 'vkey') return fail('invalid_document', 'the last log of the list is incomplete');
  return ok(out);
}

export interface LogRegistry {
  /** The note verifiers trusted for an origin (C2SP-admitted or derived from a Cookwala log key). */
  get(origin: string): readonly NoteVerifier[] | undefined;
  /** The vkey admitted for an origin. */
  vkeyOf(origin: string): string | undefined;
  /** Admit a C2SP log; the same key again is a no-op; another key for a known origin is refused. */
  admit(l: C2spLog): Result<{ added: boolean }>;
  /** Admit a Cookwala log by its sequencer key (its note vkey); add-only like admit. */
  admitCookwala(l: AdmittedLog): Result<{ added: boolean }>;
  origins(): string[];
  size(): number;
}

/** The registry over the Cookwala logs (by KeyRecord) and the C2SP logs (by vkey) of a witness. */
export function createLogRegistry(
  cookwala: readonly AdmittedLog[],
  c2sp: readonly C2spLog[],
  backend?: CryptoBackend,
): Result<LogRegistry> {
  // A Cookwala log's verifier is made on its first checkpoint (`verifiers` undefined until then):
  // making it runs the Ed25519 key rule (about 1 ms a key), which at 40,000 logs would be the
  // whole start-up. Its key was checked when it was admitted, and is again when first used.
  const map = new Map<string, { vkey: string; verifiers?: NoteVerifier[] }>();
  const verifiersOf = (o: string): readonly NoteVerifier[] | undefined => {
    const e = map.get(o);
    if (!e || e.verifiers) return e?.verifiers;
    const v = checkLogVkey(e.vkey, backend);
    e.verifiers = v.ok ? [v.value] : [];
    return e.verifiers;
  };
  const admit = (l: C2spLog): Result<{ added: boolean }> => {
    const have = map.get(l.origin);
    if (have) {
      if (have.vkey === l.vkey) return ok({ added: false });
      return fail(
        'descriptor_mismatch',
        `${l.origin} is admitted with vkey ${have.vkey}; a witness does not switch a log's key (offered ${l.vkey.slice(0, 200)})`,
      );
    }
    if (!originOk(l.origin))
      return fail('invalid_document', `origin ${JSON.stringify(String(l.origin).slice(0, 80))} is not an origin line`);
    // The verifier (and with it the key rule) waits for the log's first checkpoint: verifiersOf.
    const v = checkLogVkeyShape(l.vkey, 'on-use');
    if (!v.ok) return v;
    map.set(l.origin, { vkey: l.vkey });
    return ok({ added: true });
  };
  const admitCookwala = (l: AdmittedLog): Result<{ added: boolean }> => {
    if (!isValidOrigin(l.log)) return ok({ added: false });
    const vk = logVkeyOf(l.log, l.sequencer, false);
    // An ES256 sequencer has no Ed25519 note form: its log is reachable over libp2p only.
    if (!vk.ok) return ok({ added: false });
    const have = map.get(l.log);
    if (have && have.vkey !== vk.value) return fail('descriptor_mismatch', `${l.log} is admitted twice with other keys`);
    if (have) return ok({ added: false });
    map.set(l.log, { vkey: vk.value });
    return ok({ added: true });
  };
  for (const l of cookwala) {
    const r = admitCookwala(l);
    if (!r.ok) return r;
  }
  for (const l of c2sp) {
    const r = admit(l);
    if (!r.ok) return r;
  }
  return ok({
    get: verifiersOf,
    vkeyOf: (o) => map.get(o)?.vkey,
    admit,
    admitCookwala,
    origins: () => [...map.keys()],
    size: () => map.size,
  });
}
