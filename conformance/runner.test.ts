// The conformance runner end to end: the full run over ../shared/vectors and conformance/vectors
// passes with cases in every topic (this is how `npm test` runs conformance); a copied folder
// with one verdict flipped reports exactly that failure and exits 1; an empty folder exits 1
// ("no case ran"); renamed files (same patterns) still run the same cases; the generator
// reproduces the committed vectors byte for byte. Temp copies live in os.tmpdir().
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultVectorDirs, projectRoot } from './cli.ts';
import { runConformance, type ConformanceReport } from './runner.ts';
import { generateVectors, serialize } from './generate.ts';
import { listFiles } from './files.ts';
import { rawSignatureToDer } from './topics/der.ts';

const ROOT = projectRoot();
const [SHARED_DIR, OWN_DIR] = defaultVectorDirs().map((d) => d.dir);
const SHARED = existsSync(SHARED_DIR);
const ALL_TOPICS = ['jcs', 'ed25519', 'ecdsa-p256', 'merkle', 'signed-note', 'cloudevents'];

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cookwala-conformance-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function freshDir(name: string): Promise<string> {
  const d = path.join(tmp, name);
  await mkdir(d, { recursive: true });
  return d;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'cookwala.js'), 'conformance', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function lastLine(s: string): string {
  const lines = s.trimEnd().split('\n');
  return lines[lines.length - 1];
}

function counts(r: ConformanceReport): Record<string, { passed: number; failed: number; skipped: number }> {
  const out: Record<string, { passed: number; failed: number; skipped: number }> = {};
  for (const d of r.dirs) for (const t of d.topics) out[t.topic] = { passed: t.passed, failed: t.failed, skipped: t.skipped };
  return out;
}

function failures(r: ConformanceReport) {
  return r.dirs.flatMap((d) => d.topics.flatMap((t) => t.failures.map((f) => ({ topic: t.topic, ...f }))));
}

let full: ConformanceReport;

describe('the full conformance run', () => {
  it('passes with 0 failures and cases in every topic', async () => {
    full = await runConformance(defaultVectorDirs());
    expect(failures(full)).toEqual([]);
    const c = counts(full);
    expect(c.cookwala?.passed).toBeGreaterThan(0);
    if (!SHARED) {
      expect(full.dirs[0].present).toBe(false);
      return;
    }
    for (const t of ALL_TOPICS) expect(c[t]?.passed, `${t} ran no case`).toBeGreaterThan(0);
    expect(full.ok).toBe(true);
  });

  it('the CLI exits 0 and ends with the totals line alone', async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toMatch(/^\d+ passed, 0 failed(, \d+ skipped)?$/);
    expect(r.stdout).toMatch(/cookwala\s+\d+ passed, 0 failed/);
  });

  it('--json prints the whole report', async () => {
    const r = await cli(['--vectors', OWN_DIR, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as ConformanceReport;
    expect(j.ok).toBe(true);
    expect(j.dirs[0].topics[0].topic).toBe('cookwala');
  });
});

describe('failures are reported exactly', () => {
  it.skipIf(!SHARED)('a flipped CloudEvents verdict is that one failure, and exit 1', async () => {
    const dir = await freshDir('flip-ce');
    await cp(path.join(SHARED_DIR, 'cloudevents'), path.join(dir, 'cloudevents'), { recursive: true });
    const f = path.join(dir, 'cloudevents', 'cases.json');
    const doc = JSON.parse(await readFile(f, 'utf8')) as { cases: Array<{ id: string; expected: string }> };
    const victim = doc.cases.find((c) => c.expected === 'invalid')!;
    victim.expected = 'valid';
    await writeFile(f, JSON.stringify(doc, null, 2));
    const r = await cli(['--vectors', dir]);
    expect(r.code).toBe(1);
    const fails = r.stdout.split('\n').filter((l) => l.includes('FAIL'));
    expect(fails).toHaveLength(1);
    expect(fails[0]).toContain('cloudevents/cases.json');
    expect(fails[0]).toContain(`[${victim.id}]`);
    expect(fails[0]).toMatch(/expected valid; got invalid \(invalid_event/);
    expect(lastLine(r.stdout)).toMatch(/^\d+ passed, 1 failed(, \d+ skipped)?$/);
  });

  it.skipIf(!SHARED)('a flipped Wycheproof Ed25519 result fails on both backends and nowhere else', async () => {
    const dir = await freshDir('flip-ed');
    await cp(path.join(SHARED_DIR, 'ed25519'), path.join(dir, 'ed25519'), { recursive: true });
    const name = (await readdir(path.join(dir, 'ed25519'))).find((n) => /^wycheproof-.*_test\.json$/.test(n))!;
    const f = path.join(dir, 'ed25519', name);
    const doc = JSON.parse(await readFile(f, 'utf8')) as { testGroups: Array<{ tests: Array<{ tcId: number; result: string }> }> };
    const victim = doc.testGroups.flatMap((g) => g.tests).find((t) => t.result === 'invalid')!;
    victim.result = 'valid';
    await writeFile(f, JSON.stringify(doc));
    const r = await runConformance([{ dir }]);
    expect(failures(r).map((x) => x.id).sort()).toEqual([`tcId ${victim.tcId} [noble]`, `tcId ${victim.tcId} [node]`]);
    expect(failures(r).every((x) => x.expected === 'valid' && x.got === 'invalid')).toBe(true);
    expect(r.ok).toBe(false);
  });

  it.skipIf(!SHARED)('a Wycheproof "acceptable" result passes when the backends agree, and the policy is stated', async () => {
    const dir = await freshDir('acceptable');
    await mkdir(path.join(dir, 'ed25519'));
    const name = (await readdir(path.join(SHARED_DIR, 'ed25519'))).find((n) => /^wycheproof-.*_test\.json$/.test(n))!;
    const doc = JSON.parse(await readFile(path.join(SHARED_DIR, 'ed25519', name), 'utf8')) as { testGroups: Array<{ tests: Array<{ result: string }> }> };
    doc.testGroups[0].tests[0].result = 'acceptable';
    await writeFile(path.join(dir, 'ed25519', name), JSON.stringify(doc));
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([]);
    expect(r.dirs[0].topics[0].notes.join(' ')).toMatch(/acceptable.*same one/);
  });

  it('a flipped verdict in our own vectors is that one failure', async () => {
    const dir = await freshDir('flip-own');
    await cp(OWN_DIR, dir, { recursive: true });
    const name = (await readdir(path.join(dir, 'cookwala'))).filter((n) => n.endsWith('.json')).sort()[0];
    const f = path.join(dir, 'cookwala', name);
    const doc = JSON.parse(await readFile(f, 'utf8')) as { cases: Array<{ id: string; expected: { ok: boolean; code?: string } }> };
    const victim = doc.cases.find((c) => !c.expected.ok)!;
    const code = victim.expected.code;
    victim.expected = { ok: true };
    await writeFile(f, JSON.stringify(doc, null, 2));
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([expect.objectContaining({ topic: 'cookwala', file: name, id: victim.id, expected: 'ok' })]);
    expect(failures(r)[0].got.startsWith(`${code} `)).toBe(true);
  });

  it('an empty folder runs no case and exits 1', async () => {
    const dir = await freshDir('empty');
    const r = await cli(['--vectors', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('no case ran');
    expect(lastLine(r.stdout)).toBe('0 passed, 0 failed');
  });

  it('a topic whose implementation is missing fails loudly instead of passing', async () => {
    const dir = await freshDir('missing');
    await mkdir(path.join(dir, 'jcs'));
    const missing = Object.assign(new Error("Cannot find module '/x/verifier/jcs-v2.ts'"), { code: 'ERR_MODULE_NOT_FOUND' });
    const r = await runConformance([{ dir }], { topics: [{ name: 'jcs', uses: ['verifier/jcs-v2.ts'], load: async () => Promise.reject(missing) }] });
    expect(r.ok).toBe(false);
    expect(failures(r)).toEqual([expect.objectContaining({ id: '(topic)', got: expect.stringContaining('missing from this build') })]);
  });

  it('bad usage exits 2', async () => {
    expect((await cli(['--nope'])).code).toBe(2);
    expect((await cli(['--vectors', path.join(tmp, 'does-not-exist')])).code).toBe(2);
  });

  it('an absent default public-vector folder is said plainly and our own vectors still run', async () => {
    const r = await cli([], { COOKWALA_VECTORS: path.join(tmp, 'no-shared-vectors-here') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('not found, so the public vectors did NOT run');
    expect(r.stdout).toMatch(/cookwala\s+\d+ passed, 0 failed/);
  });
});

/** Rename every vector file to another name that the README patterns still match. */
function renamed(rel: string): string {
  const dir = path.posix.dirname(rel);
  const base = path.posix.basename(rel);
  const rules: Array<[RegExp, string]> = [
    [/^wycheproof-(.*)_test\.json$/, 'wycheproof-renamed-$1_test.json'],
    [/^rfc6962-reference-(.*)$/, 'rfc6962-reference-renamed-$1'],
    [/^(rfc\d+-)(.*)$/, '$1renamed-$2'],
    [/^es6-numbers-.*\.txt$/, 'es6-numbers-renamed.txt'],
    [/^number-samples\.json$/, 'number-samples-renamed.json'],
    [/^sign\.input(.*)\.txt$/, 'sign.input-renamed$1.txt'],
    [/^cases\.json$/, 'cases-renamed.json'],
    [/^(keys|notes|checkpoints)\.json$/, '$1-renamed.json'],
  ];
  let b = base;
  if (/^(input|output|outhex|spec-examples|conformance)$/.test(path.posix.basename(dir)) || dir.includes('testdata/')) b = `renamed-${base}`;
  else for (const [re, to] of rules) if (re.test(base)) { b = base.replace(re, to); break; }
  const d = dir.replace(/testdata\/(inclusion|consistency)\/([^/]+)/, 'testdata/$1/renamed-$2');
  return d === '.' ? b : `${d}/${b}`;
}

describe('files are found by pattern', () => {
  it.skipIf(!SHARED)('renamed files (same patterns) run the same cases', async () => {
    const dir = await freshDir('renamed');
    let moved = 0;
    for (const rel of await listFiles(SHARED_DIR)) {
      const to = renamed(rel);
      if (to !== rel) moved++;
      await mkdir(path.join(dir, path.dirname(to)), { recursive: true });
      await cp(path.join(SHARED_DIR, rel), path.join(dir, to));
    }
    expect(moved).toBeGreaterThan(100);
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([]);
    const want = counts(full ?? (await runConformance([{ dir: SHARED_DIR }])));
    delete want.cookwala;
    expect(counts(r)).toEqual(want);
  });

  it.skipIf(!SHARED)('a DIR that is itself a topic folder runs that topic', async () => {
    const r = await runConformance([{ dir: path.join(SHARED_DIR, 'jcs') }]);
    expect(r.dirs[0].topics.map((t) => t.topic)).toEqual(['jcs']);
    expect(r.ok).toBe(true);
  });

  it.skipIf(!SHARED)('a Wycheproof DER file (held out of the shared set) runs through the strict DER reader', async () => {
    const dir = await freshDir('der');
    const src = (await readdir(path.join(SHARED_DIR, 'ecdsa-p256'))).find((n) => /^wycheproof-.*p1363.*_test\.json$/.test(n))!;
    const doc = JSON.parse(await readFile(path.join(SHARED_DIR, 'ecdsa-p256', src), 'utf8')) as { testGroups: Array<{ type: string; tests: Array<{ tcId: number; sig: string; result: string; comment: string }> }> };
    let next = 100_000;
    let malformed = 0;
    for (const g of doc.testGroups) {
      g.type = 'EcdsaVerify';
      const extra: typeof g.tests = [];
      for (const t of g.tests) {
        if (t.sig.length !== 128) continue; // other lengths stay bytes that are not DER: invalid either way
        const der = Buffer.from(rawSignatureToDer(Buffer.from(t.sig, 'hex')));
        t.sig = der.toString('hex');
        if (t.result !== 'valid') continue;
        // Non-DER spellings of a valid signature must be invalid: BER length, trailing byte.
        const ber = Buffer.concat([Buffer.from([0x30, 0x81]), der.subarray(1)]);
        extra.push({ ...t, tcId: next++, sig: ber.toString('hex'), result: 'invalid', comment: 'BER long-form length' });
        extra.push({ ...t, tcId: next++, sig: Buffer.concat([der, Buffer.from([0])]).toString('hex'), result: 'invalid', comment: 'trailing byte' });
        malformed += 2;
      }
      g.tests.push(...extra);
    }
    expect(malformed).toBeGreaterThan(100);
    await mkdir(path.join(dir, 'ecdsa-p256'));
    await writeFile(path.join(dir, 'ecdsa-p256', 'wycheproof-ecdsa_secp256r1_sha256_test.json'), JSON.stringify(doc));
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([]);
    expect(r.passed).toBe(2 * doc.testGroups.reduce((n, g) => n + g.tests.length, 0));
  });
});

describe('our own vectors', () => {
  it('are exactly what conformance/generate.ts produces (deterministic)', async () => {
    const a = await generateVectors();
    const b = await generateVectors();
    expect(Object.keys(a).map((k) => serialize(a[k]))).toEqual(Object.keys(b).map((k) => serialize(b[k])));
    const committed = (await readdir(path.join(OWN_DIR, 'cookwala'))).filter((n) => n.endsWith('.json')).sort();
    expect(committed).toEqual(Object.keys(a).sort());
    for (const name of committed) {
      expect(await readFile(path.join(OWN_DIR, 'cookwala', name), 'utf8'), `${name} is stale: run npx tsx conformance/generate.ts`).toBe(serialize(a[name]));
    }
  });

  it('every file has the documented shape and every code is in verifier/errors.ts', async () => {
    const { isReasonCode } = await import('../verifier/errors.ts');
    const { findOp } = await import('./topics/cookwala-op-table.ts');
    for (const [name, f] of Object.entries(await generateVectors())) {
      expect(typeof f.topic, name).toBe('string');
      expect(f.description.length, name).toBeGreaterThan(10);
      const ids = new Set<string>();
      for (const c of f.cases) {
        expect(ids.has(c.id), `${name} ${c.id} duplicated`).toBe(false);
        ids.add(c.id);
        expect(findOp(c.input.op), `${name} ${c.id} op ${c.input.op}`).toBeDefined();
        if (!c.expected.ok) expect(isReasonCode(c.expected.code), `${name} ${c.id}`).toBe(true);
      }
      expect(f.cases.some((c) => c.expected.ok) && f.cases.some((c) => !c.expected.ok), `${name} has valid and invalid cases`).toBe(true);
    }
  });
});
