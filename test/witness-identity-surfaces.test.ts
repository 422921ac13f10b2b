// A witness is its public key (docs/design.md §4): no surface matches witness records by kid. An
// architecture-style scan of the parts that name or count witnesses (sequencer/, witness/client/,
// verifier/, web/) for a kid comparison on a line about witnesses or cosignatures; identity goes
// through verifier/signing/witness-identity.ts (sameWitness, witnessOfC2spKid…), the one file
// allowed to look at a label, and only to order a search or word a refusal. A line that compares
// kids for another reason (kids must stay distinct labels) says so with "label, not identity".
// The behaviour (a policy whose kids differ from what witnesses sign with still counts them):
// verifier/signing/witness-identity.test.ts and test/operator-quickstart.test.ts.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SURFACES = ['sequencer', 'witness/client', 'verifier', 'web/src', 'web/server'];
const ALLOWED = new Set(['verifier/signing/witness-identity.ts']);

const KID_COMPARISON = /\.kid\s*[!=]==|[!=]==\s*[\w.?]*\.kid\b/;
const ABOUT_WITNESSES = /witness|cosign|\bw\.kid\b/i;

/** The offending lines of one file's text: a kid comparison about witnesses, without the marker. */
export function kidMatches(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => KID_COMPARISON.test(l) && ABOUT_WITNESSES.test(l) && !l.includes('label, not identity'))
    .map((l) => l.trim());
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

describe('no surface matches witnesses by kid', () => {
  it('finds the old way of matching (a kid lookup in the policy witnesses) and lets key matching pass', () => {
    expect(kidMatches('const key = deps.policy.witnesses.find((k) => k.kid === sig.kid);')).toHaveLength(1);
    expect(kidMatches('const cosigners = policy.witnesses.filter((w) => cp.signature.some((s) => s.kid === w.kid));')).toHaveLength(1);
    expect(kidMatches('const conn = conns.find((c) => c.kid === witness.kid);')).toHaveLength(1);
    expect(kidMatches('const w = witnessOfC2spKid(policy.witnesses, sig.kid);')).toHaveLength(0);
    expect(kidMatches('if (counted.some((k) => sameWitness(k, w))) continue;')).toHaveLength(0);
  });

  it('sequencer/, witness/client/, verifier/ and web/ hold none', () => {
    const found: string[] = [];
    for (const d of SURFACES)
      for (const f of sources(d)) {
        const rel = relative(ROOT, join(ROOT, f)).split('\\').join('/');
        if (ALLOWED.has(rel)) continue;
        for (const l of kidMatches(readFileSync(join(ROOT, f), 'utf8'))) found.push(`${rel}: ${l}`);
      }
    expect(found).toEqual([]);
  });
});
