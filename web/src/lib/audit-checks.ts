// web/src/lib/audit-checks.ts: the three checks of the offline verifier page (docs/design.md §8, §12b),
// each the browser twin of an auditor's command, returning the same JSON that command prints with
// --json: a whole bundle (`cookwala verify`: the pure streaming verifier of
// verifier/bundle/verifier.ts fed by line-reader.ts, signatures through an injected batch
// verifier), one event proof (`cookwala verify-event`: verifier/bundle/event-proof.ts, or a
// c2sp.org/tlog-proof@v1 file through verifier/c2sp/tlog-proof.ts, as the CLI tells them apart) and a ForkProof
// (`cookwala verify-fork`: verifier/documents/fork-proof.ts). Trust comes only from the policy (or, for a
// fork proof, a sequencer KeyRecord) and the key cache the auditor gives; a trust file that is
// not JSON or not the document is "unusable input" (exit 2) with the CLI's wording, never a
// verdict. Pure: no DOM, no network; the worker and the Node tests both run it.
// Left out: the CLI's worker threads (the batch verifier stands in for them).

import { createBundleVerifier } from '../../../verifier/bundle/index.ts';
import type { BundleReport } from '../../../verifier/bundle/index.ts';
import type { VerifyBatch } from '../../../verifier/bundle/index.ts';
import { verifyEventProof } from '../../../verifier/bundle/index.ts';
import { forkVerdict, type ForkProof, type ForkVerdict } from '../../../verifier/documents/index.ts';
import { NOTE_FORK_PROOF, noteForkVerdict, readNoteForkProof } from '../../../verifier/documents/index.ts';
import { parseJson, readDocument } from '../../../verifier/documents/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../../../verifier/documents/index.ts';
import type { KeyRecord } from '../../../verifier/signing/index.ts';
import type { Result } from '../../../verifier/index.ts';
import { TLOG_PROOF_HEADER, verifyTlogProof } from '../../../verifier/c2sp/index.ts';
import { forEachLine, readCheckpointSeqsAhead, readFirstLine, type ByteSource } from './line-reader.ts';

export type { ForkVerdict };

/** A file the auditor gave: its name (for messages) and its bytes. */
export interface NamedSource extends ByteSource {
  readonly name: string;
  text(): Promise<string>;
}

/** What the CLI prints with --json for unusable input. */
export interface Unusable {
  valid: false;
  exitCode: 2;
  error: string;
}

export class InputError extends Error {
  override readonly name = 'InputError';
}

const MAX_TRUST_FILE = 16 << 20;

async function readJson(f: NamedSource, what: string): Promise<unknown> {
  if (f.size > MAX_TRUST_FILE) throw new InputError(`the ${what} ${f.name} is larger than ${MAX_TRUST_FILE} bytes`);
  let text: string;
  try {
    text = await f.text();
  } catch (e) {
    throw new InputError(`cannot read the ${what} ${f.name}: ${(e as Error).message}`);
  }
  const j = parseJson(text);
  if (!j.ok) throw new InputError(`the ${what} ${f.name} is refused: ${j.code}: ${j.detail}`);
  return j.value;
}

export async function readPolicy(f: NamedSource): Promise<WitnessPolicy> {
  const r = readWitnessPolicy(await readJson(f, 'policy'));
  if (!r.ok) throw new InputError(`the policy ${f.name} is not a WitnessPolicy: ${r.code}: ${r.detail}`);
  return r.value;
}

export async function readKeyCache(f: NamedSource | undefined): Promise<KeyRecord[]> {
  if (!f) return [];
  const r = readDocument('KeyCache', await readJson(f, 'key cache'));
  if (!r.ok) throw new InputError(`the key cache ${f.name} is not a KeyCache: ${r.code}: ${r.detail}`);
  return r.value.all();
}

function unusable(e: unknown): Unusable {
  if (!(e instanceof InputError)) throw e;
  return { valid: false, exitCode: 2, error: e.message };
}

export interface BundleCheckOptions {
  allowLegacy?: boolean;
  requireWitnessed?: boolean;
  verifyBatch?: VerifyBatch;
  onProgress?: (bytes: number, total: number, entries: number) => void;
  /** Salt of the (source, id) digest set (tests fix it); random by default. */
  idSalt?: Uint8Array;
}

/** `cookwala verify BUNDLE --policy P [--keys K] --json`, streaming the bundle. */
export async function checkBundle(
  bundle: NamedSource,
  policyFile: NamedSource,
  keysFile: NamedSource | undefined,
  o: BundleCheckOptions = {},
): Promise<BundleReport | Unusable> {
  let policy: WitnessPolicy;
  let keys: KeyRecord[];
  let first: string | undefined;
  try {
    policy = await readPolicy(policyFile);
    keys = await readKeyCache(keysFile);
    try {
      first = await readFirstLine(bundle);
    } catch (e) {
      throw new InputError(`cannot read the bundle ${bundle.name}: ${(e as Error).message}`);
    }
  } catch (e) {
    return unusable(e);
  }
  let ahead: number[] | undefined;
  // The verifier names what is wrong with the header; a header refused here gives no read-ahead.
  const hj = first === undefined ? undefined : parseJson(first);
  const h = hj?.ok ? (hj.value as { checkpoints?: unknown } | null) : undefined;
  if (h && Number.isSafeInteger(h.checkpoints))
    ahead = await readCheckpointSeqsAhead(bundle, h.checkpoints as number).catch(() => undefined);
  const v = createBundleVerifier({
    policy,
    keys,
    allowLegacy: o.allowLegacy,
    requireWitnessed: o.requireWitnessed,
    checkpointSeqs: ahead,
    verifyBatch: o.verifyBatch,
    idSalt: o.idSalt,
  });
  let bytes = 0;
  const total = bundle.size;
  await forEachLine(
    bundle,
    (text, flags) => (v.stopped ? false : v.line(text, flags)),
    (n) => {
      bytes += n;
      o.onProgress?.(bytes, total, v.progress.entries);
    },
  );
  return v.end();
}

/** What `cookwala verify-event --json` prints: {valid, …the result}. */
export type EventProofOutput = { valid: boolean } & Record<string, unknown>;

export async function checkEventProof(
  proofFile: NamedSource,
  policyFile: NamedSource,
  keysFile: NamedSource | undefined,
  o: { allowLegacy?: boolean } = {},
): Promise<EventProofOutput | Unusable> {
  let policy: WitnessPolicy;
  let keys: KeyRecord[];
  let proof: unknown;
  let tlog: Uint8Array | undefined;
  try {
    policy = await readPolicy(policyFile);
    keys = await readKeyCache(keysFile);
    if (await isTlogProof(proofFile)) {
      if (proofFile.size > MAX_TRUST_FILE) throw new InputError(`the event proof ${proofFile.name} is larger than ${MAX_TRUST_FILE} bytes`);
      tlog = new Uint8Array(await proofFile.slice(0, proofFile.size).arrayBuffer());
    } else proof = await readJson(proofFile, 'event proof');
  } catch (e) {
    return unusable(e);
  }
  if (tlog) {
    // As `cookwala verify-event --json` prints a tlog-proof's verdict.
    const { ok: valid, ...rest } = verifyTlogProof(tlog, policy, { keys, allowLegacy: o.allowLegacy });
    return { valid, format: 'tlog-proof', ...rest };
  }
  const { ok: valid, ...rest } = verifyEventProof(proof, policy, { keys, allowLegacy: o.allowLegacy });
  return { valid, ...rest };
}

/** The trust for a fork proof: a policy (its log and sequencer key) or a sequencer KeyRecord alone. */
async function readForkTrust(f: NamedSource): Promise<{ key: KeyRecord; log?: string }> {
  const json = await readJson(f, 'policy or key record');
  if ((json as { kind?: unknown } | null)?.kind === 'KeyRecord') {
    const r = readDocument('KeyRecord', json) as Result<KeyRecord>;
    if (!r.ok) throw new InputError(`the key ${f.name} is not a KeyRecord: ${r.code}: ${r.detail}`);
    return { key: r.value };
  }
  const p = readWitnessPolicy(json);
  if (!p.ok) throw new InputError(`the policy ${f.name} is not a WitnessPolicy: ${p.code}: ${p.detail}`);
  return { key: p.value.sequencer, log: p.value.log };
}

/** `cookwala verify-fork PROOF (--policy P | --key K) --json`; a C2SP log's NoteForkProof too. */
export async function checkForkProof(proofFile: NamedSource, trustFile: NamedSource): Promise<ForkVerdict | Unusable> {
  let trust: { key: KeyRecord; log?: string };
  let fp: ForkProof;
  try {
    trust = await readForkTrust(trustFile);
    const json = await readJson(proofFile, 'fork proof');
    if ((json as { kind?: unknown } | null)?.kind === NOTE_FORK_PROOF) {
      const note = readNoteForkProof(json);
      if (!note.ok) throw new InputError(`${proofFile.name} is not a NoteForkProof: ${note.code}: ${note.detail}`);
      return noteForkVerdict(note.value, trust);
    }
    const doc = readDocument('ForkProof', json) as Result<ForkProof>;
    if (!doc.ok) throw new InputError(`${proofFile.name} is not a ForkProof: ${doc.code}: ${doc.detail}`);
    fp = doc.value;
  } catch (e) {
    return unusable(e);
  }
  return { ...forkVerdict(fp, trust), form: 'ForkProof' }; // as verify-fork --json names the form
}

export type EvidenceKind = 'bundle' | 'event-proof' | 'fork-proof' | 'policy' | 'key-cache' | 'key-record' | 'unknown';

/**
 * What a dropped file is, from its first bytes (a bundle's header line) or, for a file small
 * enough to be a trust document or a proof, its `kind`. Never trusted: each check reads again.
 */
/** Whether a file starts with the c2sp.org/tlog-proof@v1 header line. */
async function isTlogProof(f: NamedSource): Promise<boolean> {
  const n = TLOG_PROOF_HEADER.length + 1;
  return new TextDecoder().decode(new Uint8Array(await f.slice(0, Math.min(f.size, n)).arrayBuffer())) === `${TLOG_PROOF_HEADER}\n`;
}

export async function classify(f: NamedSource): Promise<EvidenceKind> {
  if (await isTlogProof(f)) return 'event-proof';
  const head = new TextDecoder().decode(new Uint8Array(await f.slice(0, Math.min(f.size, 4096)).arrayBuffer()));
  if (/^\s*\{\s*"type"\s*:\s*"cookwala-audit-bundle"/.test(head)) return 'bundle';
  if (f.size > MAX_TRUST_FILE) return head.includes('\n') ? 'bundle' : 'unknown';
  let json: unknown;
  try {
    json = JSON.parse(await f.text());
  } catch {
    return head.includes('\n{') ? 'bundle' : 'unknown';
  }
  const kind = (json as { kind?: unknown } | null)?.kind;
  switch (kind) {
    case 'WitnessPolicy':
      return 'policy';
    case 'KeyCache':
      return 'key-cache';
    case 'KeyRecord':
      return 'key-record';
    case 'EventProof':
      return 'event-proof';
    case 'ForkProof':
      return 'fork-proof';
    default:
      return 'unknown';
  }
}
