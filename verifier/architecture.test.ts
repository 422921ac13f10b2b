// ARCHITECTURE (DESIGN §2): verifier/ is the pure core that also runs in a browser. Outside
// verifier/cli/, no non-test module may import fastify, level, classic-level, libp2p, @libp2p/*,
// @chainsafe/*, or node's fs, net, child_process and worker_threads. The check reads every import
// form (static, re-export, side-effect, dynamic import(), require()) from the files themselves.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const FORBIDDEN = [/^fastify(?:\/|$)/, /^level(?:\/|$)/, /^classic-level(?:\/|$)/, /^libp2p(?:\/|$)/, /^@libp2p\//, /^@chainsafe\//, /^(?:node:)?fs(?:\/|$)/, /^(?:node:)?net(?:\/|$)/, /^(?:node:)?child_process(?:\/|$)/, /^(?:node:)?worker_threads(?:\/|$)/];

/** Every module specifier a source file imports, in any of the forms TS and ESM allow. */
function importsOf(src: string): string[] {
  const out: string[] = [];
  const patterns = [
    /(?:^|[\s;])import\s+(?:type\s+)?[\w*{}\s,$]*?\s*from\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])export\s+(?:type\s+)?[\w*{}\s,$]*?\s*from\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of src.matchAll(re)) out.push(m[1]);
  return out;
}

function productFiles(dir: string): string[] {
  const files: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) {
      if (relative(ROOT, p) === 'cli' || d.name === 'node_modules') continue;
      files.push(...productFiles(p));
    } else if (/\.(?:ts|js|mjs)$/.test(d.name) && !/\.test\.ts$/.test(d.name)) files.push(p);
  }
  return files;
}

describe('verifier/ imports no I/O or network stack outside verifier/cli/', () => {
  it('finds the import forms it claims to (so the check below can fail)', () => {
    const src = [
      "import Fastify from 'fastify';",
      "import { Level } from \"level\";",
      "import type { Libp2p } from 'libp2p';",
      "export { tcp } from '@libp2p/tcp';",
      "import 'node:fs';",
      "const net = await import('node:net');",
      "const cp = require('child_process');",
      "import {\n  Worker,\n} from 'node:worker_threads';",
    ].join('\n');
    const found = importsOf(src);
    expect(found).toEqual(expect.arrayContaining(['fastify', 'level', 'libp2p', '@libp2p/tcp', 'node:fs', 'node:net', 'child_process', 'node:worker_threads']));
    expect(found.filter((s) => FORBIDDEN.some((re) => re.test(s))).length).toBe(8);
    expect(importsOf("import { x } from './fs-like.ts'").some((s) => FORBIDDEN.some((re) => re.test(s)))).toBe(false);
  });

  it('holds for every non-test file under verifier/ outside cli/', () => {
    const files = productFiles(ROOT);
    expect(files.length).toBeGreaterThan(10);
    const offences: string[] = [];
    for (const f of files) {
      for (const spec of importsOf(readFileSync(f, 'utf8'))) {
        if (FORBIDDEN.some((re) => re.test(spec))) offences.push(`${relative(ROOT, f)} imports ${spec}`);
      }
    }
    expect(offences).toEqual([]);
  });
});
