// conformance/topics/merkle.ts: RFC 6962 / RFC 9162 Merkle vectors through verifier/merkle/index.ts:
// transparency-dev probe files (testdata/inclusion/**/*.json, testdata/consistency/**/*.json), where
// the project's verdict (ok or not) must equal `!wantErr` (wantErr covers malformed input as well
// as a failed check), and rfc6962-reference-*.json, where merkle.ts checks its leaf hashes, stored
// nodes, roots, and generated proofs against the reference values (checkMerkleReference), with any
// subset of those values present (proofs without leaves are verified against their own roots).

import path from 'node:path';
import { checkConsistencyProbe, checkInclusionProbe, checkMerkleReference } from '../checks/merkle-probes.ts';
import type { Result } from '../../verifier/index.ts';
import { classify, isDocumentation, listFiles, readJson } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';

const PATTERNS = {
  inclusion: /^testdata\/inclusion\/.+\.json$/,
  consistency: /^testdata\/consistency\/.+\.json$/,
  reference: /^rfc6962-reference-[^/]*\.json$/,
};

function verdict(wantErr: unknown): string {
  if (typeof wantErr !== 'boolean') throw new Error('wantErr is not a boolean');
  return wantErr ? 'error' : 'verifies';
}

function got(r: Result<true>): string {
  return r.ok ? 'verifies' : 'error';
}

function probe(file: string, doc: Record<string, unknown>, check: (p: never) => Result<true>, t: Tally): void {
  const want = verdict(doc.wantErr);
  const id = typeof doc.desc === 'string' ? doc.desc : path.basename(file, '.json');
  const r = check(doc as never);
  if (got(r) === want) t.pass(file, id);
  else t.fail(file, id, want, r.ok ? 'verifies' : `error: ${r.code} ${r.detail}`);
}

export const merkleTopic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f)) t.ignore(f);
    for (const [files, check] of [
      [byPattern.inclusion, checkInclusionProbe],
      [byPattern.consistency, checkConsistencyProbe],
    ] as const) {
      for (const f of files) {
        try {
          probe(f, (await readJson(path.join(dir, f))) as Record<string, unknown>, check as (p: never) => Result<true>, t);
        } catch (e) {
          t.fileError(f, (e as Error).message);
        }
      }
    }
    for (const f of byPattern.reference) {
      try {
        const checks = await checkMerkleReference(await readJson(path.join(dir, f)));
        if (checks.length === 0) t.fileError(f, 'no reference values found');
        for (const c of checks) {
          if (c.skip !== undefined) t.skip(f, c.id, c.skip);
          else if (c.pass) t.pass(f, c.id);
          else t.fail(f, c.id, c.expected, c.got);
        }
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
  },
};
