// verifier/c2sp/tlog-policy.ts: a WitnessPolicy (docs/design.md §4) to and from C2SP tlog-policy text
// (c2sp.org/tlog-policy at C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9). To text: one
// `log <vkey>` line (key name = origin, the sequencer's Ed25519 key; a second one for the log's
// ML-DSA-44 key, `logMldsaVkey`, type 0x06, when the policy names it), one `witness <name> <vkey>
// [<url>]` per witness (its cosignature/v1 vkey), and the quorum as `quorum none`, `quorum <name>`
// (one witness, quorum 1) or `group cookwala-quorum <k> <all names>` + `quorum cookwala-quorum`.
// Each of those lines is preceded by a `#cookwala {…}` comment carrying the KeyRecord (without
// vkey/url), which other tools ignore as a comment, so text -> policy -> text loses nothing. From
// text: the grammar of the spec (whitespace = spaces and tabs, `#` comments, names defined before
// use, a member at most once per group, exactly one quorum line, no duplicate keys, the allowed
// octets), then what a WitnessPolicy can express: exactly one log, cosignature/v1 or ML-DSA-44
// (0x06; a witness without its #cookwala record becomes a KeyRecord of alg ML-DSA-44) witness keys,
// and a quorum that is none, the only witness, or one k-of-all group. A line without its
// `#cookwala` record gets a derived KeyRecord: as kid the `wit-` fingerprint of its key (what our
// witnesses sign as: a policy-local name such as `w1` would be a label nothing signs with; a witness
// is its key, ../signing/witness-identity.ts), its key name as owner; the sequencer's kid as our sequencer derives it (`seq-` + the first 8 base64url
// characters of SHA-256(public key)); validFrom 1970, so only the keys decide.
// It leaves out nested groups and several logs (refused: malformed_policy names why), and the
// policy's timeBounds, which tlog-policy has no line for (tlogDrops names them; the CLI says so).
// Invariant: whatever is produced goes through readWitnessPolicy, so it is a valid policy.

import { fail, ok, type Result } from '../errors.ts';
import { sha256 } from '../crypto/default.ts';
import { concatBytes, decodeUtf8, fromBase64url, toBase64url, utf8 } from '../encoding/wire.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { toBase64Std } from './note/base64.ts';
import { parseJson } from '../encoding/strict-json.ts';
import { formatVerifierKey, isCosignatureType, parseVerifierKey, SIG_ED25519, SIG_MLDSA44, type VerifierKey } from './note/keys.ts';
import { logVkeyOf } from '../documents/checkpoint-c2sp.ts';
import type { KeyRecord } from '../signing/keys.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../documents/policy.ts';
import { witnessFingerprint } from '../signing/witness-identity.ts';

export const MAX_POLICY_BYTES = 1 << 20;
export const QUORUM_GROUP = 'cookwala-quorum';
const META = '#cookwala ';
const EPOCH = '1970-01-01T00:00:00.000Z';

const bad = (detail: string, line?: number): Result<never> =>
  fail('malformed_policy', line === undefined ? detail : `line ${line}: ${detail}`, line === undefined ? {} : { line });

/** A tlog-policy witness name for each witness: its kid when usable, else w<i>; unique, never `none` or the group name. */
function witnessNames(ws: readonly KeyRecord[]): string[] {
  const used = new Set(['none', QUORUM_GROUP]);
  return ws.map((w, i) => {
    let n = /^[\x21-\x7e\x80-\uffff]+$/.test(w.kid) && !w.kid.startsWith('#') ? w.kid : `w${i + 1}`;
    while (used.has(n)) n = `${n}-${i + 1}`;
    used.add(n);
    return n;
  });
}

function meta(record: Omit<KeyRecord, 'vkey' | 'url'>): string {
  const j = canonicalize(record);
  if (!j.ok) throw new TypeError(`a KeyRecord that has no JCS form: ${j.detail}`);
  return `${META}${j.value}\n`;
}

/** The policy as tlog-policy text. Refused (malformed_policy) when a witness has no vkey or the sequencer key is not Ed25519. */
export function policyToTlog(p: WitnessPolicy): Result<string> {
  const log = logVkeyOf(p.log, p.sequencer);
  if (!log.ok) return bad(`the sequencer key cannot be a tlog-policy log key: ${log.detail}`);
  const names = witnessNames(p.witnesses);
  const out = [
    `# Witness policy of ${p.log} (c2sp.org/tlog-policy), written by cookwala policy to-tlog.\n`,
    `# The #cookwala lines keep the Cookwala KeyRecords; other tools read them as comments.\n`,
  ];
  out.push(meta(p.sequencer), `log ${log.value}\n`);
  // The log's ML-DSA-44 key is a second log line of the same origin (tlog-policy: any listed log key signs).
  if (p.logMldsaVkey !== undefined) out.push(`log ${p.logMldsaVkey}\n`);
  for (const [i, w] of p.witnesses.entries()) {
    if (w.vkey === undefined)
      return bad(`witness ${w.kid} has no vkey (its cosignature/v1 key), so a tlog-policy verifier could not count it`);
    const { vkey, url, ...rest } = w;
    out.push(meta(rest), `witness ${names[i]} ${vkey}${url ? ` ${url}` : ''}\n`);
  }
  const k = p.quorum;
  if (k === 0) out.push('quorum none\n');
  else if (p.witnesses.length === 1) out.push(`quorum ${names[0]}\n`);
  else out.push(`group ${QUORUM_GROUP} ${k === p.witnesses.length ? 'all' : k} ${names.join(' ')}\n`, `quorum ${QUORUM_GROUP}\n`);
  return ok(out.join(''));
}

/**
 * What policyToTlog leaves out, one sentence each (the CLI says them on stderr). tlog-policy has
 * line types for logs, witnesses, groups and the quorum only, so the policy's timeBounds (whether
 * the log must declare time bounds, and the caps on them) have no place there; from-tlog reads a
 * policy without them: bounds required, capped only by the format's limits.
 */
export function tlogDrops(p: WitnessPolicy): string[] {
  if (p.timeBounds === undefined) return [];
  const { required, maxClockSkewMs, maxDeliveryDelayMs } = p.timeBounds;
  const parts = [
    ...(required !== undefined ? [`required ${required}`] : []),
    ...(maxClockSkewMs !== undefined ? [`maxClockSkewMs ${maxClockSkewMs}`] : []),
    ...(maxDeliveryDelayMs !== undefined ? [`maxDeliveryDelayMs ${maxDeliveryDelayMs}`] : []),
  ];
  return [
    `timeBounds (${parts.join(', ') || 'empty'}): tlog-policy has no line for time bounds; the text read back requires them, capped only by the format's limits`,
  ];
}

interface Def {
  kind: 'witness' | 'group';
  /** For a group: threshold and members. */
  k?: number;
  members?: string[];
  index?: number;
}

function recordFromMeta(json: string | undefined, line: number): Result<Record<string, unknown> | undefined> {
  if (json === undefined) return ok(undefined);
  const r = parseJson(json);
  if (!r.ok) return bad(`the #cookwala record is not JSON: ${r.detail}`, line);
  if (r.value === null || typeof r.value !== 'object' || Array.isArray(r.value)) return bad('the #cookwala record is not an object', line);
  return ok(r.value as Record<string, unknown>);
}

function sameRawKey(rec: Record<string, unknown> | undefined, key: VerifierKey): boolean {
  if (!rec || rec.alg !== 'EdDSA' || typeof rec.publicKey !== 'string') return false;
  const b = fromBase64url(rec.publicKey);
  return b.ok && toBase64url(b.value) === toBase64url(key.publicKey);
}

/** tlog-policy text as a WitnessPolicy (then read strictly with readWitnessPolicy). */
export function policyFromTlog(text: string | Uint8Array): Result<WitnessPolicy> {
  const bytes = typeof text === 'string' ? utf8(text) : text;
  if (bytes.length > MAX_POLICY_BYTES) return bad(`a policy of ${bytes.length} bytes exceeds ${MAX_POLICY_BYTES}`);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (!(b === 0x09 || b === 0x0a || (b >= 0x20 && b <= 0x7e) || b >= 0x80))
      return bad(`octet 0x${b.toString(16).padStart(2, '0')} at byte ${i} is not allowed (tab, newline, 0x20-0x7E, 0x80-0xFF only)`);
  }
  const decoded = typeof text === 'string' ? ok(text) : decodeUtf8(text);
  if (!decoded.ok) return bad('the policy text is not UTF-8 (names and comments are compared as UTF-8 here)');
  const s = decoded.value;
  const lines = s.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length > 10_000) return bad('more than 10000 lines');
  const defs = new Map<string, Def>();
  let log: { key: VerifierKey; url?: string; meta?: Record<string, unknown> } | undefined;
  let logMldsa: VerifierKey | undefined;
  const witnesses: Array<{ name: string; key: VerifierKey; url?: string; meta?: Record<string, unknown> }> = [];
  let quorum: string | undefined;
  let pendingMeta: string | undefined;
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    const trimmed = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    if (trimmed.startsWith(META.trimEnd() + ' ') && raw.startsWith(META)) {
      pendingMeta = raw.slice(META.length);
      continue;
    }
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = recordFromMeta(pendingMeta, n - 1);
    pendingMeta = undefined;
    if (!m.ok) return m;
    const f = trimmed.split(/[ \t]+/);
    const word = f[0];
    if (word === 'log') {
      if (f.length < 2 || f.length > 3) return bad('log <vkey> [<url>]', n);
      const k = parseVerifierKey(f[1]);
      if (!k.ok) return bad(`log vkey: ${k.detail}`, n);
      // One log, named by its Ed25519 key and optionally also by its ML-DSA-44 key (same origin).
      const other = log?.key ?? logMldsa;
      if (other && other.name !== k.value.name) return bad('a WitnessPolicy names one log; this policy lists several', n);
      if (k.value.type === SIG_MLDSA44) {
        if (logMldsa) return bad('a WitnessPolicy names one log; this policy lists two ML-DSA-44 log keys', n);
        logMldsa = k.value;
        continue;
      }
      if (log) return bad('a WitnessPolicy names one log; this policy lists several', n);
      if (k.value.type !== SIG_ED25519) return bad('the log key must be Ed25519 (type 0x01) or ML-DSA-44 (type 0x06)', n);
      log = { key: k.value, url: f[2], meta: m.value };
    } else if (word === 'witness') {
      if (f.length < 3 || f.length > 4) return bad('witness <name> <vkey> [<url>]', n);
      const name = f[1];
      if (name === 'none' || defs.has(name)) return bad(`the name ${name} is ${name === 'none' ? 'reserved' : 'defined twice'}`, n);
      const k = parseVerifierKey(f[2]);
      if (!k.ok) return bad(`witness ${name} vkey: ${k.detail}`, n);
      if (!isCosignatureType(k.value.type))
        return bad(`witness ${name}: only cosignature/v1 (type 0x04) and ML-DSA-44 (type 0x06) keys can be checked here`, n);
      const raw = toBase64url(k.value.publicKey);
      if (witnesses.some((w) => toBase64url(w.key.publicKey) === raw) || (log && toBase64url(log.key.publicKey) === raw))
        return bad(`witness ${name} duplicates another key`, n);
      defs.set(name, { kind: 'witness', index: witnesses.length });
      witnesses.push({ name, key: k.value, url: f[3], meta: m.value });
    } else if (word === 'group') {
      if (f.length < 4) return bad('group <name> all|any|<k> <name>...', n);
      const name = f[1];
      if (name === 'none' || defs.has(name)) return bad(`the name ${name} is ${name === 'none' ? 'reserved' : 'defined twice'}`, n);
      const members = f.slice(3);
      if (new Set(members).size !== members.length) return bad(`group ${name} lists a member twice`, n);
      for (const x of members) if (!defs.has(x)) return bad(`group ${name}: ${x} is not defined on a preceding line`, n);
      const k = f[2] === 'all' ? members.length : f[2] === 'any' ? 1 : /^[1-9][0-9]{0,3}$/.test(f[2]) ? Number(f[2]) : NaN;
      if (!(k >= 1 && k <= members.length)) return bad(`group ${name}: threshold ${f[2]} is not all, any or 1..${members.length}`, n);
      defs.set(name, { kind: 'group', k, members });
    } else if (word === 'quorum') {
      if (f.length !== 2) return bad('quorum <name>', n);
      if (quorum !== undefined) return bad('a policy has exactly one quorum line', n);
      if (f[1] !== 'none' && !defs.has(f[1])) return bad(`quorum ${f[1]} is not defined on a preceding line`, n);
      quorum = f[1];
    } else return bad(`unknown line kind ${JSON.stringify(word.slice(0, 40))}`, n);
  }
  if (!log)
    return bad(
      logMldsa
        ? 'no Ed25519 log line: a WitnessPolicy names the sequencer by its Ed25519 key (an ML-DSA-44 log line may come beside it)'
        : 'no log line: a WitnessPolicy is the policy of one log',
    );
  if (quorum === undefined) return bad('no quorum line');
  let k: number;
  if (quorum === 'none') k = 0;
  else {
    const d = defs.get(quorum)!;
    if (d.kind === 'witness') {
      if (witnesses.length !== 1)
        return bad(`quorum ${quorum} names one witness of ${witnesses.length}; a WitnessPolicy counts any k of all its witnesses`);
      k = 1;
    } else {
      const all = new Set(witnesses.map((w) => w.name));
      if (d.members!.some((x) => defs.get(x)!.kind !== 'witness') || d.members!.length !== all.size)
        return bad(
          `quorum group ${quorum} is not one group over all ${all.size} witnesses; nested or partial groups have no WitnessPolicy form`,
        );
      k = d.k!;
    }
  }
  const origin = log.key.name;
  const seqKey = toBase64url(log.key.publicKey);
  const sequencer = (sameRawKey(log.meta, log.key)
    ? log.meta
    : {
        kind: 'KeyRecord',
        kid: `seq-${toBase64url(sha256(log.key.publicKey)).slice(0, 8)}`,
        alg: 'EdDSA',
        publicKey: seqKey,
        owner: 'cookwala:sequencer',
        role: 'sequencer',
        validFrom: EPOCH,
      }) as unknown as KeyRecord;
  const ws = witnesses.map((w) => {
    const base = (w.meta && typeof w.meta.publicKey === 'string'
      ? w.meta
      : {
          kind: 'KeyRecord',
          // A witness known by its ML-DSA-44 key alone is an ML-DSA-44 record (docs/design.md §7a).
          kid: witnessFingerprint({
            alg: w.key.type === SIG_MLDSA44 ? 'ML-DSA-44' : 'EdDSA',
            publicKey: toBase64url(w.key.publicKey),
          }),
          alg: w.key.type === SIG_MLDSA44 ? 'ML-DSA-44' : 'EdDSA',
          publicKey: toBase64url(w.key.publicKey),
          owner: w.key.name,
          role: 'witness',
          validFrom: EPOCH,
        }) as unknown as KeyRecord;
    const vkey = `${w.key.name}+${w.key.keyId}+${toBase64Std(concatBytes(Uint8Array.of(w.key.type), w.key.publicKey))}`;
    return { ...base, vkey, ...(w.url ? { url: w.url } : {}) };
  });
  const pq = logMldsa ? { logMldsaVkey: formatVerifierKey(logMldsa.name, SIG_MLDSA44, logMldsa.publicKey) } : {};
  return readWitnessPolicy({ kind: 'WitnessPolicy', log: origin, sequencer, witnesses: ws, quorum: k, ...pq });
}
