// monitor/split-view.ts: split-view detection (docs/design.md §7a, docs/monitoring.md): the view a
// log served this monitor is compared with what others were served. Sources: each policy witness
// with a `url` (its monitoring read, `GET <url>/<hex sha256(origin)>/checkpoint`: the note it last
// cosigned, accepted only with a valid signature by the log's key) and each peer monitor
// (`GET <peer>/v1/monitor/views`: the checkpoints it last verified, accepted only with a valid
// sequencer signature). A view at a size this monitor verified (the last checkpoint or one of the
// recent ones) with another root is a fork; a smaller view that is not one of those is compared
// with the root this log's own hash tiles give at that size (tiles.ts), so a witness that cosigned
// another history is caught even when no two checkpoints share a size. Two JSON checkpoints at one
// seq become a ForkProof (`cookwala verify-fork` checks it); a note against a checkpoint is kept as
// ForkEvidence (both signed by the log's key). Left out: views larger than ours (compared once we
// reach them), gossip. Invariant: a fork is reported only between two views signed by the log's key.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rootPlan, foldRight } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/index.ts';
import { buildForkProof } from '../verifier/documents/index.ts';
import { verifyCheckpointSequencerSignature, type Checkpoint } from '../verifier/documents/index.ts';
import { parseJson } from '../verifier/documents/index.ts';
import { text, FetchFailed, type HttpGet } from './http-get.ts';
import { readWitnessView, verifyPolicyNote, type ServedView } from './served.ts';
import { createTileReader, TileError } from './tiles.ts';
import type { Finding, Follower } from './follow.ts';

export interface OtherView {
  source: string;
  view: ServedView;
}

/** The views of the policy witnesses and the peer monitors for one log (unreadable ones skipped). */
export async function otherViews(get: HttpGet, f: Follower, peers: readonly string[]): Promise<OtherView[]> {
  const policy = f.config.policy;
  const out: OtherView[] = [];
  for (const w of policy.witnesses) {
    if (!w.url) continue;
    try {
      const r = await readWitnessView(get, w.url, policy);
      if (r.ok && r.value) out.push({ source: `witness:${w.kid}`, view: r.value });
    } catch (e) {
      if (!(e instanceof FetchFailed)) throw e;
    }
  }
  for (const p of peers) {
    try {
      const r = await get(`${p.replace(/\/+$/, '')}/v1/monitor/views`, { accept: 'application/json', maxBytes: 4 << 20 });
      if (r.status !== 200) continue;
      const j = parseJson(text(r.body));
      const views = j.ok ? (j.value as { views?: unknown }).views : undefined;
      if (!Array.isArray(views)) continue;
      for (const v of views as Array<{ log?: unknown; checkpoint?: Checkpoint; note?: string }>) {
        if (v.log !== policy.log) continue;
        if (v.checkpoint && typeof v.checkpoint === 'object') {
          const cp = v.checkpoint;
          if (cp.log !== policy.log || !verifyCheckpointSequencerSignature(cp, policy.sequencer).ok) continue;
          out.push({
            source: `peer:${p}`,
            view: { size: cp.seq, root: cp.root, head: cp.head, checkpoint: cp, witnesses: [], newestCosignatureMs: NaN },
          });
        } else if (typeof v.note === 'string') {
          const n = verifyPolicyNote(v.note, policy, false);
          if (n.ok) out.push({ source: `peer:${p}`, view: n.value });
        }
      }
    } catch (e) {
      if (!(e instanceof FetchFailed)) throw e;
    }
  }
  return out;
}

/** Compare other views with the follower's verified state; forks are written to `dir`. */
export async function compareViews(get: HttpGet, f: Follower, others: readonly OtherView[], dir: string): Promise<Finding[]> {
  const s = f.state();
  if (!s || s.size === 0) return [];
  const findings: Finding[] = [];
  for (const { source, view } of others) {
    let ours: string | undefined;
    if (view.size === s.size) ours = s.root;
    else ours = s.recent.find((r) => r.size === view.size)?.root;
    if (ours === undefined && view.size < s.size && view.size > 0) {
      try {
        const tiles = createTileReader(get, f.config.tiles, s.size);
        const nodes = [];
        for (const [l, i] of rootPlan(view.size)) nodes.push(await tiles.node(l, i));
        ours = formatHash(foldRight(nodes));
      } catch (e) {
        if (!(e instanceof TileError) && !(e instanceof FetchFailed)) throw e;
      }
    }
    if (ours === undefined || ours === view.root) continue;
    const path = join(dir, `fork-${view.size}-${view.root.slice(7, 15)}.json`);
    const mine = view.size === s.size ? s.checkpoint : undefined;
    const doc =
      mine && view.checkpoint && mine.seq === view.checkpoint.seq
        ? buildForkProof(mine, view.checkpoint)
        : {
            kind: 'ForkEvidence',
            log: s.log,
            size: view.size,
            source,
            ours: mine ?? { size: view.size, root: ours, tree: s.checkpoint ?? s.note },
            theirs: view.checkpoint ?? view.note,
          };
    await writeFile(path, JSON.stringify(doc, null, 1) + '\n');
    findings.push({
      event: 'fork_detected',
      seq: view.size,
      source,
      roots: [ours, view.root],
      proof: path,
      detail: `${source} holds checkpoint ${view.size} with root ${view.root}; this monitor's log gives ${ours} at that size`,
    });
  }
  return findings;
}
