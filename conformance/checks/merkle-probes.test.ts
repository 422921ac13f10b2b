// The transparency-dev/merkle vectors (conformance/vectors/merkle, or $COOKWALA_VECTORS/merkle):
// every inclusion and consistency probe file gets its wantErr verdict from checkInclusionProbe /
// checkConsistencyProbe, and the RFC 6962 reference tree (roots for sizes 0-8, and the inclusion
// and consistency proofs our code generates) matches byte for byte. Never skipped: a missing
// folder lists no file, and the "finds" test fails naming the folder (collection does not throw).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { topicDir } from '../vectors-dir.ts';
import { checkConsistencyProbe, checkInclusionProbe, checkMerkleReference } from './merkle-probes.ts';

const dir = topicDir('merkle');

function walk(d: string): string[] {
  if (!existsSync(d)) return [];
  return readdirSync(d).flatMap((f) => {
    const p = path.join(d, f);
    return statSync(p).isDirectory() ? walk(p) : f.endsWith('.json') ? [p] : [];
  });
}
const read = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

describe(`merkle vectors in ${dir}`, () => {
  const inclusion = walk(path.join(dir, 'testdata', 'inclusion'));
  const consistency = walk(path.join(dir, 'testdata', 'consistency'));
  const refs = existsSync(dir) ? readdirSync(dir).filter((f) => /^rfc6962-reference-.*\.json$/.test(f)) : [];

  it('finds the probe files and the reference tree', () => {
    expect(existsSync(dir), `${dir} is missing`).toBe(true);
    expect(inclusion.length).toBeGreaterThan(50);
    expect(consistency.length).toBeGreaterThan(30);
    expect(refs.length).toBeGreaterThanOrEqual(1);
  });

  it.each(inclusion.map((p) => [path.relative(dir, p), p]))('inclusion %s', (_name, p) => {
    const probe = read(p);
    const r = checkInclusionProbe(probe);
    expect({ err: !r.ok, detail: r.ok ? '' : r.detail }).toMatchObject({ err: probe.wantErr });
    if (!r.ok) expect(r.code).toBe('bad_proof');
  });

  it.each(consistency.map((p) => [path.relative(dir, p), p]))('consistency %s', (_name, p) => {
    const probe = read(p);
    const r = checkConsistencyProbe(probe);
    expect({ err: !r.ok, detail: r.ok ? '' : r.detail }).toMatchObject({ err: probe.wantErr });
    if (!r.ok) expect(r.code).toBe('bad_proof');
  });

  it.each(refs)('reference tree %s', async (f) => {
    const checks = await checkMerkleReference(read(path.join(dir, f)));
    expect(checks.length).toBeGreaterThanOrEqual(9 + 7 + 3);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
  });
});

describe('probe checkers on hand-made input', () => {
  it('a probe whose fields are not base64 fails as bad_proof', () => {
    const r = checkInclusionProbe({ leafIdx: 0, treeSize: 1, root: '!!', leafHash: 'AA==', proof: null });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('bad_proof');
  });
  it('the reference checker reports a wrong reference proof', async () => {
    const checks = await checkMerkleReference({
      leafInputs: ['', '00'],
      rootHashesBySize: [{ treeSize: 2, rootHash: '00'.repeat(32) }],
    });
    expect(checks).toHaveLength(1);
    expect(checks[0].pass).toBe(false);
  });
});
