// sequencer/cli-policy.ts: the operator's witness set-up as commands, so nobody edits
// policy.json or config.json by hand (docs/policy.md):
//   cookwala policy add-witness --data SEQ --from CARD [--transport libp2p|http] [--url URL] [--quorum K]
//   cookwala policy add-witness --data SEQ --vkey VKEY --url URL [--quorum K]
//   cookwala policy show (--data SEQ | --policy FILE) [--json]
// A witness is its public key (verifier/signing/witness-identity.ts). add-witness takes the
// witness's card (witness/wire/witness-info.ts: KeyRecord, C2SP name and vkey, peer id, multiaddrs,
// status URL; from the witness-info.json `cookwala witness init` keeps, or from a running witness's
// status URL), or, for any C2SP witness (omniwitness, litewitness, Sunlight's), just its vkey and
// submission URL; the policy record keeps the vkey. The transport: libp2p (the card's first
// multiaddr goes to config.witnessPeers as {multiaddr, alg, publicKey}, so the sequencer knows
// which witness a peer is before it answers) or http (the record's `url`: C2SP tlog-witness). The
// same key again updates its record and transport (never a second witness); the quorum: --quorum
// K, else 1 when it was 0. Both files are replaced atomically; a running `cookwala sequencer` picks
// the change up itself (it watches both files: sequencer/cli.ts). `--url` alone (no --from, no
// --vkey) is a running cookwala witness's status URL, as `--from URL`.
// Exit 0 done, 1 the policy file is bad (show), 2 the input or the environment is unusable (one
// line naming the flag). Left out: remove-witness (start from a new policy, or edit the two
// files); tlog-policy text (the `to-tlog`/`from-tlog` subcommands, bin/policy.ts).

import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { claimDataDir, DEFAULT_DIRS } from '../platform/index.ts';
import { getSmallJson } from '../platform/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import type { Result } from '../verifier/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { findWitness, sameWitness, witnessDisplayName, witnessFingerprint } from '../verifier/signing/index.ts';
import { parseVerifierKey, SIG_COSIGNATURE_V1 } from '../verifier/c2sp/note/index.ts';
import { toBase64url } from '../verifier/encoding/index.ts';
import { readWitnessInfo, type WitnessInfoCard } from '../witness/wire/index.ts';
import { readConfig, type SequencerConfig } from './config.ts';
import { saveConfig, writeFileDurable } from './data-dir.ts';

export const ADD_WITNESS_USAGE = `usage: cookwala policy add-witness --data SEQ --from CARD [--transport libp2p|http] [--url URL] [--quorum K]
       cookwala policy add-witness --data SEQ --vkey VKEY --url URL [--quorum K]

Adds a witness to the sequencer's witness policy (SEQ/policy.json). A witness is its public key:
adding the same key again updates its record and transport, never a second witness.
  --from CARD       the witness-info.json \`cookwala witness init\` wrote, or a running cookwala
                    witness's status URL (http://HOST:PORT); its C2SP vkey is kept
  --transport T     libp2p (default when the card has a multiaddr: it goes to SEQ/config.json
                    witnessPeers) or http (C2SP tlog-witness: POST <url>/add-checkpoint)
  --url URL         with --transport http: the submission prefix (default: the card's status URL)
  --vkey VKEY       any C2SP witness (omniwitness, litewitness, Sunlight's…) by its cosignature/v1
                    verifier key, asked over HTTP at --url
  --quorum K        how many witnesses must cosign before a checkpoint is published (default:
                    unchanged, and 1 if it was 0)
--url alone is a running cookwala witness's status URL, as --from URL. A running sequencer picks
the change up by itself.`;

export const SHOW_USAGE = `usage: cookwala policy show (--data SEQ | --policy FILE) [--json]

Prints a witness policy: the log, the sequencer key, each witness by its name and key fingerprint
with its transport (libp2p multiaddr from SEQ/config.json, or C2SP HTTP URL) and vkey, and the
quorum; says so when the log is unwitnessed (quorum 0).`;

const out = (s: string) => process.stdout.write(s + '\n');
const err = (s: string) => process.stderr.write(s + '\n');

async function readJsonFile(path: string, flag: string): Promise<Result<unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    return {
      ok: false,
      code: 'not_found',
      detail: `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check ${flag}`,
    };
  }
  const j = parseJson(text);
  return j.ok ? j : { ok: false, code: j.code, detail: `${path} is not JSON (${j.code}: ${j.detail}): check ${flag}` };
}

/** A running witness's card: its KeyRecord (well-known) and its peer id and multiaddrs (/v1/logs). */
async function cardFromUrl(url: string, flag: string): Promise<Result<WitnessInfoCard>> {
  const base = url.replace(/\/+$/, '');
  const wk = await getSmallJson(`${base}/.well-known/cookwala.json`, flag, 10_000, base);
  if (!wk.ok) return wk;
  const keys = (wk.value.body as { keys?: unknown[] } | undefined)?.keys;
  const key = Array.isArray(keys) ? (keys[0] as { role?: string } | undefined) : undefined;
  if (wk.value.status !== 200 || !key) return { ok: false, code: 'not_found', detail: `${base} is not a cookwala service: check ${flag}` };
  if (key.role !== 'witness')
    return {
      ok: false,
      code: 'not_found',
      detail: `${base} is a cookwala ${key.role ?? 'service'}, not a witness: point ${flag} at the witness's status URL (\`witness init\` prints it)`,
    };
  const logs = await getSmallJson(`${base}/v1/logs`, flag);
  if (!logs.ok) return logs;
  const b = logs.value.body as { peerId?: unknown; multiaddrs?: unknown; c2sp?: unknown } | undefined;
  return readWitnessInfo({
    peerId: b?.peerId,
    multiaddrs: b?.multiaddrs,
    http: base,
    keyRecord: key,
    ...(b?.c2sp ? { c2sp: b.c2sp } : {}),
  });
}

function peerOf(addr: string): string | undefined {
  return /\/p2p\/([^/]+)/.exec(addr)?.[1];
}

const peerAddr = (p: unknown): string | undefined => (typeof p === 'string' ? p : ((p as { multiaddr?: unknown })?.multiaddr as string));

/** How the sequencer asks a witness: over libp2p (a multiaddr in witnessPeers) or C2SP HTTP (the record's url). */
export type Transport = 'libp2p' | 'http';

export interface AddWitnessOptions {
  transport?: Transport;
  /** The C2SP submission prefix (transport http). */
  url?: string;
}

/**
 * Pure: the policy and the peer list with one witness added, or its record and transport updated
 * when the policy already holds its key (found by key, witness-identity.ts, never by kid).
 */
export function addWitness(
  policy: WitnessPolicy,
  peers: unknown[],
  card: WitnessInfoCard,
  quorum: number | undefined,
  opts: AddWitnessOptions = {},
): Result<{ policy: WitnessPolicy; peers: unknown[]; added: boolean; addr: string | undefined; transport: Transport; url?: string }> {
  const addrOf = () => card.multiaddrs.find((a) => peerOf(a) === card.peerId) ?? card.multiaddrs[0];
  const transport: Transport = opts.transport ?? (opts.url || (!addrOf() && card.http && card.c2sp) ? 'http' : 'libp2p');
  const { vkey: _v, url: _u, ...bare } = card.keyRecord;
  const record: KeyRecord = { ...bare, ...(card.c2sp ? { vkey: card.c2sp.vkey } : {}) };
  if (sameWitness(record, policy.sequencer))
    return { ok: false, code: 'key_role_mismatch', detail: "that key is the sequencer's own: it can never count as a witness" };
  let url: string | undefined;
  if (transport === 'http') {
    url = opts.url ?? card.http;
    if (!record.vkey)
      return {
        ok: false,
        code: 'invalid_document',
        detail: 'the witness has no C2SP vkey, so it cannot be asked over HTTP: use --transport libp2p',
      };
    if (!url) return { ok: false, code: 'invalid_document', detail: "give --url, the witness's C2SP submission prefix" };
    record.url = url;
  }
  const existing = findWitness(policy.witnesses, record);
  const clash = policy.witnesses.find((w) => w !== existing && w.kid === record.kid); // label, not identity: kids stay distinct labels
  if (clash) return { ok: false, code: 'key_conflict', detail: `the policy already has another witness key with kid ${clash.kid}` };
  const witnesses = existing ? policy.witnesses.map((w) => (w === existing ? record : w)) : [...policy.witnesses, record];
  // Peers of this witness (same peer id, or entries naming its key) go; libp2p puts its address back.
  const kept = peers.filter((p) => {
    const a = peerAddr(p);
    const key = (p as { publicKey?: unknown } | null)?.publicKey;
    if (typeof key === 'string' && sameWitness({ alg: record.alg, publicKey: key }, record)) return false;
    return typeof a !== 'string' || !card.peerId || peerOf(a) !== card.peerId;
  });
  const addr = transport === 'libp2p' ? addrOf() : undefined;
  if (transport === 'libp2p' && !addr && !card.peerId)
    return { ok: false, code: 'invalid_document', detail: 'the card names no libp2p address: use --transport http --url URL' };
  const q = quorum ?? (policy.quorum === 0 ? 1 : policy.quorum);
  if (q > witnesses.length)
    return {
      ok: false,
      code: 'invalid_document',
      detail: `--quorum ${q} needs ${q} witnesses; the policy has ${witnesses.length}: add the others first`,
    };
  const entry = addr ? [{ multiaddr: addr, alg: record.alg, publicKey: record.publicKey }] : [];
  const next = { ...policy, witnesses, quorum: q };
  const checked = readWitnessPolicy(next);
  if (!checked.ok) return checked;
  return { ok: true, value: { policy: next, peers: [...kept, ...entry], added: !existing, addr, transport, ...(url ? { url } : {}) } };
}

/** A witness known only by its C2SP vkey (any C2SP witness): a card with a KeyRecord derived from the key. */
export function cardFromVkey(vkey: string): Result<WitnessInfoCard> {
  const k = parseVerifierKey(vkey);
  if (!k.ok) return { ok: false, code: k.code, detail: `--vkey: ${k.detail}` };
  if (k.value.type !== SIG_COSIGNATURE_V1)
    return {
      ok: false,
      code: 'unsupported_alg',
      detail: `--vkey is of type 0x${k.value.type.toString(16)}; a witness vkey is cosignature/v1 (0x04)`,
    };
  const publicKey = toBase64url(k.value.publicKey);
  const keyRecord: KeyRecord = {
    kind: 'KeyRecord',
    kid: witnessFingerprint({ alg: 'EdDSA', publicKey }),
    alg: 'EdDSA',
    publicKey,
    owner: k.value.name,
    role: 'witness',
    validFrom: '1970-01-01T00:00:00.000Z',
  };
  return { ok: true, value: { peerId: '', multiaddrs: [], keyRecord, c2sp: { name: k.value.name, vkey } } };
}

/** How `show` and add-witness name a witness's transports: its multiaddrs (by key or peer id) and its url. */
export function transportsOf(w: KeyRecord, peers: unknown[]): Array<{ transport: Transport; addr: string }> {
  const out: Array<{ transport: Transport; addr: string }> = [];
  for (const p of peers) {
    const key = (p as { publicKey?: unknown } | null)?.publicKey;
    const a = peerAddr(p);
    if (typeof a === 'string' && typeof key === 'string' && sameWitness({ alg: w.alg, publicKey: key }, w))
      out.push({ transport: 'libp2p', addr: a });
  }
  if (w.url) out.push({ transport: 'http', addr: w.url });
  return out;
}

async function loadSeq(dir: string): Promise<Result<{ config: SequencerConfig; policyPath: string; policy: WitnessPolicy }>> {
  const claim = await claimDataDir(dir, 'sequencer', { create: false, createWith: `cookwala init --data ${dir}` });
  if (!claim.ok) return { ok: false, code: 'not_found', detail: claim.reason };
  const cj = await readJsonFile(join(dir, 'config.json'), '--data');
  if (!cj.ok) return cj;
  const config = readConfig(cj.value);
  if (!config.ok) return { ok: false, code: config.code, detail: `${join(dir, 'config.json')}: ${config.detail}` };
  const policyPath = join(dir, config.value.policy);
  const pj = await readJsonFile(policyPath, '--data');
  if (!pj.ok) return pj;
  const p = readWitnessPolicy(pj.value);
  if (!p.ok) return { ok: false, code: p.code, detail: `${policyPath}: ${p.detail}` };
  return { ok: true, value: { config: config.value, policyPath, policy: p.value } };
}

export function runAddWitness(argv: string[]): Promise<number> {
  return runCli(argv, ADD_WITNESS_USAGE, async () => {
    const { values } = parseFlags(
      argv,
      {
        data: { type: 'string' },
        from: { type: 'string' },
        url: { type: 'string' },
        vkey: { type: 'string' },
        transport: { type: 'string' },
        quorum: { type: 'string' },
      },
      false,
    );
    if (values.from && values.vkey) throw new UsageError('give --from CARD or --vkey VKEY, not both');
    if (!values.from && !values.vkey && !values.url)
      throw new UsageError('give --from W/witness-info.json (or a witness status URL), or --vkey VKEY --url URL');
    if (values.url && !/^https?:\/\//.test(values.url)) throw new UsageError('--url is an http(s) URL');
    if (values.vkey && !values.url) throw new UsageError("--vkey needs --url, the witness's C2SP submission prefix");
    if (values.transport !== undefined && values.transport !== 'libp2p' && values.transport !== 'http')
      throw new UsageError('--transport is libp2p or http');
    if (values.vkey && values.transport === 'libp2p') throw new UsageError('a witness known by --vkey is asked over http');
    const quorum = values.quorum === undefined ? undefined : Number(values.quorum);
    if (quorum !== undefined && (!/^[0-9]{1,3}$/.test(values.quorum!) || quorum < 1))
      throw new UsageError('--quorum is a positive integer');
    const dir = values.data ?? DEFAULT_DIRS.sequencer;
    const seq = await loadSeq(dir);
    if (!seq.ok) return (err(`cookwala policy add-witness: ${seq.detail}`), 2);
    // --url alone: a running cookwala witness's status URL (its card), as --from URL.
    const legacy = !values.from && !values.vkey;
    const from = legacy ? values.url : values.from;
    let card: Result<WitnessInfoCard>;
    if (values.vkey) card = cardFromVkey(values.vkey);
    else if (/^https?:\/\//.test(from!)) card = await cardFromUrl(from!, legacy ? '--url' : '--from');
    else {
      const j = await readJsonFile(from!, '--from');
      card = j.ok ? readWitnessInfo(j.value) : j;
      if (!card.ok && j.ok) card = { ...card, detail: `${from} is not a witness-info.json (${card.detail}): check --from` };
    }
    if (!card.ok) return (err(`cookwala policy add-witness: ${card.detail}`), 2);
    const transport = values.vkey ? 'http' : (values.transport as Transport | undefined);
    const r = addWitness(seq.value.policy, seq.value.config.witnessPeers, card.value, quorum, {
      transport,
      url: legacy ? undefined : values.url,
    });
    if (!r.ok) return (err(`cookwala policy add-witness: ${r.detail}`), 2);
    // config.json first: a sequencer that reloads between the two writes sees the new peer with
    // the old policy, which asks nothing of it; the other order would ask a quorum it cannot reach.
    await saveConfig(dir, { ...seq.value.config, witnessPeers: r.value.peers });
    await writeFileDurable(seq.value.policyPath, JSON.stringify(r.value.policy, null, 2) + '\n');
    const k = r.value.policy.witnesses.find((w) => sameWitness(w, card.value.keyRecord))!;
    out(
      `${r.value.added ? 'added' : 'updated'} witness ${k.kid} (${k.owner}) to ${seq.value.policyPath}; quorum ${r.value.policy.quorum} of ${r.value.policy.witnesses.length}`,
    );
    out(`witness ${witnessDisplayName(k)}${k.vkey ? ` vkey ${k.vkey}` : ''}`);
    if (r.value.transport === 'http')
      out(`http ${r.value.url} (C2SP tlog-witness: POST ${r.value.url!.replace(/\/+$/, '')}/add-checkpoint)`);
    else
      out(
        r.value.addr
          ? `peer ${r.value.addr} in ${join(dir, 'config.json')} witnessPeers`
          : `no multiaddr known for ${card.value.peerId} yet: run the witness, then add it again with --from its status URL`,
      );
    out('a running sequencer picks this up by itself (it watches policy.json and config.json)');
    return 0;
  });
}

export function runShow(argv: string[]): Promise<number> {
  return runCli(argv, SHOW_USAGE, async () => {
    const { values } = parseFlags(argv, { data: { type: 'string' }, policy: { type: 'string' }, json: { type: 'boolean' } }, false);
    if (values.data && values.policy) throw new UsageError('give --data or --policy, not both');
    let policy: WitnessPolicy;
    let peers: unknown[] = [];
    if (values.policy) {
      const j = await readJsonFile(values.policy, '--policy');
      if (!j.ok) return (err(`cookwala policy show: ${j.detail}`), 2);
      const p = readWitnessPolicy(j.value);
      if (!p.ok) return (err(`cookwala policy show: ${values.policy}: ${p.code}: ${p.detail}`), 1);
      policy = p.value;
    } else {
      const seq = await loadSeq(values.data ?? DEFAULT_DIRS.sequencer);
      if (!seq.ok) return (err(`cookwala policy show: ${seq.detail}`), 2);
      policy = seq.value.policy;
      peers = seq.value.config.witnessPeers;
    }
    if (values.json) return (out(JSON.stringify(policy, null, 2)), 0);
    out(`log        ${policy.log}`);
    out(`sequencer  ${policy.sequencer.kid} (${policy.sequencer.publicKey})`);
    if (policy.witnesses.length === 0) out('witnesses  none');
    for (const w of policy.witnesses) {
      const ts = transportsOf(w, peers);
      out(`witness    ${witnessDisplayName(w)}  kid ${w.kid}`);
      for (const t of ts) out(`  ${t.transport.padEnd(8)} ${t.addr}`);
      if (ts.length === 0) out(`  no transport: no libp2p peer of this key in witnessPeers and no url (add it again with --transport)`);
      if (w.vkey) out(`  vkey     ${w.vkey}`);
    }
    // Peers that name no key (written before keys were kept, or by hand): asked, matched by their cosignature's key.
    for (const p of peers.filter((x) => typeof (x as { publicKey?: unknown } | null)?.publicKey !== 'string'))
      out(`peer       ${peerAddr(p) ?? JSON.stringify(p)} (key not recorded: matched by its cosignatures)`);
    out(`quorum     ${policy.quorum} of ${policy.witnesses.length}`);
    if (policy.quorum === 0)
      out(
        "UNWITNESSED: quorum 0, checkpoints are published with the sequencer's signature alone and nobody can see a fork (add witnesses: cookwala policy add-witness)",
      );
    return 0;
  });
}
