// The header paragraph of every source file (STYLE: what it implements, what it leaves out, which
// invariant it keeps) names only things that exist: each path-like reference (a name ending in
// `.ts`, `.js`, `.json` or `.md`) resolves to a file relative to the file's own folder or the
// project root; a vector file may be named by its file name alone (it lives under
// conformance/vectors/); a data file that a program writes at run time is named under a
// placeholder folder (`DIR/...`) or in capitals (`KEYRECORD.json`), or is on the short list below,
// as are other specifications' files; URL paths (`/openapi.json`, `.well-known/cookwala.json`) and
// globs (`*.test.ts`) are not file references. And no header carries work-tracker words (an issue
// number, the word for a task's instructions), which rot as soon as the work is done.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', 'vectors', 'coverage', 'data']);

/** Names that are not files of this repository: run-time data files and other specifications. */
const EXTERNAL = new Set([
  // files a program writes or reads in a data directory (sequencer, witness, executor, demo)
  'config.json',
  'policy.json',
  'keys.json',
  'demo.json',
  'fork-proof.json',
  'witness-info.json',
  'did.json',
  'manifest.json',
  'device.json',
  // other specifications' documents, cited by name
  'spec.md', // CloudEvents
  'json-format.md', // CloudEvents
  'docs/log-list-format.md', // C2SP tlog-witness log lists
  'profiles/core/safety-limits.default.json', // the Cookwala spec repository
  'vocab/ops.json', // the Cookwala spec repository
]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.(?:ts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

function allFiles(dir: string, out = new Set<string>()): Set<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) allFiles(p, out);
    else out.add(p);
  }
  return out;
}

/** The first comment paragraph: the leading `//` lines, or a leading block comment (after a shebang). */
export function headerOf(text: string): string {
  const lines = text.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  const out: string[] = [];
  if (lines[i]?.trimStart().startsWith('/*')) {
    for (; i < lines.length; i++) {
      out.push(lines[i]);
      if (lines[i].includes('*/')) break;
    }
  } else for (; i < lines.length && lines[i].startsWith('//'); i++) out.push(lines[i]);
  return out.join('\n');
}

const REF = /(?:\.\.\/)*\b[\w/.-]+\.(?:ts|js|json|md)\b/g;
const TRACKER = /\bissue \d+|\bthe brief\b/gi;

/** The references of a header that resolve to nothing. */
export function unresolved(file: string, header: string, exists: (p: string) => boolean, vectorNames: Set<string>): string[] {
  const bad: string[] = [];
  for (const m of header.matchAll(REF)) {
    const before = header[m.index - 1] ?? ' ';
    if ('*/.:<>{$'.includes(before)) continue; // a glob, a URL path or a template, not a file
    const ref = m[0].replace(/\.$/, '');
    if (/^[A-Z][A-Z0-9_-]*(?:\/|\.json$)/.test(ref)) continue; // DIR/config.json, KEYRECORD.json: placeholders
    if (EXTERNAL.has(ref) || vectorNames.has(ref)) continue;
    if (exists(path.resolve(path.dirname(file), ref)) || exists(path.resolve(ROOT, ref))) continue;
    bad.push(ref);
  }
  return bad;
}

describe('source file headers', () => {
  const files = sourceFiles(ROOT);
  const present = allFiles(ROOT);
  const vectorNames = new Set(
    [...present].filter((p) => p.startsWith(path.join(ROOT, 'conformance', 'vectors'))).map((p) => path.basename(p)),
  );
  const exists = (p: string) => present.has(p);

  it('the checker finds a stale name, a glob is no file, a placeholder folder is data', () => {
    const f = path.join(ROOT, 'verifier', 'crypto', 'node.ts');
    expect(
      unresolved(f, '// see crypto-noble.ts and noble.ts, *.test.ts, GET /openapi.json, DIR/x.json, cases.json', exists, vectorNames),
    ).toEqual(['crypto-noble.ts']);
    expect(unresolved(f, '// verifier/signing/keys.ts and ../../README.md.', exists, vectorNames)).toEqual([]);
    expect(unresolved(f, '// ../signing/keys.ts resolves, ../nope/keys.ts and ../../nothing.md do not', exists, vectorNames)).toEqual([
      '../nope/keys.ts',
      '../../nothing.md',
    ]);
    // (the example is assembled, so that the repository itself never spells a tracker reference)
    expect(['// filed as issue', '12; see the brief'].join(' ').match(TRACKER)).toEqual([['issue', '12'].join(' '), 'the brief']);
  });

  it('every source file has a header paragraph', () => {
    const missing = files.filter((f) => headerOf(readFileSync(f, 'utf8')).trim() === '').map((f) => path.relative(ROOT, f));
    expect(missing).toEqual([]);
  });

  it('every file a header names exists', () => {
    const bad = files.flatMap((f) =>
      unresolved(f, headerOf(readFileSync(f, 'utf8')), exists, vectorNames).map((r) => `${path.relative(ROOT, f)}: ${r}`),
    );
    expect(bad).toEqual([]);
  });

  it('no header carries work-tracker words', () => {
    const bad = files.flatMap((f) =>
      [...headerOf(readFileSync(f, 'utf8')).matchAll(TRACKER)].map((m) => `${path.relative(ROOT, f)}: ${m[0]}`),
    );
    expect(bad).toEqual([]);
  });
});

describe('the product speaks of the product', () => {
  const files = sourceFiles(ROOT).map((f) => path.relative(ROOT, f));
  const TRACKER_ANYWHERE = new RegExp(['\\bissue', '\\d+\\b'].join(' '), 'i');
  // A measured figure in microseconds (`25 µs`, `3 us`) in a comment of product code: a run's
  // result, which belongs in docs/benchmarks.md, not beside the code it will outlive.
  const MEASURED = /^\s*(?:\/\/|\*).*\d\s?(?:µs|us)\b/m;

  it('no source file or test spells a tracker reference', () => {
    expect(files.filter((f) => TRACKER_ANYWHERE.test(readFileSync(path.join(ROOT, f), 'utf8')))).toEqual([]);
    expect(TRACKER_ANYWHERE.test(['see', 'issue', '7'].join(' '))).toBe(true);
  });

  it('no comment of product code carries a measured microsecond figure', () => {
    const product = files.filter((f) => !/\.test\.ts$|^(?:test|testkit|bench)\//.test(f));
    expect(product.length).toBeGreaterThan(100);
    expect(product.filter((f) => MEASURED.test(readFileSync(path.join(ROOT, f), 'utf8')))).toEqual([]);
    expect(MEASURED.test('  // costs about 25 µs a request')).toBe(true);
    expect(MEASURED.test("  const budgetUs = 25; // microseconds, not a figure: 'us' alone")).toBe(false);
  });
});
