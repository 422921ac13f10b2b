// auditor/audit-state.ts: the state file of an incremental audit (`cookwala verify --resume
// STATE`, docs/monitoring.md "Incremental audits"): {"kind":"AuditState","log","seq","hash",
// "frontier":[[level,index,hex]…],"subjects":[[subject,cookwalaseq]…],"clock","ids"}: where the last
// valid audit of a log stopped (its last entry, the chain head, the Merkle frontier, the
// per-subject order, the clock, and the side file of every audited (source, id) pair:
// audit-ids.ts). The next audit reads only what was exported after it
// (`cookwala export --from SEQ+1`) and is as strong as a full run on the tree: every checkpoint
// of the new bundle is checked against the frontier extended by the new entries, so a rewrite of
// any entry before the resume point changes those roots and is reported. The file is written
// atomically (platform/durable-file.ts) and only after a valid audit, after the side file it names.
// Left out: nothing of the pairs but their digests. Invariant: a state is written only from a
// report that is valid.

import { readTextIfExists, writeFileDurable } from '../platform/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { fromHex, toHex } from '../verifier/encoding/index.ts';
import type { EntryResume } from '../verifier/bundle/index.ts';
import type { NodeId } from '../verifier/merkle/index.ts';
import { InputError } from './trust-files.ts';
import type { AuditIdsRef } from './audit-ids.ts';

export interface AuditState {
  kind: 'AuditState';
  log: string;
  seq: number;
  hash: string;
  frontier: Array<[number, number, string]>;
  subjects: Array<[string, number]>;
  clock?: EntryResume['clock'];
  ids?: AuditIdsRef;
}

export interface ReadAuditState {
  resume: EntryResume;
  /** The (source, id) side file (absent in a state that never carried one: pairs are then checked from the resume point on). */
  ids?: AuditIdsRef;
}

/** The resume point stored at `path`, or undefined when there is no such file (a first audit). */
export async function readAuditState(path: string, log: string): Promise<ReadAuditState | undefined> {
  const t = await readTextIfExists(path);
  if (t === undefined) return undefined;
  const j = parseJson(t);
  const s = (j.ok ? j.value : undefined) as AuditState | undefined;
  if (!s || typeof s !== 'object' || s.kind !== 'AuditState' || !Number.isSafeInteger(s.seq) || !Array.isArray(s.frontier))
    throw new InputError(`${path} is not an AuditState`);
  if (s.log !== log) throw new InputError(`${path} is the audit state of ${s.log}, the policy is for ${log}`);
  const frontier = s.frontier.map(([l, i, h]) => {
    const b = fromHex(h);
    if (!b.ok || b.value.length !== 32) throw new InputError(`${path}: a frontier node is not a 32-byte hex hash`);
    return { id: [l, i] as NodeId, hash: b.value };
  });
  const ids = s.ids && typeof s.ids === 'object' ? s.ids : undefined;
  return { resume: { seq: s.seq, hash: s.hash, frontier, subjects: s.subjects ?? [], clock: s.clock }, ids };
}

export async function writeAuditState(path: string, log: string, r: EntryResume, ids?: AuditIdsRef): Promise<void> {
  const s: AuditState = {
    kind: 'AuditState',
    log,
    seq: r.seq,
    hash: r.hash,
    frontier: r.frontier.map((n) => [n.id[0], n.id[1], toHex(n.hash)]),
    subjects: [...r.subjects],
    ...(r.clock ? { clock: r.clock } : {}),
    ...(ids ? { ids } : {}),
  };
  await writeFileDurable(path, JSON.stringify(s) + '\n');
}
