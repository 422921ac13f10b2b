// Every reader of JSON text in the product goes through verifier/encoding/strict-json.ts (docs/design.md §3, I-JSON:
// a repeated member name is refused, never read as its last spelling), so two parts never read one
// document two ways. The check reads the sources: a `JSON.parse(` or a fetch `.json()` outside the
// strict reader itself is allowed only where the text is trusted, each place named below with why.
// Test kits and tests are not product code and are not checked.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['verifier', 'sequencer', 'witness', 'executor', 'logstore', 'demo', 'bin'];
/** Test support, not product code. */
const KITS = new Set([
  'testkit/verifier-fixtures.ts',
  'testkit/json-arbitraries.ts',
  'testkit/executor.ts',
  'testkit/witness.ts',
  'testkit/witness-procs.ts',
]);

/** file -> how many JSON.parse calls it may hold, and why the text is trusted there. */
const ALLOWED: Record<string, { count: number; why: string }> = {
  'verifier/encoding/strict-json.ts': {
    count: 2,
    why: 'the strict reader itself (after its checks), and one string token it has already scanned',
  },
  'verifier/bundle/verifier.ts': { count: 1, why: 'claimedPlace: a line already refused, read again only to name its seq in the report' },
  'logstore/payload-codec.ts': { count: 2, why: 'bytes our own encoder wrote' },
  'logstore/entry-codec.ts': { count: 1, why: 'bytes our own encoder wrote' },
  'logstore/values.ts': { count: 1, why: 'bytes our own encoder wrote' },
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) {
      if (d.name !== 'node_modules') out.push(...sources(p));
    } else if (/\.(?:ts|js)$/.test(d.name) && !/\.test\.ts$/.test(d.name)) out.push(p);
  }
  return out;
}

/** JSON.parse calls in code (comments and strings removed first, roughly but enough here). */
function parseCalls(src: string): number {
  const code = src
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");
  return (code.match(/\bJSON\.parse\s*\(/g) ?? []).length + (code.match(/\.json\(\s*\)/g) ?? []).length;
}

describe('untrusted JSON is read only through verifier/encoding/strict-json.ts', () => {
  it('finds the calls it claims to (so the check below can fail)', () => {
    expect(
      parseCalls(
        "const a = JSON.parse(text); // JSON.parse(x)\nconst b = await res.json();\n/* JSON.parse(y) */ const s = 'JSON.parse(z)';",
      ),
    ).toBe(2);
  });

  it('holds for every product file, with the trusted places named', () => {
    const offences: string[] = [];
    let files = 0;
    for (const f of FOLDERS.flatMap((d) => sources(join(ROOT, d)))) {
      const rel = relative(ROOT, f).split('\\').join('/');
      if (KITS.has(rel)) continue;
      files++;
      const n = parseCalls(readFileSync(f, 'utf8'));
      const allowed = ALLOWED[rel]?.count ?? 0;
      if (n !== allowed)
        offences.push(`${rel}: ${n} JSON.parse/.json() call(s), ${allowed} allowed${ALLOWED[rel] ? ` (${ALLOWED[rel].why})` : ''}`);
    }
    expect(files).toBeGreaterThan(100);
    expect(offences).toEqual([]);
  });
});
