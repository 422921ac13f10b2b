// The conformance runner end to end: the full run over conformance/vectors (or $COOKWALA_VECTORS)
// passes with cases in every topic (this is how `npm test` runs conformance); a copied folder
// with one verdict flipped reports exactly that failure and exits 1; an empty folder exits 1
// ("no case ran"); renamed files (same patterns) still run the same cases; every "any subset
// present" case of the vectors README runs what is there and nothing throws; the generator
// reproduces the committed vectors byte for byte. No test skips: the vectors are in the project.
// Temp copies live in os.tmpdir() (testkit/tmp.ts).
import { spawn } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultVectorDirs } from './cli.ts';
import { ownVectorsDir, projectRoot, vectorsDir } from './vectors-dir.ts';
import { runConformance, type ConformanceReport } from './runner.ts';
import { generateVectors, serialize } from './generate.ts';
import { listFiles } from './files.ts';
import { rawSignatureToDer } from './topics/der.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const ROOT = projectRoot();
/** The vectors every test reads ($COOKWALA_VECTORS or conformance/vectors), and our own generated ones. */
const VECTORS = vectorsDir();
const OWN_DIR = ownVectorsDir();
const ALL_TOPICS = ['jcs', 'ed25519', 'ecdsa-p256', 'merkle', 'signed-note', 'cloudevents'];

let tmp: string;
beforeAll(async () => {
  tmp = await makeTempDir('cookwala-conformance-');
});
afterAll(async () => {
  if (tmp) await removeDir(tmp);
});

async function freshDir(name: string): Promise<string> {
  const d = path.join(tmp, name);
  await mkdir(d, { recursive: true });
  return d;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'cookwala.js'), 'conformance', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
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
    expect(full.dirs.map((d) => d.dir)).toEqual([VECTORS]);
    expect(full.dirs[0].present, `${VECTORS} is missing`).toBe(true);
    expect(failures(full)).toEqual([]);
    const c = counts(full);
    for (const t of ALL_TOPICS) expect(c[t]?.passed, `${t} ran no case`).toBeGreaterThan(0);
    // Our own vectors sit in the default folder; another folder ($COOKWALA_VECTORS) may hold only public ones.
    if (VECTORS === OWN_DIR) expect(c.cookwala?.passed).toBeGreaterThan(0);
    expect(full.ok).toBe(true);
  });

  it('the CLI exits 0 and ends with the totals line alone', async () => {
    const r = await cli([], { COOKWALA_VECTORS: '' });
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toMatch(/^\d+ passed, 0 failed(, \d+ skipped)?$/);
    expect(r.stdout.split('\n')[0]).toBe(`${OWN_DIR}:`);
    for (const t of [...ALL_TOPICS, 'cookwala']) expect(r.stdout).toMatch(new RegExp(`\\n  ${t}\\s+[1-9]\\d* passed, 0 failed`));
  });

  it('--json prints the whole report', async () => {
    const r = await cli(['--vectors', OWN_DIR, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as ConformanceReport;
    expect(j.ok).toBe(true);
    expect(j.dirs[0].topics.map((t) => t.topic)).toEqual([...ALL_TOPICS, 'cookwala']);
  });
});

describe('failures are reported exactly', () => {
  it('a flipped CloudEvents verdict is that one failure, and exit 1', async () => {
    const dir = await freshDir('flip-ce');
    await cp(path.join(VECTORS, 'cloudevents'), path.join(dir, 'cloudevents'), { recursive: true });
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

  it('a flipped Wycheproof Ed25519 result fails on both backends and nowhere else', async () => {
    const dir = await freshDir('flip-ed');
    await cp(path.join(VECTORS, 'ed25519'), path.join(dir, 'ed25519'), { recursive: true });
    const name = (await readdir(path.join(dir, 'ed25519'))).find((n) => /^wycheproof-.*_test\.json$/.test(n))!;
    const f = path.join(dir, 'ed25519', name);
    const doc = JSON.parse(await readFile(f, 'utf8')) as { testGroups: Array<{ tests: Array<{ tcId: number; result: string }> }> };
    const victim = doc.testGroups.flatMap((g) => g.tests).find((t) => t.result === 'invalid')!;
    victim.result = 'valid';
    await writeFile(f, JSON.stringify(doc));
    const r = await runConformance([{ dir }]);
    expect(
      failures(r)
        .map((x) => x.id)
        .sort(),
    ).toEqual([`tcId ${victim.tcId} [noble]`, `tcId ${victim.tcId} [node]`]);
    expect(failures(r).every((x) => x.expected === 'valid' && x.got === 'invalid')).toBe(true);
    expect(r.ok).toBe(false);
  });

  it('a Wycheproof "acceptable" result passes when the backends agree, and the policy is stated', async () => {
    const dir = await freshDir('acceptable');
    await mkdir(path.join(dir, 'ed25519'));
    const name = (await readdir(path.join(VECTORS, 'ed25519'))).find((n) => /^wycheproof-.*_test\.json$/.test(n))!;
    const doc = JSON.parse(await readFile(path.join(VECTORS, 'ed25519', name), 'utf8')) as {
      testGroups: Array<{ tests: Array<{ result: string }> }>;
    };
    doc.testGroups[0].tests[0].result = 'acceptable';
    await writeFile(path.join(dir, 'ed25519', name), JSON.stringify(doc));
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([]);
    expect(r.dirs[0].topics[0].notes.join(' ')).toMatch(/acceptable.*same one/);
  });

  it('a flipped verdict in our own vectors is that one failure', async () => {
    const dir = await freshDir('flip-own');
    await cp(path.join(OWN_DIR, 'cookwala'), path.join(dir, 'cookwala'), { recursive: true });
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
    const r = await runConformance([{ dir }], {
      topics: [{ name: 'jcs', uses: ['verifier/jcs-v2.ts'], load: async () => Promise.reject(missing) }],
    });
    expect(r.ok).toBe(false);
    expect(failures(r)).toEqual([expect.objectContaining({ id: '(topic)', got: expect.stringContaining('missing from this build') })]);
  });

  it('bad usage exits 2', async () => {
    expect((await cli(['--nope'])).code).toBe(2);
    expect((await cli(['--vectors', path.join(tmp, 'does-not-exist')])).code).toBe(2);
  });

  it('COOKWALA_VECTORS naming a missing folder is bad usage, named, and nothing runs', async () => {
    const missing = path.join(tmp, 'no-vectors-here');
    const r = await cli([], { COOKWALA_VECTORS: missing });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`COOKWALA_VECTORS=${missing}: not a directory`);
    expect(r.stdout).not.toMatch(/passed/);
  });

  it('COOKWALA_VECTORS picks another folder laid out the same way, instead of conformance/vectors', async () => {
    const dir = await freshDir('env-dir');
    await cp(path.join(VECTORS, 'signed-note'), path.join(dir, 'signed-note'), { recursive: true });
    const r = await cli([], { COOKWALA_VECTORS: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`${dir}:`);
    expect(r.stdout).toMatch(/signed-note\s+237 passed, 0 failed/);
    expect(r.stdout).not.toMatch(/cookwala\s/);
    expect(defaultVectorDirs({ COOKWALA_VECTORS: dir })).toEqual([{ dir }]);
    expect(defaultVectorDirs({})).toEqual([{ dir: OWN_DIR }]);
  });

  it('a --vectors DIR that vanished between the check and the run fails the run (missingDir)', async () => {
    const r = await runConformance([{ dir: OWN_DIR }, { dir: path.join(tmp, 'gone') }]);
    expect(r.missingDir).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.failed).toBe(0);
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
  if (/^(input|output|outhex|spec-examples|conformance)$/.test(path.posix.basename(dir)) || dir.includes('testdata/'))
    b = `renamed-${base}`;
  else
    for (const [re, to] of rules)
      if (re.test(base)) {
        b = base.replace(re, to);
        break;
      }
  const d = dir.replace(/testdata\/(inclusion|consistency)\/([^/]+)/, 'testdata/$1/renamed-$2');
  return d === '.' ? b : `${d}/${b}`;
}

describe('files are found by pattern', () => {
  it('renamed files (same patterns) run the same cases', async () => {
    const dir = await freshDir('renamed');
    let moved = 0;
    for (const rel of (await listFiles(VECTORS)).filter((f) => !f.startsWith('cookwala/'))) {
      const to = renamed(rel);
      if (to !== rel) moved++;
      await mkdir(path.join(dir, path.dirname(to)), { recursive: true });
      await cp(path.join(VECTORS, rel), path.join(dir, to));
    }
    expect(moved).toBeGreaterThan(100);
    const r = await runConformance([{ dir }]);
    expect(failures(r)).toEqual([]);
    const want = counts(full ?? (await runConformance([{ dir: VECTORS }])));
    delete want.cookwala;
    expect(counts(r)).toEqual(want);
  });

  it('a DIR that is itself a topic folder runs that topic', async () => {
    const r = await runConformance([{ dir: path.join(VECTORS, 'jcs') }]);
    expect(r.dirs[0].topics.map((t) => t.topic)).toEqual(['jcs']);
    expect(r.ok).toBe(true);
  });

  it('a Wycheproof DER file (held out of the shared set) runs through the strict DER reader', async () => {
    const dir = await freshDir('der');
    const src = (await readdir(path.join(VECTORS, 'ecdsa-p256'))).find((n) => /^wycheproof-.*p1363.*_test\.json$/.test(n))!;
    const doc = JSON.parse(await readFile(path.join(VECTORS, 'ecdsa-p256', src), 'utf8')) as {
      testGroups: Array<{ type: string; tests: Array<{ tcId: number; sig: string; result: string; comment: string }> }>;
    };
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
        extra.push({
          ...t,
          tcId: next++,
          sig: Buffer.concat([der, Buffer.from([0])]).toString('hex'),
          result: 'invalid',
          comment: 'trailing byte',
        });
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

/**
 * A temp vectors DIR holding only `files`: each value is a path under VECTORS to copy, or the
 * content to write (objects as JSON).
 */
async function subsetDir(name: string, files: Record<string, string | { json: unknown }>): Promise<string> {
  const dir = await freshDir(`subset-${name}`);
  for (const [rel, what] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    if (typeof what === 'string') await cp(path.join(VECTORS, what), path.join(dir, rel), { recursive: true });
    else await writeFile(path.join(dir, rel), JSON.stringify(what.json));
  }
  return dir;
}

async function readVector<T>(rel: string): Promise<T> {
  return JSON.parse(await readFile(path.join(VECTORS, rel), 'utf8')) as T;
}

type MerkleRef = Record<string, unknown> & {
  rootHashesBySize: Array<{ treeSize: number; rootHash: string }>;
  inclusionProofs: Array<{ treeSize: number; rootHash: string; proof: string[] }>;
  consistencyProofs: Array<{ size1: number; size2: number; proof: string[] }>;
};
const REF = 'merkle/rfc6962-reference-tree.json';

/** Run one DIR: its per-topic counts, failures, skip reasons, and whether the run is ok. */
async function runSubset(dir: string) {
  const r = await runConformance([{ dir }]);
  return { r, c: counts(r), fails: failures(r), skips: r.dirs.flatMap((d) => d.topics.flatMap((t) => t.skips)) };
}

describe('every "any subset present" case of the vectors README runs what is there', () => {
  it('merkle reference with proofs and roots but no leaf inputs: proofs verified against their roots, no throw', async () => {
    const { leafInputs: _l, leafHashes: _h, nodeHashesByLevel: _n, ...rest } = await readVector<MerkleRef>(REF);
    const { r, c, fails, skips } = await runSubset(
      await subsetDir('merkle-no-leaves', { 'merkle/rfc6962-reference-x.json': { json: rest } }),
    );
    expect(fails).toEqual([]);
    // 7 inclusion + 3 consistency proofs verified; roots at 0 (empty tree) and at every size a proof names.
    expect(c.merkle).toEqual({ passed: 7 + 3 + 7, failed: 0, skipped: 2 });
    expect(skips).toEqual([{ reason: 'a root beyond the leaves given, named by no proof of the file', count: 2 }]);
    expect(r.ok).toBe(true);
  });

  it('the leafless checks can fail: a wrong proof hash, or a stated root that disagrees with a proof', async () => {
    const { leafInputs: _l, leafHashes: _h, nodeHashesByLevel: _n, ...rest } = await readVector<MerkleRef>(REF);
    const bad = structuredClone(rest) as MerkleRef;
    const p = bad.inclusionProofs.find((x) => x.proof.length > 0)!;
    p.proof[0] = p.proof[0].replace(/^./, (ch) => (ch === '0' ? '1' : '0'));
    bad.rootHashesBySize.find((x) => x.treeSize === 8)!.rootHash = '00'.repeat(32);
    const { fails } = await runSubset(await subsetDir('merkle-no-leaves-bad', { 'merkle/rfc6962-reference-x.json': { json: bad } }));
    expect(fails.map((f) => f.id).sort()).toEqual([
      `inclusion ${(p as unknown as { leafIndex: number }).leafIndex} in ${p.treeSize}`,
      'root size 8',
    ]);
    expect(fails.find((f) => f.id !== 'root size 8')!.expected).toBe('the reference proof verifies');
  });

  it('merkle reference: leaves and roots only, nodes only, consistency proofs only, and leaves alone', async () => {
    const ref = await readVector<MerkleRef>(REF);
    const dir = await subsetDir('merkle-parts', {
      'merkle/rfc6962-reference-roots.json': { json: { leafInputs: ref.leafInputs, rootHashesBySize: ref.rootHashesBySize } },
      'merkle/rfc6962-reference-nodes.json': { json: { nodeHashesByLevel: ref.nodeHashesByLevel, rootHashesBySize: ref.rootHashesBySize } },
      'merkle/rfc6962-reference-consistency.json': { json: { consistencyProofs: ref.consistencyProofs } },
      'merkle/rfc6962-reference-leaves.json': { json: { leafInputs: ref.leafInputs } },
    });
    const { r, c, fails, skips } = await runSubset(dir);
    expect(fails).toEqual([]);
    // roots: 9 from leaves; nodes: levels 1-3 + 9 roots; consistency: 3; leaves alone: one skip.
    expect(c.merkle).toEqual({ passed: 9 + 3 + 9 + 3, failed: 0, skipped: 1 });
    expect(skips).toEqual([{ reason: 'leaves with no hashes, roots or proofs to compare them with', count: 1 }]);
    expect(r.ok).toBe(true);
  });

  it('merkle probes: inclusion files without consistency files or a reference tree', async () => {
    const { c, fails } = await runSubset(await subsetDir('merkle-inclusion', { 'merkle/testdata/inclusion': 'merkle/testdata/inclusion' }));
    expect(fails).toEqual([]);
    const want = (await listFiles(path.join(VECTORS, 'merkle/testdata/inclusion'))).filter((f) => f.endsWith('.json')).length;
    expect(c.merkle).toEqual({ passed: want, failed: 0, skipped: 0 });
  });

  it('signed-note: keys.json, notes.json or checkpoints.json alone, and files holding only some sections', async () => {
    const keys = await readVector<Record<string, unknown>>('signed-note/keys.json');
    const cps = await readVector<Record<string, unknown>>('signed-note/checkpoints.json');
    for (const [name, files, passed] of [
      ['keys', { 'signed-note/keys.json': 'signed-note/keys.json' }, 9 + 3 + 196],
      ['notes', { 'signed-note/notes.json': 'signed-note/notes.json' }, 18],
      ['checkpoints', { 'signed-note/checkpoints.json': 'signed-note/checkpoints.json' }, 6 + 2 + 3],
      [
        'sections',
        {
          'signed-note/keys-invalid.json': { json: { invalidVkeys: keys.invalidVkeys } },
          'signed-note/checkpoints-bodies.json': { json: { bodies: cps.bodies } },
        },
        3 + 6,
      ],
    ] as const) {
      const { r, c, fails } = await runSubset(await subsetDir(`note-${name}`, files));
      expect(fails, name).toEqual([]);
      expect(c['signed-note'], name).toEqual({ passed, failed: 0, skipped: 0 });
      expect(r.ok, name).toBe(true);
    }
  });

  it('jcs: pairs without outhex/, pairs with only outhex/, and the number files alone', async () => {
    const names = (await readdir(path.join(VECTORS, 'jcs', 'input'))).filter((n) => n.endsWith('.json'));
    const noHex = await runSubset(await subsetDir('jcs-no-outhex', { 'jcs/input': 'jcs/input', 'jcs/output': 'jcs/output' }));
    expect(noHex.fails).toEqual([]);
    expect(noHex.c.jcs).toEqual({ passed: names.length, failed: 0, skipped: 0 });
    const hexOnly = await runSubset(await subsetDir('jcs-outhex-only', { 'jcs/input': 'jcs/input', 'jcs/outhex': 'jcs/outhex' }));
    expect(hexOnly.fails).toEqual([]);
    expect(hexOnly.c.jcs.passed).toBe((await readdir(path.join(VECTORS, 'jcs', 'outhex'))).length);
    const inputOnly = await runSubset(await subsetDir('jcs-input-only', { 'jcs/input': 'jcs/input' }));
    expect(inputOnly.c.jcs).toEqual({ passed: 0, failed: 0, skipped: names.length });
    const numbers = (await readdir(path.join(VECTORS, 'jcs'))).filter((n) => /^es6-numbers-|^number-samples/.test(n));
    const nums = await runSubset(await subsetDir('jcs-numbers', Object.fromEntries(numbers.map((n) => [`jcs/${n}`, `jcs/${n}`]))));
    expect(nums.fails).toEqual([]);
    expect(nums.c.jcs.passed).toBeGreaterThan(1000);
  });

  it('jcs: an output/ file that is not UTF-8 is that one failure, shown as hex (the topic does not throw)', async () => {
    const dir = await subsetDir('jcs-bad-output', { 'jcs/input/a.json': { json: { b: 1, a: 2 } } });
    await mkdir(path.join(dir, 'jcs', 'output'));
    await writeFile(path.join(dir, 'jcs', 'output', 'a.json'), Buffer.from([0x7b, 0xff, 0x7d]));
    const { fails } = await runSubset(dir);
    expect(fails).toEqual([expect.objectContaining({ topic: 'jcs', id: 'a', expected: '(not UTF-8) 7bff7d', got: '{"a":2,"b":1}' })]);
  });

  it('ed25519, ecdsa-p256 and cloudevents: each file kind alone', async () => {
    const pick = async (topic: string, re: RegExp) => (await listFiles(path.join(VECTORS, topic))).filter((f) => re.test(f));
    const kinds: Array<[string, RegExp]> = [
      ['ed25519', /^rfc8032-/],
      ['ed25519', /^sign\.input/],
      ['ed25519', /^wycheproof-.*_test\.json$/],
      ['ecdsa-p256', /^rfc7515-/],
      ['ecdsa-p256', /^rfc6979-/],
      ['ecdsa-p256', /^wycheproof-.*_test\.json$/],
      ['cloudevents', /^cases/],
      ['cloudevents', /^spec-examples\//],
      ['cloudevents', /^conformance\//],
    ];
    for (const [i, [topic, re]] of kinds.entries()) {
      const files = await pick(topic, re);
      expect(files.length, `${topic} ${re}`).toBeGreaterThan(0);
      const { r, c, fails } = await runSubset(
        await subsetDir(`kind-${i}`, Object.fromEntries(files.map((f) => [`${topic}/${f}`, `${topic}/${f}`]))),
      );
      expect(fails, `${topic} ${re}`).toEqual([]);
      expect(c[topic].passed, `${topic} ${re}`).toBeGreaterThan(0);
      expect(r.ok, `${topic} ${re}`).toBe(true);
    }
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
      expect(await readFile(path.join(OWN_DIR, 'cookwala', name), 'utf8'), `${name} is stale: run npx tsx conformance/generate.ts`).toBe(
        serialize(a[name]),
      );
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
