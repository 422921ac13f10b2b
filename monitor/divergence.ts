// monitor/divergence.ts: what a follower reports when the served tree is not the one it verified
// (docs/monitoring.md "What one step checks", 2 and 3): a fork (the same size, another root),
// written down as a ForkProof when both sides are JSON checkpoints of one seq signed by the
// sequencer (`cookwala verify-fork` checks it), as ForkEvidence otherwise; and a rewrite (the
// served tree does not extend the verified one), whose changed range is the first node of the old
// Merkle frontier that the served tree's hash tiles hold differently. Left out: deciding which of
// these a step met (follow.ts). Invariant: a range is only named from a node both trees hold.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toHex } from '../verifier/encoding/index.ts';
import { buildForkProof } from '../verifier/documents/index.ts';
import { FetchFailed, type HttpGet } from './http-get.ts';
import type { ServedView } from './served.ts';
import { createTileReader, TileError } from './tiles.ts';
import { frontierNodes, type LogState } from './state.ts';
import type { Finding } from './follow.ts';

/** The first node of the old frontier that the served tree of `size` holds differently: the changed range. */
export async function locateRewrite(
  get: HttpGet,
  tilesPrefix: string,
  s: LogState,
  size: number,
): Promise<{ from: number; to: number } | undefined> {
  try {
    const tiles = createTileReader(get, tilesPrefix, size);
    for (const { id, hash } of frontierNodes(s)) {
      const [l, i] = id;
      const theirs = await tiles.node(l, i);
      if (toHex(theirs) !== toHex(hash)) return { from: i * 2 ** l + 1, to: (i + 1) * 2 ** l };
    }
  } catch (e) {
    if (!(e instanceof TileError) && !(e instanceof FetchFailed)) throw e;
  }
  return undefined;
}

async function forkFile(stateDir: string, origin: string, s: LogState, v: ServedView, source: string): Promise<string | undefined> {
  const name = `fork-${v.size}-${v.root.slice(7, 15)}.json`;
  const path = join(stateDir, name);
  if (s.checkpoint && v.checkpoint && s.checkpoint.seq === v.checkpoint.seq) {
    await writeFile(path, JSON.stringify(buildForkProof(s.checkpoint, v.checkpoint), null, 1) + '\n');
    return path;
  }
  await writeFile(
    path,
    JSON.stringify(
      { kind: 'ForkEvidence', log: origin, size: v.size, source, ours: s.checkpoint ?? s.note, theirs: v.checkpoint ?? v.note },
      null,
      1,
    ) + '\n',
  );
  return path;
}

/** The log serves another root at the verified size: fork_detected, with its proof file. */
export async function forkFinding(stateDir: string, origin: string, s: LogState, v: ServedView): Promise<Finding> {
  const proof = await forkFile(stateDir, origin, s, v, 'served');
  return {
    event: 'fork_detected',
    seq: v.size,
    source: 'served',
    roots: [s.root, v.root],
    proof,
    detail: `the log serves checkpoint ${v.size} with root ${v.root}; ${s.root} was verified at that size`,
  };
}

/** The served checkpoint does not extend the verified tree: rewrite_detected, with the changed range when known. */
export function rewriteFinding(s: LogState, v: ServedView, range: { from: number; to: number } | undefined): Finding {
  return {
    event: 'rewrite_detected',
    seq: range?.from ?? s.size,
    ...(range ?? {}),
    verified: { size: s.size, root: s.root },
    served: { size: v.size, root: v.root },
    detail: range
      ? `checkpoint ${v.size} does not extend the verified tree of ${s.size}: entries ${range.from}-${range.to} changed`
      : `checkpoint ${v.size} does not extend the verified tree of ${s.size}`,
  };
}
