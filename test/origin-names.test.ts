// Origins are names, not paths (docs/design.md §4): the origin grammar (checkOrigin) is
// enforced wherever an origin enters (POST /v1/logs, cookwala init, witness add-log, a policy
// file) with invalid_origin, and nothing is created on disk for a refused one; an accepted origin
// maps to one folder inside logs/ and one mark file inside checkpoints/, injectively. Real
// sequencer (real LevelDB in a temp dir, fastify inject), real CLI child processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { cookwala } from '../testkit/audit.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { checkOrigin, originSegment } from '../verifier/documents/log-descriptor.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';
import { logDirName } from '../sequencer/config.ts';

const BAD = [
  '..',
  '.',
  '',
  'a/..',
  '../a',
  'a/../b',
  'a/./b',
  './a',
  'a//b',
  '/a',
  'a/',
  'a b',
  'a+b',
  'https://a.example/b',
  'a\\b',
  'ä.example',
  'a\u0000b',
  'x'.repeat(201),
  '%2F'.repeat(60) + 'a'.repeat(1),
];

async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    out.push(join(e.parentPath ?? (e as { path?: string }).path ?? '', e.name).slice(dir.length));
  return out.sort();
}

describe('checkOrigin', () => {
  it('refuses paths, empty and dot segments, schemes, spaces, +, non-ASCII and overlong names with invalid_origin', () => {
    for (const o of BAD) expect(checkOrigin(o), JSON.stringify(o)).toMatchObject({ ok: false, code: 'invalid_origin' });
    for (const o of [
      'kitchen.example.org/missions/m-0042',
      'a',
      'example.org:8443/a/b',
      'a.b/..c/d..',
      'x'.repeat(200),
      'sigsum.org/v1/tree/' + 'ab'.repeat(32),
    ])
      expect(checkOrigin(o).ok, o).toBe(true);
  });
  it('maps accepted origins injectively to one path segment that is never ".", ".." or empty (property)', () => {
    const ch = fc.constantFrom(...'ab.-_~:/%!*()@=;,'.split(''));
    fc.assert(
      fc.property(fc.array(fc.string({ unit: ch, minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 40 }), (names) => {
        const seen = new Map<string, string>();
        for (const o of names) {
          if (!checkOrigin(o).ok) {
            expect(() => logDirName(o)).toThrow();
            continue;
          }
          const seg = originSegment(o);
          expect(seg).not.toMatch(/\//);
          expect(['', '.', '..']).not.toContain(seg);
          expect(seg.length).toBeLessThanOrEqual(200);
          const other = seen.get(seg);
          if (other !== undefined) expect(other).toBe(o);
          seen.set(seg, o);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('origins entering the sequencer', () => {
  let t: TestSequencer;
  beforeAll(async () => {
    t = await startSequencer();
  });
  afterAll(async () => {
    await t.close();
  });
  const auth = () => ({ authorization: `Bearer ${t.token}` });

  it('POST /v1/logs {"log":".."} and every other bad origin: 400 invalid_origin, nothing created', async () => {
    const before = await tree(t.dir);
    for (const log of BAD) {
      const r = await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth(), payload: { log, mode: 'full' } });
      expect(r.statusCode, JSON.stringify(log)).toBe(400);
      expect(r.json().code, JSON.stringify(log)).toBe('invalid_origin');
      expect(r.headers['content-type']).toContain('application/problem+json');
    }
    expect(await tree(t.dir)).toEqual(before);
  });
  it('an accepted origin with / and : gets one folder in logs/ and one mark in checkpoints/', async () => {
    const log = 'odd.example:8443/a/..b/c.';
    const r = await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth(), payload: { log, mode: 'full' } });
    expect(r.statusCode, r.body).toBe(201);
    expect(await readdir(join(t.dir, 'logs'))).toContain(encodeURIComponent(log));
    const top = (await readdir(t.dir)).sort();
    expect(top.every((n) => !n.startsWith('odd'))).toBe(true);
  });
});

describe('origins entering the CLIs and files', () => {
  const dirs = tempDirs('cookwala-origin-');
  afterAll(() => dirs.cleanup());
  it('cookwala init --log .. refuses with invalid_origin and creates no log', async () => {
    const dir = await dirs.make();
    const r = await cookwala(['init', '--data', dir, '--log', '..']);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('invalid_origin');
    const names = await readdir(dir).catch(() => [] as string[]);
    expect(names).not.toContain('logs');
  }, 30_000);
  it('witness add-log --log a/../b refuses with invalid_origin', async () => {
    const dir = await dirs.make();
    const init = await cookwala(['witness', 'init', '--data', dir, '--name', 'w-origin']);
    expect(init.code, init.stderr).toBe(0);
    const seqDir = await dirs.make();
    expect((await cookwala(['init', '--data', seqDir])).code).toBe(0);
    const r = await cookwala([
      'witness',
      'add-log',
      '--data',
      dir,
      '--log',
      'a/../b',
      '--sequencer-key',
      join(seqDir, 'sequencer.keyrecord.json'),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('invalid_origin');
    const cfg = await readFile(join(dir, 'witness.json'), 'utf8').catch(() => '');
    expect(cfg).not.toContain('a/../b');
  }, 30_000);
  it('a policy file naming log ".." is refused with invalid_origin', async () => {
    const seqDir = await dirs.make();
    expect((await cookwala(['init', '--data', seqDir])).code).toBe(0);
    const policy = JSON.parse(await readFile(join(seqDir, 'policy.json'), 'utf8'));
    expect(readWitnessPolicy(policy).ok).toBe(true);
    expect(readWitnessPolicy({ ...policy, log: '..' })).toMatchObject({ ok: false, code: 'invalid_origin' });
    expect(readWitnessPolicy({ ...policy, log: 'a//b' })).toMatchObject({ ok: false, code: 'invalid_origin' });
  }, 30_000);
});
