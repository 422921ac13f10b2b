// sequencer/cli-policy.ts: the operator's witness set-up as commands, so nobody edits
// policy.json or config.json by hand:
//   cookwala policy add-witness --data SEQ (--from W/witness-info.json | --url http://WITNESS) [--quorum K]
//   cookwala policy show (--data SEQ | --policy FILE) [--json]
// add-witness reads the witness's card (witness/wire/witness-info.ts: its KeyRecord, peer id and
// multiaddrs; from the file `cookwala witness init` keeps, or from a running witness's
// /.well-known/cookwala.json and /v1/logs), adds the KeyRecord to the policy's witnesses (the same
// key again replaces nothing and adds nothing), its first multiaddr to config.witnessPeers (an
// older address of the same peer is replaced), and sets the quorum: --quorum K, else 1 when it was
// 0. Both files are replaced atomically. A running `cookwala sequencer` picks the change up
// itself (it watches both files: sequencer/cli.ts). Exit 0 done, 1 the policy file is bad (show),
// 2 the input or the environment is unusable (one line naming the flag).
// Left out: remove-witness (edit the two files, or start from a new policy), tlog-policy text
// (the `to-tlog`/`from-tlog` subcommands of the same dispatcher, bin/policy.ts).

import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/args.ts';
import { claimDataDir, DEFAULT_DIRS } from '../platform/data-dir-kind.ts';
import { getSmallJson } from '../platform/service-url.ts';
import { parseJson } from '../verifier/encoding/strict-json.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import type { Result } from '../verifier/errors.ts';
import { readWitnessInfo, type WitnessInfoCard } from '../witness/wire/witness-info.ts';
import { readConfig, type SequencerConfig } from './config.ts';
import { saveConfig, writeFileDurable } from './data-dir.ts';

export const ADD_WITNESS_USAGE = `usage: cookwala policy add-witness --data SEQ (--from W/witness-info.json | --url http://WITNESS:PORT) [--quorum K]

Adds a witness to the sequencer's witness policy (SEQ/policy.json: its KeyRecord) and its
multiaddr to SEQ/config.json witnessPeers. --from: the witness-info.json that \`cookwala witness
init\` wrote; --url: a running witness's status URL. --quorum K: how many witnesses must cosign
before a checkpoint is published (default: unchanged, and 1 if it was 0). A running sequencer
picks the change up by itself.`;

export const SHOW_USAGE = `usage: cookwala policy show (--data SEQ | --policy FILE) [--json]

Prints a witness policy: the log, the sequencer key, each witness (with its multiaddr from
SEQ/config.json) and the quorum; says so when the log is unwitnessed (quorum 0).`;

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
async function cardFromUrl(url: string): Promise<Result<WitnessInfoCard>> {
  const base = url.replace(/\/+$/, '');
  const wk = await getSmallJson(`${base}/.well-known/cookwala.json`, '--url', 10_000, base);
  if (!wk.ok) return wk;
  const keys = (wk.value.body as { keys?: unknown[] } | undefined)?.keys;
  const key = Array.isArray(keys) ? (keys[0] as { role?: string } | undefined) : undefined;
  if (wk.value.status !== 200 || !key) return { ok: false, code: 'not_found', detail: `${base} is not a cookwala service: check --url` };
  if (key.role !== 'witness')
    return {
      ok: false,
      code: 'not_found',
      detail: `${base} is a cookwala ${key.role ?? 'service'}, not a witness: point --url at the witness's status URL (\`witness init\` prints it)`,
    };
  const logs = await getSmallJson(`${base}/v1/logs`, '--url');
  if (!logs.ok) return logs;
  const b = logs.value.body as { peerId?: unknown; multiaddrs?: unknown } | undefined;
  return readWitnessInfo({ peerId: b?.peerId, multiaddrs: b?.multiaddrs, http: base, keyRecord: key });
}

function peerOf(addr: string): string | undefined {
  return /\/p2p\/([^/]+)/.exec(addr)?.[1];
}

/** Pure: the policy and the peer list with one witness added (or its address refreshed). */
export function addWitness(
  policy: WitnessPolicy,
  peers: unknown[],
  card: WitnessInfoCard,
  quorum: number | undefined,
): Result<{ policy: WitnessPolicy; peers: unknown[]; added: boolean; addr: string | undefined }> {
  if (card.keyRecord.publicKey === policy.sequencer.publicKey)
    return { ok: false, code: 'key_role_mismatch', detail: "that key is the sequencer's own: it can never count as a witness" };
  const clash = policy.witnesses.find((w) => w.kid === card.keyRecord.kid && w.publicKey !== card.keyRecord.publicKey);
  if (clash) return { ok: false, code: 'key_conflict', detail: `the policy already has another witness key with kid ${clash.kid}` };
  const known = policy.witnesses.some((w) => w.publicKey === card.keyRecord.publicKey);
  const witnesses = known ? policy.witnesses : [...policy.witnesses, card.keyRecord];
  const addr = card.multiaddrs.find((a) => peerOf(a) === card.peerId) ?? card.multiaddrs[0];
  const kept = peers.filter((p) => {
    const s = typeof p === 'string' ? p : (p as { multiaddr?: unknown })?.multiaddr;
    return typeof s !== 'string' || peerOf(s) !== card.peerId;
  });
  const q = quorum ?? (policy.quorum === 0 ? 1 : policy.quorum);
  if (q > witnesses.length)
    return {
      ok: false,
      code: 'invalid_document',
      detail: `--quorum ${q} needs ${q} witnesses; the policy has ${witnesses.length}: add the others first`,
    };
  return { ok: true, value: { policy: { ...policy, witnesses, quorum: q }, peers: addr ? [...kept, addr] : kept, added: !known, addr } };
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
      { data: { type: 'string' }, from: { type: 'string' }, url: { type: 'string' }, quorum: { type: 'string' } },
      false,
    );
    if (!values.from === !values.url) throw new UsageError('give --from W/witness-info.json or --url http://WITNESS:PORT (one of them)');
    if (values.url && !/^https?:\/\//.test(values.url)) throw new UsageError('--url is an http(s) URL');
    const quorum = values.quorum === undefined ? undefined : Number(values.quorum);
    if (quorum !== undefined && (!/^[0-9]{1,3}$/.test(values.quorum!) || quorum < 1))
      throw new UsageError('--quorum is a positive integer');
    const dir = values.data ?? DEFAULT_DIRS.sequencer;
    const seq = await loadSeq(dir);
    if (!seq.ok) return (err(`cookwala policy add-witness: ${seq.detail}`), 2);
    let card: Result<WitnessInfoCard>;
    if (values.from) {
      const j = await readJsonFile(values.from, '--from');
      card = j.ok ? readWitnessInfo(j.value) : j;
      if (!card.ok && j.ok) card = { ...card, detail: `${values.from} is not a witness-info.json (${card.detail}): check --from` };
    } else card = await cardFromUrl(values.url!);
    if (!card.ok) return (err(`cookwala policy add-witness: ${card.detail}`), 2);
    const r = addWitness(seq.value.policy, seq.value.config.witnessPeers, card.value, quorum);
    if (!r.ok) return (err(`cookwala policy add-witness: ${r.detail}`), 2);
    // config.json first: a sequencer that reloads between the two writes sees the new peer with
    // the old policy, which asks nothing of it; the other order would ask a quorum it cannot reach.
    await saveConfig(dir, { ...seq.value.config, witnessPeers: r.value.peers });
    await writeFileDurable(seq.value.policyPath, JSON.stringify(r.value.policy, null, 2) + '\n');
    const k = card.value.keyRecord;
    out(
      `${r.value.added ? 'added' : 'already had'} witness ${k.kid} (${k.owner}) to ${seq.value.policyPath}; quorum ${r.value.policy.quorum} of ${r.value.policy.witnesses.length}`,
    );
    out(
      r.value.addr
        ? `peer ${r.value.addr} in ${join(dir, 'config.json')} witnessPeers`
        : `no multiaddr known for ${card.value.peerId} yet: run the witness, then add it again with --url`,
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
    for (const w of policy.witnesses) out(`witness    ${w.kid} (${w.owner})`);
    for (const p of peers) out(`peer       ${typeof p === 'string' ? p : JSON.stringify(p)}`);
    out(`quorum     ${policy.quorum} of ${policy.witnesses.length}`);
    if (policy.quorum === 0)
      out(
        "UNWITNESSED: quorum 0, checkpoints are published with the sequencer's signature alone and nobody can see a fork (add witnesses: cookwala policy add-witness)",
      );
    return 0;
  });
}
