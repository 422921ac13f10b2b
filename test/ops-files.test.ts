// The operations files the repository ships (docs/operations.md): the systemd units pass Debian's
// `systemd-analyze verify` and run node on the CLI directly (never npx); the Prometheus alert rules
// pass `promtool check rules` and name only metric families the services export; and
// docs/config-reference.md is exactly what bin/config-reference.ts generates from the readers'
// tables, which are the members the readers accept. Each external check is also shown to fail on
// a broken copy, so a pass means something. A check whose Debian package is absent is skipped
// with the reason printed (systemd, prometheus).
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../testkit/audit.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { configReference } from '../bin/config-reference.ts';
import { CONFIG_MEMBERS, DEFAULT_CONFIG, readConfig } from '../sequencer/config.ts';
import { readWitnessConfig, WITNESS_CONFIG_MEMBERS } from '../witness/server/config.ts';
import { FAMILIES } from '../sequencer/metrics.ts';
import { WITNESS_METRICS } from '../witness/server/metrics.ts';

const tmp = tempDirs('cookwala-ops-');
afterAll(() => tmp.cleanup());

const which = (name: string) => ['/usr/bin', '/usr/sbin', '/bin'].map((d) => join(d, name)).find((p) => existsSync(p));
const SYSTEMD_ANALYZE = which('systemd-analyze');
const PROMTOOL = which('promtool');
if (!SYSTEMD_ANALYZE)
  process.stdout.write('test/ops-files.test.ts: systemd unit check skipped: systemd-analyze is absent (Debian package systemd)\n');
if (!PROMTOOL) process.stdout.write('test/ops-files.test.ts: alert rule check skipped: promtool is absent (Debian package prometheus)\n');

const UNITS = readdirSync(join(ROOT, 'ops/systemd')).filter((f) => f.endsWith('.service'));
const RULES = join(ROOT, 'ops/prometheus/cookwala-alerts.yml');

describe('systemd units', () => {
  it('are the sequencer and the witness, and run node on the CLI, not npx', () => {
    expect(UNITS.sort()).toEqual(['cookwala-sequencer.service', 'cookwala-witness.service']);
    for (const u of UNITS) {
      const text = readFileSync(join(ROOT, 'ops/systemd', u), 'utf8');
      expect(text).toMatch(
        /^ExecStart=\/usr\/bin\/node \/opt\/cookwala\/bin\/cookwala\.js (sequencer|witness) --data \/var\/lib\/cookwala\//m,
      );
      expect(text).not.toMatch(/^ExecStart=.*\bnpx\b/m);
      expect(text).toMatch(/^RestartPreventExitStatus=2$/m);
    }
  });

  it.skipIf(!SYSTEMD_ANALYZE)('pass systemd-analyze verify, which refuses a broken copy', async () => {
    const r = spawnSync(SYSTEMD_ANALYZE!, ['verify', ...UNITS.map((u) => join(ROOT, 'ops/systemd', u))], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe('');
    const dir = await tmp.make();
    const broken = readFileSync(join(ROOT, 'ops/systemd', UNITS[0]), 'utf8').replace('Restart=on-failure', 'Restart=sometimes');
    writeFileSync(join(dir, UNITS[0]), broken);
    const b = spawnSync(SYSTEMD_ANALYZE!, ['verify', join(dir, UNITS[0])], { encoding: 'utf8' });
    expect(b.stderr).toMatch(/restart specifier/i);
  });
});

describe('Prometheus alert rules', () => {
  it('name only metric families the sequencer and the witness export', () => {
    const text = readFileSync(RULES, 'utf8');
    const known = new Set([...Object.keys(FAMILIES), ...Object.keys(WITNESS_METRICS)]);
    const named = [...new Set([...text.matchAll(/\bcookwala_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')))];
    expect(named.length).toBeGreaterThan(5);
    for (const n of named) expect(known.has(n), `${n} is not a metric family of ours`).toBe(true);
  });

  it.skipIf(!PROMTOOL)('pass promtool check rules, which refuses a broken copy', async () => {
    const r = spawnSync(PROMTOOL!, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: \d+ rules found/);
    const dir = await tmp.make();
    writeFileSync(join(dir, 'bad.yml'), readFileSync(RULES, 'utf8').replace('== 1', '== == 1'));
    expect(spawnSync(PROMTOOL!, ['check', 'rules', join(dir, 'bad.yml')], { encoding: 'utf8' }).status).not.toBe(0);
  });
});

describe('docs/config-reference.md', () => {
  it('is what bin/config-reference.ts generates (regenerate with `npx tsx bin/config-reference.ts --write`)', () => {
    expect(readFileSync(join(ROOT, 'docs/config-reference.md'), 'utf8')).toBe(configReference());
  });

  it('documents exactly the members the readers accept', () => {
    const base = { ...DEFAULT_CONFIG, logs: [] };
    const samples: Record<string, unknown> = { memoryBudgetMB: 2048, maxOpenLogs: 10, idleCloseMs: 300_000 };
    for (const k of Object.keys(CONFIG_MEMBERS)) {
      const v = (base as Record<string, unknown>)[k] ?? samples[k];
      expect(readConfig({ ...base, [k]: v }), k).toMatchObject({ ok: true });
    }
    const extra = readConfig({ ...base, undocumented: 1 });
    expect(extra).toMatchObject({ ok: false, code: 'unknown_field' });
    const w = readWitnessConfig({ kind: 'WitnessConfig', name: 'w1', logs: [], undocumented: 1 });
    expect(w).toMatchObject({ ok: false, code: 'unknown_field' });
    expect(readWitnessConfig({ kind: 'WitnessConfig', name: 'w1', logs: [], c2spName: 'w1.example' }).ok).toBe(true);
    expect(Object.keys(WITNESS_CONFIG_MEMBERS)).toContain('logLists');
  });
});
