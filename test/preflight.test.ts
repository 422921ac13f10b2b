// `npm test` on a machine without Chromium or PostgreSQL (bin/preflight.sh, docs/testing.md): the
// script runs before the type-check and the tests, says nothing when both are there, and, when it
// may not install (not root, or told not to), stops at once with exit 1 and the one apt-get command
// naming exactly what is missing. Real bash, the script's own knobs pointing at empty places.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testkit/tmp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = tempDirs('cookwala-preflight-');
afterAll(() => tmp.cleanup());

function preflight(env: Record<string, string>): { code: number | null; err: string; ms: number } {
  const t0 = Date.now();
  const base = { ...process.env };
  delete base.COOKWALA_TEST_PG;
  const r = spawnSync('bash', [join(ROOT, 'bin/preflight.sh')], { env: { ...base, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, err: r.stderr, ms: Date.now() - t0 };
}

describe('npm test preflight', () => {
  it('is the first step of npm test', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test.startsWith('bash bin/preflight.sh && ')).toBe(true);
    expect(pkg.scripts['test:unit']).not.toContain('preflight');
  });

  it('says nothing and passes when chromium and a PostgreSQL are there', async () => {
    const dir = await tmp.make();
    const chromium = join(dir, 'chromium');
    writeFileSync(chromium, '#!/bin/sh\n', { mode: 0o755 });
    mkdirSync(join(dir, 'pg', '16', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'pg', '16', 'bin', 'pg_ctl'), '#!/bin/sh\n', { mode: 0o755 });
    const r = preflight({
      COOKWALA_PREFLIGHT_CHROMIUM: chromium,
      COOKWALA_PREFLIGHT_PG_ROOT: join(dir, 'pg'),
      COOKWALA_PREFLIGHT_NO_INSTALL: '1',
    });
    expect(r).toMatchObject({ code: 0, err: '' });
    // a PostgreSQL URL stands in for the package
    const u = preflight({
      COOKWALA_PREFLIGHT_CHROMIUM: chromium,
      COOKWALA_PREFLIGHT_PG_ROOT: '/nonexistent',
      COOKWALA_PREFLIGHT_NO_INSTALL: '1',
      COOKWALA_TEST_PG: 'postgres://x@127.0.0.1:1/p',
    });
    expect(u.code).toBe(0);
  });

  it('stops within seconds with the command to run, naming only what is missing', async () => {
    const dir = await tmp.make();
    const both = preflight({
      COOKWALA_PREFLIGHT_CHROMIUM: join(dir, 'none'),
      COOKWALA_PREFLIGHT_PG_ROOT: join(dir, 'none'),
      COOKWALA_PREFLIGHT_NO_INSTALL: '1',
    });
    expect(both.code).toBe(1);
    expect(both.ms).toBeLessThan(5_000);
    expect(both.err).toContain('sudo apt-get install -y --no-install-recommends chromium postgresql\n');
    const chromium = join(dir, 'chromium');
    writeFileSync(chromium, '#!/bin/sh\n', { mode: 0o755 });
    const pgOnly = preflight({
      COOKWALA_PREFLIGHT_CHROMIUM: chromium,
      COOKWALA_PREFLIGHT_PG_ROOT: join(dir, 'none'),
      COOKWALA_PREFLIGHT_NO_INSTALL: '1',
    });
    expect(pgOnly.code).toBe(1);
    expect(pgOnly.err).toContain('sudo apt-get install -y --no-install-recommends postgresql\n');
  });
});
