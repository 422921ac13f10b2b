// monitor/state.ts: the monitor's durable state per log, one small JSON file named by the hex
// SHA-256 of the origin in the state directory, written with writeFileDurable (temp file, fsync,
// rename, fsync of the directory) only after every check of a step passed, so a SIGKILL leaves
// the state of the last step or of the one before, never a torn or unchecked one. It holds what
// the next step needs and nothing that grows with the log: the last verified checkpoint (size,
// root, the checkpoint itself for a ForkProof), the Merkle frontier at that size (at most 53
// hashes: the tree, docs/design.md §4), for Cookwala logs the chain head, the last cookwalaseq of
// the most recent subjects (at most `maxSubjects`), the clock's last stamp, and the (source, id)
// digests of the last `idWindow` entries with the secret salt (id-window.ts), the payloads found
// erased whose erasure entry is not yet verified (at most 10,000, erasures.ts), plus the sizes and
// roots of the last RECENT verified checkpoints for comparing other views, and during a long
// catch-up the resume point of the last page checked (`pending`, not trusted until a checkpoint's
// root covers it). Left out: entries,
// payloads, anything per entry beyond the bounded window. Invariant: `root` is the root of
// `frontier`, and both are those of a checkpoint the policy accepted.

import { join } from 'node:path';
import { readTextIfExists, writeFileDurable } from '../platform/index.ts';
import { fail, ok, type Result } from '../verifier/index.ts';
import { parseJson } from '../verifier/documents/index.ts';
import { fromHex, toHex } from '../verifier/encoding/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import type { Hash32, NodeId } from '../verifier/merkle/index.ts';
import type { ClockResume } from '../verifier/bundle/index.ts';
import { originHash } from './served.ts';
import type { ErasureWaitState } from './erasures.ts';

export const STATE_KIND = 'MonitorState';
export const RECENT = 32;

export interface RecentView {
  size: number;
  root: string;
}

export interface LogState {
  kind: typeof STATE_KIND;
  log: string;
  size: number;
  root: string;
  head?: string;
  checkpoint?: Checkpoint;
  note?: string;
  /** [level, index, hex hash] of the frontier at `size`. */
  frontier: Array<[number, number, string]>;
  subjects: Array<[string, number]>;
  clock?: ClockResume;
  ids?: { salt: string; window: string[] };
  recent: RecentView[];
  /** When the last step verified a checkpoint (ms). */
  verifiedAt: number;
  /**
   * A catch-up part-way: the entries after `size` through `pending.seq` were checked (a page of a
   * step longer than one), not yet bound by a checkpoint's root. The next step goes on from here;
   * its root check at the checkpoint's size covers them, and only then does `size` move.
   */
  pending?: PendingPage;
  /** Payloads found erased whose erasure entry was not yet in a verified checkpoint (erasures.ts). */
  erasures?: ErasureWaitState;
}

export interface PendingPage {
  seq: number;
  head: string;
  frontier: Array<[number, number, string]>;
  subjects: Array<[string, number]>;
  clock?: ClockResume;
  ids?: { salt: string; window: string[] };
  erasures?: ErasureWaitState;
}

export function statePath(dir: string, origin: string): string {
  return join(dir, `${originHash(origin)}.json`);
}

export function frontierNodes(s: Pick<LogState, 'frontier'>): Array<{ id: NodeId; hash: Hash32 }> {
  return s.frontier.map(([l, i, h]) => {
    const b = fromHex(h);
    if (!b.ok || b.value.length !== 32) throw new TypeError(`state frontier node [${l}, ${i}] is not a 32-byte hex hash`);
    return { id: [l, i] as NodeId, hash: b.value };
  });
}

export function encodeFrontier(nodes: Array<{ id: NodeId; hash: Hash32 }>): Array<[number, number, string]> {
  return nodes.map((n) => [n.id[0], n.id[1], toHex(n.hash)]);
}

/** A fresh state: the empty tree of a log (size 0). */
export function emptyState(log: string, emptyRoot: string): LogState {
  return { kind: STATE_KIND, log, size: 0, root: emptyRoot, frontier: [], subjects: [], recent: [], verifiedAt: 0 };
}

export async function loadState(dir: string, origin: string): Promise<Result<LogState | undefined>> {
  const t = await readTextIfExists(statePath(dir, origin));
  if (t === undefined) return ok(undefined);
  const j = parseJson(t);
  if (!j.ok) return j;
  const s = j.value as LogState;
  if (
    s === null ||
    typeof s !== 'object' ||
    s.kind !== STATE_KIND ||
    s.log !== origin ||
    !Number.isSafeInteger(s.size) ||
    !Array.isArray(s.frontier)
  )
    return fail('invalid_document', `${statePath(dir, origin)} is not a monitor state of ${origin}`);
  return ok(s);
}

export async function saveState(dir: string, s: LogState): Promise<void> {
  await writeFileDurable(statePath(dir, s.log), JSON.stringify(s) + '\n');
}

export function withRecent(recent: readonly RecentView[], v: RecentView): RecentView[] {
  const out = recent.filter((r) => r.size !== v.size);
  out.push(v);
  return out.slice(-RECENT);
}
