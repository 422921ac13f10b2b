// bench/proof.ts: the `proof` section of bench/results.json (docs/design.md §13): inclusion proofs from a
// store of n = 10^7 leaves (10^6 with --quick), built through the bulk path (synthetic leaf
// hashes; the tree, node keys and head are the real ones), reopened, and timed per proof; every
// proof is verified against the root. Leaves out: consistency proofs and the HTTP route.

import { openLogStore } from '../logstore/index.ts';
import { bulkLoadTree } from '../logstore/bulk-load.ts';
import { makeDescriptor, removeDir, tempDir } from '../testkit/logstore.ts';
import { parseHash } from '../verifier/encoding/wire.ts';
import { verifyInclusion, type Hash32 } from '../verifier/merkle/index.ts';
import { dirBytes, round } from './store-measure.ts';

/** Synthetic leaf hashes: distinct, cheap, reproducible (the proof bench times reads, not hashing). */
function syntheticLeaf(i: number): Hash32 {
  const b = Buffer.alloc(32, 0x5a);
  b.writeUInt32BE(Math.floor(i / 2 ** 32), 0);
  b.writeUInt32BE(i % 2 ** 32, 4);
  return b;
}

export async function runProof(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const n = ctx.quick ? 1_000_000 : 10_000_000;
  const samples = ctx.quick ? 2_000 : 5_000;
  const dir = tempDir('cookwala-bench-proof-');
  try {
    const tb = performance.now();
    const { root } = await bulkLoadTree(dir, makeDescriptor('full'), n, syntheticLeaf, 'sha256:' + 'ee'.repeat(32));
    const buildSeconds = (performance.now() - tb) / 1000;
    const s = await openLogStore(dir);
    try {
      if (s.head().root !== root) throw new Error('reopened root differs from the bulk-built root');
      const rootRaw = (parseHash(root) as { value: Uint8Array }).value;
      const seqs = Array.from({ length: samples }, () => 1 + Math.floor(Math.random() * n));
      for (const seq of seqs.slice(0, 200)) await s.inclusionProof(seq, n); // warm-up
      const times: number[] = [];
      const proofs: string[][] = [];
      for (const seq of seqs) {
        const t = performance.now();
        proofs.push(await s.inclusionProof(seq, n));
        times.push(performance.now() - t);
      }
      let maxLen = 0;
      for (let i = 0; i < seqs.length; i++) {
        const proof = proofs[i].map((h) => (parseHash(h) as { value: Uint8Array }).value);
        if (!verifyInclusion(syntheticLeaf(seqs[i] - 1), seqs[i] - 1, n, proof, rootRaw).ok)
          throw new Error(`proof for seq ${seqs[i]} does not verify`);
        maxLen = Math.max(maxLen, proof.length);
      }
      times.sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      return {
        inclusionMs: round(mean, 4),
        inclusionP50Ms: round(times[Math.floor(times.length * 0.5)], 4),
        inclusionP99Ms: round(times[Math.floor(times.length * 0.99)], 4),
        bytes: 32 * maxLen,
        bytesTarget: 32 * Math.ceil(Math.log2(n)),
        n,
        samples,
        nodeKeys: n,
        storeBytes: dirBytes(dir),
        buildSeconds: round(buildSeconds, 1),
        note: ctx.quick ? 'quick run: n = 10^6, not the 10^7 of the target' : 'n = 10^7',
      };
    } finally {
      await s.close();
    }
  } finally {
    removeDir(dir);
  }
}
