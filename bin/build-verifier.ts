// bin/build-verifier.ts: builds the verifier library that package.json `exports` as
// `cookwala-log/verifier` (docs/auditors.md "The verifier as a library"): verifier/index.ts bundled
// by esbuild into two self-contained ES modules under dist/ (not committed; npm's `prepare`
// builds them, and so does test/verifier-package.test.ts): dist/verifier.js for Node (the
// node:crypto backend, node: built-ins left as imports) and dist/verifier.browser.js for browsers
// and bundlers (the `browser` condition), where verifier/crypto/node.ts is replaced by the @noble
// backend, so the default backend works with no call first, and any node: import fails the build.
// Both carry their dependencies (@noble, ajv, canonicalize) inside, so a user needs nothing else.
// Files are written under a temporary name and renamed, so concurrent builds never leave a torn
// file. Left out: type declarations (TypeScript users may import verifier/index.ts itself).

import { build, type Plugin } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const LIB_DIST = join(ROOT, 'dist');
const ENTRY = join(ROOT, 'verifier', 'index.ts');
const NODE_BACKEND = join(ROOT, 'verifier', 'crypto', 'node.ts');
const NOBLE_BACKEND = join(ROOT, 'verifier', 'crypto', 'noble.ts');

/** In the browser build the node:crypto backend is the @noble one, and nothing may import node:. */
const browserBackend: Plugin = {
  name: 'cookwala-verifier-browser',
  setup(b) {
    b.onResolve({ filter: /node\.ts$/ }, (a) =>
      resolve(dirname(a.importer), a.path) === NODE_BACKEND ? { path: NODE_BACKEND, namespace: 'noble-default' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'noble-default' }, () => ({
      contents: `export { createNobleBackend as createNodeBackend } from ${JSON.stringify(NOBLE_BACKEND)};`,
      loader: 'ts',
      resolveDir: dirname(NOBLE_BACKEND),
    }));
    b.onResolve({ filter: /^node:|^(fs|net|path|os|child_process|worker_threads|crypto|buffer|stream)$/ }, (a) => ({
      errors: [{ text: `the browser build may not import ${a.path} (from ${a.importer})` }],
    }));
  },
};

async function bundle(platform: 'node' | 'browser'): Promise<string> {
  const r = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform,
    target: platform === 'node' ? ['node20'] : ['chrome120', 'firefox121', 'safari17'],
    legalComments: 'eof',
    charset: 'utf8',
    plugins: platform === 'browser' ? [browserBackend] : [],
    logLevel: 'silent',
  });
  return r.outputFiles[0].text;
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Builds dist/verifier.js and dist/verifier.browser.js; returns their paths. */
export async function buildVerifierLib(outDir = LIB_DIST): Promise<{ node: string; browser: string }> {
  const [node, browser] = await Promise.all([bundle('node'), bundle('browser')]);
  await mkdir(outDir, { recursive: true });
  const out = { node: join(outDir, 'verifier.js'), browser: join(outDir, 'verifier.browser.js') };
  await writeAtomic(out.node, node);
  await writeAtomic(out.browser, browser);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await buildVerifierLib();
  console.log(`built ${out.node} and ${out.browser}`);
}
