// web/build.ts: builds the three pages of web/ (docs/design.md §12b) with esbuild (a pinned devDependency)
// into web/dist/ (not committed: `npm run build:web`, npm's `prepare`, the demo and the web tests
// build it). Each page is ONE self-contained HTML file: the stylesheet and the bundled script are
// inlined (the verifier page's Web Workers, the verifier's and the signature workers', are bundled too and inlined into its script as a string,
// started from a blob: URL), so the verifier page works opened from disk, where a browser would
// refuse to load a worker or a script from a file: URL. Each page's Content-Security-Policy
// allows exactly its own inline script and style by their SHA-256 hashes, 'unsafe-eval' for ajv's
// compiled schemas (the same strict reader as the CLI), and no network at all on the verifier
// page (connect-src 'none'); the explorer and the witness page may fetch only their own origin.
// The browser build swaps verifier/crypto/node.ts for a stub (web/src/lib/no-node-crypto.ts says how) and refuses
// any other node: import. Files are written under a temporary name and renamed, so concurrent
// builds (parallel test files) never leave a torn page. manifest.json gives each page's CSP for
// the servers' headers. Left out: source maps (the pages ship minified, the sources are here).

import { build, type Plugin } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_ROOT = dirname(fileURLToPath(import.meta.url));
export const DIST = join(WEB_ROOT, 'dist');

export type PageName = 'verifier' | 'explorer' | 'witness';

export interface PageInfo {
  file: string;
  csp: string;
  bytes: number;
}

export type Manifest = Record<PageName, PageInfo>;

export const browserOnly: Plugin = {
  name: 'cookwala-browser-only',
  setup(b) {
    // The node:crypto backend, wherever the verifier keeps it, resolved by absolute path.
    const nodeBackends = new Set([
      join(WEB_ROOT, '..', 'verifier', 'crypto', 'node.ts'),
      join(WEB_ROOT, '..', 'verifier', 'crypto-node.ts'),
    ]);
    b.onResolve({ filter: /node\.ts$/ }, (a) =>
      nodeBackends.has(resolve(dirname(a.importer), a.path)) ? { path: join(WEB_ROOT, 'src', 'lib', 'no-node-crypto.ts') } : undefined,
    );
    b.onResolve({ filter: /^node:|^(fs|net|path|os|child_process|worker_threads|crypto|buffer|stream)$/ }, (a) => ({
      errors: [{ text: `the browser build may not import ${a.path} (from ${a.importer})` }],
    }));
  },
};

/** Bundle one entry to an IIFE string that is safe to inline in <script>. */
async function bundle(entry: string, define: Record<string, string> = {}): Promise<string> {
  const r = await build({
    entryPoints: [join(WEB_ROOT, 'src', entry)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    // COOKWALA_WEB_READABLE=1 keeps the names, so a CPU profile of a page names its functions.
    minifyWhitespace: true,
    minifySyntax: true,
    minifyIdentifiers: process.env.COOKWALA_WEB_READABLE !== '1',
    legalComments: 'none',
    charset: 'utf8',
    define,
    plugins: [browserOnly],
    logLevel: 'silent',
  });
  // `</` and `<!--` can only occur inside strings, templates, regexes or comments of the output,
  // where `<\/` and `<\!--` mean the same; in HTML they would end or confuse the <script> element.
  const js = r.outputFiles[0].text.replace(/<\//g, '<\\/').replace(/<!--/g, '<\\!--');
  if (/<\/script|<!--/i.test(js)) throw new Error(`${entry}: the bundle cannot be inlined safely`);
  return js;
}

const sha = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

function csp(page: PageName, script: string, style: string): string {
  const base = [
    "default-src 'none'",
    `script-src ${sha(script)} 'unsafe-eval'`,
    `style-src ${sha(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ];
  if (page === 'verifier') return [...base, "connect-src 'none'", 'worker-src blob:'].join('; ');
  return [...base, "connect-src 'self'"].join('; ');
}

async function page(name: PageName, script: string, style: string): Promise<{ html: string; csp: string }> {
  const template = await readFile(join(WEB_ROOT, 'pages', `${name}.html`), 'utf8');
  const policy = csp(name, script, style);
  const parts: Record<string, string> = { CSP: policy, STYLE: style, SCRIPT: script };
  // One pass with a function replacement: nothing inserted is ever scanned for placeholders.
  const html = template.replace(/\{\{(CSP|STYLE|SCRIPT)\}\}/g, (_m, k: string) => parts[k]);
  return { html, csp: policy };
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Build every page into `outDir` (default web/dist) and return the manifest. */
export async function buildWeb(outDir = DIST): Promise<Manifest> {
  const style = (await readFile(join(WEB_ROOT, 'pages', 'style.css'), 'utf8')).replace(/<\//g, '<\\/');
  const [worker, sigWorker] = await Promise.all([bundle('verifier-page/worker.ts'), bundle('verifier-page/sig-worker.ts')]);
  const [verifierJs, explorerJs, witnessJs] = await Promise.all([
    bundle('verifier-page/main.ts', { __COOKWALA_WORKER__: JSON.stringify(worker), __COOKWALA_SIG_WORKER__: JSON.stringify(sigWorker) }),
    bundle('explorer/main.ts'),
    bundle('witness-page/main.ts'),
  ]);
  await mkdir(outDir, { recursive: true });
  const manifest = {} as Manifest;
  for (const [name, js] of [
    ['verifier', verifierJs],
    ['explorer', explorerJs],
    ['witness', witnessJs],
  ] as const) {
    const p = await page(name, js, style);
    const file = `${name}.html`;
    await writeAtomic(join(outDir, file), p.html);
    manifest[name] = { file, csp: p.csp, bytes: Buffer.byteLength(p.html) };
  }
  await writeAtomic(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

async function newestSource(dir: string): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  let newest = 0;
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) newest = Math.max(newest, await newestSource(p));
    else newest = Math.max(newest, (await stat(p)).mtimeMs);
  }
  return newest;
}

/**
 * Build web/dist unless it is newer than every source it comes from (web/src, web/pages and the
 * verifier it bundles). What tests and the demo call; returns the manifest.
 */
export async function ensureWebBuilt(outDir = DIST): Promise<Manifest> {
  try {
    const built = (await stat(join(outDir, 'manifest.json'))).mtimeMs;
    const sources = Math.max(...(await Promise.all(['src', 'pages', '../verifier'].map((d) => newestSource(join(WEB_ROOT, d))))));
    if (built > sources) return JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    // not built yet
  }
  return buildWeb(outDir);
}

// `node --import tsx web/build.ts [OUT_DIR] [--if-stale]` (npm run build:web; the demo passes --if-stale).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--')) ?? DIST;
  const t0 = Date.now();
  const m = args.includes('--if-stale') ? await ensureWebBuilt(out) : await buildWeb(out);
  for (const p of Object.values(m)) process.stdout.write(`${join(out, p.file)}  ${(p.bytes / 1024).toFixed(0)} KiB\n`);
  process.stdout.write(`built in ${Date.now() - t0} ms\n`);
}
