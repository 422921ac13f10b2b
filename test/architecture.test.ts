// ARCHITECTURE (docs/design.md §2, STYLE "the folders are the architecture"): a table of layers, one row
// per folder, naming the folders of ours that a product file there may import; any other arrow
// fails. On top of the table, the pure core (verifier/) imports no I/O or
// network stack (fastify, level, libp2p, node's fs, net, child_process, worker_threads), so it
// runs in a browser, and no product file imports the test kit. The table has no cycle, and neither
// have the areas inside the core (CORE_AREAS, lowest first: an area imports only areas before it).
// A product file that imports another top-level folder imports that folder's public surface, its
// index file (bin/ dispatches to each part's CLI file and is exempt; so are tests, bench/, testkit/
// and tools/). Tests (`*.test.ts`, test/) and
// bench/ may import any product folder and testkit/, but tests never reach into bench/. The check
// reads every import form (static, re-export, side-effect, dynamic import(), require()).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Layer of a project path: the longest row prefix it falls under. */
const LAYERS: Record<string, readonly string[]> = {
  verifier: [],
  auditor: ['verifier', 'platform'],
  platform: ['verifier'],
  logstore: ['verifier', 'platform'],
  'witness/wire': ['verifier', 'platform'],
  'witness/server': ['verifier', 'platform', 'witness/wire', 'web/server'],
  'witness/client': ['verifier', 'platform', 'witness/wire'],
  witness: ['verifier', 'platform', 'witness/wire', 'witness/server', 'witness/client'],
  executor: ['verifier', 'platform'],
  device: ['verifier', 'platform'],
  sequencer: ['verifier', 'platform', 'logstore', 'witness/wire', 'witness/client', 'web/server'],
  'web/src': ['verifier'],
  'web/server': ['verifier', 'platform'],
  web: ['verifier', 'platform', 'web/src', 'web/server'],
  conformance: ['verifier', 'platform'],
  monitor: ['verifier', 'platform'],
  demo: [
    'verifier',
    'platform',
    'web',
    'logstore',
    'sequencer',
    'witness',
    'witness/wire',
    'witness/client',
    'witness/server',
    'executor',
    'web/server',
  ],
  bin: [
    'verifier',
    'auditor',
    'platform',
    'logstore',
    'sequencer',
    'witness',
    'witness/wire',
    'witness/client',
    'witness/server',
    'executor',
    'device',
    'conformance',
    'demo',
    'monitor',
    'web',
    'web/server',
  ],
  testkit: [
    'verifier',
    'auditor',
    'platform',
    'logstore',
    'sequencer',
    'witness',
    'witness/wire',
    'witness/client',
    'witness/server',
    'executor',
    'conformance',
    'demo',
    'monitor',
    'bin',
    'web',
    'web/server',
    'web/src',
  ],
  tools: ['*', '!test', '!bench'],
  bench: ['*', '!test'],
  test: ['*', '!bench'],
};
const TEST_ROW = ['*', '!bench'];
const PURE_FORBIDDEN = [
  /^fastify(?:\/|$)/,
  /^@fastify\//,
  /^level(?:\/|$)/,
  /^classic-level(?:\/|$)/,
  /^libp2p(?:\/|$)/,
  /^@libp2p\//,
  /^@chainsafe\//,
  /^pino(?:\/|$)/,
  /^prom-client(?:\/|$)/,
  /^(?:node:)?fs(?:\/|$)/,
  /^(?:node:)?net(?:\/|$)/,
  /^(?:node:)?child_process(?:\/|$)/,
  /^(?:node:)?worker_threads(?:\/|$)/,
];

/** Every module specifier a source file imports, in any of the forms TS and ESM allow. */
export function importsOf(src: string): string[] {
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

export function layerOf(path: string): string | undefined {
  let best: string | undefined;
  for (const row of Object.keys(LAYERS))
    if ((path === row || path.startsWith(row + '/')) && (!best || row.length > best.length)) best = row;
  return best;
}

function allowed(fromPath: string, toLayer: string): boolean {
  const from = layerOf(fromPath);
  if (from === undefined) return false;
  if (from === toLayer) return true;
  const row = /\.test\.ts$/.test(fromPath) ? TEST_ROW : LAYERS[from];
  if (row.includes('!' + toLayer)) return false;
  return row.includes('*') || row.includes(toLayer);
}

/** Offences in a set of files: {path relative to the root: source text}. */
export function offences(files: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [path, src] of Object.entries(files)) {
    const from = layerOf(path);
    if (from === undefined) continue;
    const isTest = /\.test\.ts$/.test(path) || from === 'test' || from === 'bench' || from === 'testkit';
    for (const spec of importsOf(src)) {
      if (spec.startsWith('.')) {
        const target = relative(ROOT, resolve(ROOT, dirname(path), spec))
          .split(sep)
          .join('/');
        const to = layerOf(target);
        if (to === undefined) {
          out.push(`${path} imports ${spec}, outside every layer`);
          continue;
        }
        if (!allowed(path, to)) out.push(`${path} (${from}) imports ${spec} (${to})`);
      } else if (!isTest && from === 'verifier' && PURE_FORBIDDEN.some((re) => re.test(spec))) {
        out.push(`${path} (pure core) imports ${spec}`);
      }
    }
  }
  return out;
}

function sourceFiles(dir: string, acc: Record<string, string> = {}): Record<string, string> {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    const rel = relative(ROOT, p).split(sep).join('/');
    if (d.isDirectory()) {
      if (d.name === 'node_modules' || d.name === 'dist' || d.name.startsWith('.') || rel === 'conformance/vectors') continue;
      sourceFiles(p, acc);
    } else if (/\.(?:ts|js|mjs)$/.test(d.name) && !d.name.endsWith('.d.ts')) acc[rel] = readFileSync(p, 'utf8');
  }
  return acc;
}

/** The areas of the pure core, lowest first: a file of one imports only its own area and earlier ones. */
export const CORE_AREAS = [
  'verifier',
  'verifier/encoding',
  'verifier/crypto',
  'verifier/merkle',
  'verifier/c2sp/note',
  'verifier/signing',
  'verifier/cloudevent',
  'verifier/documents',
  'verifier/c2sp',
  'verifier/bundle',
] as const;

function coreAreaOf(path: string): number {
  if (path === 'verifier/index.ts') return -1; // the library surface: it re-exports every area
  let best = -1;
  CORE_AREAS.forEach((a, i) => {
    if (path.startsWith(a + '/') && (best < 0 || a.length > CORE_AREAS[best].length)) best = i;
  });
  return best;
}

const SURFACE_EXEMPT = /^(?:bin|test|bench|testkit|tools)\//;

/** Offences against the core's area order and against public surfaces (imports into another top-level folder end in index.ts). */
export function surfaceOffences(files: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [path, src] of Object.entries(files)) {
    if (/\.test\.ts$/.test(path)) continue;
    for (const spec of importsOf(src)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(ROOT, resolve(ROOT, dirname(path), spec))
        .split(sep)
        .join('/');
      const from = coreAreaOf(path);
      const to = coreAreaOf(target);
      if (from >= 0 && to > from) out.push(`${path} (${CORE_AREAS[from]}) imports ${spec} (${CORE_AREAS[to]}, a later area of the core)`);
      if (SURFACE_EXEMPT.test(path) || !path.includes('/') || !/\.ts$/.test(target)) continue;
      if (path.split('/')[0] !== target.split('/')[0] && !target.endsWith('/index.ts'))
        out.push(`${path} imports ${spec}: another folder's internals, not its index.ts`);
    }
  }
  return out;
}

describe('architecture: the layer table holds for every file', () => {
  it('finds the import forms it claims to', () => {
    const src = [
      "import Fastify from 'fastify';",
      'import { Level } from "level";',
      "import type { Libp2p } from 'libp2p';",
      "export { tcp } from '@libp2p/tcp';",
      "import 'node:fs';",
      "const net = await import('node:net');",
      "const cp = require('child_process');",
      "import {\n  Worker,\n} from 'node:worker_threads';",
    ].join('\n');
    expect(importsOf(src)).toEqual(
      expect.arrayContaining(['fastify', 'level', 'libp2p', '@libp2p/tcp', 'node:fs', 'node:net', 'child_process', 'node:worker_threads']),
    );
  });

  it('fails on a forbidden arrow (a test of the test)', () => {
    expect(offences({ 'verifier/documents/x.ts': "import { Level } from 'level';" })).toHaveLength(1);
    expect(offences({ 'verifier/documents/x.ts': "import { a } from '../../sequencer/app.ts';" })).toEqual([
      'verifier/documents/x.ts (verifier) imports ../../sequencer/app.ts (sequencer)',
    ]);
    expect(offences({ 'logstore/x.ts': "import { a } from '../sequencer/app.ts';" })).toHaveLength(1);
    expect(offences({ 'sequencer/x.ts': "import { a } from '../testkit/tmp.ts';" })).toHaveLength(1);
    expect(offences({ 'sequencer/x.ts': "import { a } from '../witness/server/state.ts';" })).toHaveLength(1);
    expect(offences({ 'witness/client/x.ts': "import { a } from '../server/gossip.ts';" })).toHaveLength(1);
    expect(offences({ 'test/x.test.ts': "import { a } from '../bench/run.ts';" })).toHaveLength(1);
    expect(offences({ 'verifier/merkle/x.test.ts': "import { a } from '../../bench/run.ts';" })).toHaveLength(1);
    // and allows what the table allows
    expect(offences({ 'sequencer/x.ts': "import { a } from '../logstore/store.ts'; import { b } from '../verifier/errors.ts';" })).toEqual(
      [],
    );
    expect(
      offences({ 'auditor/x.ts': "import { readFile } from 'node:fs/promises'; import { a } from '../platform/sig-pool.ts';" }),
    ).toEqual([]);
    expect(offences({ 'verifier/x.test.ts': "import { readFile } from 'node:fs'; import { a } from '../testkit/tmp.ts';" })).toEqual([]);
  });

  it('holds for every source file of the project', () => {
    const files = sourceFiles(ROOT);
    delete files['test/architecture.test.ts']; // its own examples above are offences on purpose
    expect(Object.keys(files).filter((f) => f.startsWith('verifier/')).length).toBeGreaterThan(30);
    expect(offences(files)).toEqual([]);
  });
});

/**
 * The cycles of a layer table: every set of rows that reach one another through their allowed
 * imports (strongly connected components of two or more rows, and a row that names itself), each
 * as its sorted row names. The rows that may import anything (`*`: tests, bench) and the test kit
 * serve tests only and are left out.
 */
export function layerCycles(table: Readonly<Record<string, readonly string[]>>): string[][] {
  const rows = Object.keys(table).filter((r) => !table[r].includes('*') && r !== 'testkit');
  const edges = (r: string) => table[r].filter((t) => rows.includes(t));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges(v).includes(v)) out.push(scc.sort());
    }
  };
  for (const r of rows) if (!index.has(r)) visit(r);
  return out.sort((a, b) => a.join().localeCompare(b.join()));
}

/**
 * The cycles the table permits: none. The explorer's API routes live in sequencer/ (its
 * explorer-routes.ts) and web/server only serves pages, so nothing imports back.
 */
const KNOWN_CYCLES: string[][] = [];

describe('architecture: the layer table has no cycle', () => {
  it('finds a new cycle (a test of the test)', () => {
    expect(layerCycles({ a: ['b'], b: ['c'], c: [] })).toEqual([]);
    expect(layerCycles({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })).toEqual([['a', 'b', 'c']]);
    expect(layerCycles({ a: ['a'] })).toEqual([['a']]);
    expect(layerCycles({ a: ['b'], b: ['a'], test: ['*'] })).toEqual([['a', 'b']]);
    // platform importing logstore would close logstore -> platform -> logstore
    expect(layerCycles({ ...LAYERS, platform: [...LAYERS.platform, 'logstore'] })).toEqual(
      expect.arrayContaining([['logstore', 'platform']]),
    );
  });

  it('the table holds exactly the known cycles', () => {
    expect(layerCycles(LAYERS)).toEqual(KNOWN_CYCLES);
  });
  it('the core keeps its area order and other folders import public surfaces (a test of the test)', () => {
    expect(surfaceOffences({ 'verifier/signing/x.ts': "import { a } from '../documents/policy.ts';" })).toHaveLength(1);
    expect(surfaceOffences({ 'verifier/documents/x.ts': "import { a } from '../signing/keys.ts';" })).toEqual([]);
    expect(surfaceOffences({ 'sequencer/x.ts': "import { a } from '../verifier/documents/policy.ts';" })).toHaveLength(1);
    expect(surfaceOffences({ 'sequencer/x.ts': "import { a } from '../verifier/documents/index.ts';" })).toEqual([]);
    expect(surfaceOffences({ 'bin/x.ts': "import { a } from '../verifier/documents/policy.ts';" })).toEqual([]);
    expect(surfaceOffences({ 'sequencer/x.test.ts': "import { a } from '../verifier/documents/policy.ts';" })).toEqual([]);
  });

  it('every product file keeps the core order and imports other folders through their index.ts', () => {
    const files = sourceFiles(ROOT);
    delete files['test/architecture.test.ts'];
    expect(surfaceOffences(files)).toEqual([]);
  });
});
