// The config file is read strictly: defaults for missing members, unknown members refused (x-
// vendor members ignored), bad types and origins refused, no origin twice.
import { expect, it } from 'vitest';
import { DEFAULT_CONFIG, logDirName, readConfig, readLogConfig } from './config.ts';

const good = { ...DEFAULT_CONFIG, logs: [{ log: 'a.example/l', mode: 'full' }] };

it('accepts a full config and fills defaults for missing members', () => {
  expect(readConfig(good).ok).toBe(true);
  const r = readConfig({ kind: 'SequencerConfig', logs: [] });
  expect(r.ok && r.value.port).toBe(8700);
  expect(r.ok && r.value.checkpointIntervalMs).toBe(1000);
});

it('refuses unknown members but ignores x-vendor ones', () => {
  expect(readConfig({ ...good, color: 1 })).toMatchObject({ ok: false, code: 'unknown_field' });
  expect(readConfig({ ...good, 'x-acme-note': 1 }).ok).toBe(true);
  expect(readLogConfig({ log: 'a.example/l', mode: 'full', extra: 1 })).toMatchObject({ ok: false, code: 'unknown_field' });
});

it('refuses wrong types, bad origins, bad modes and duplicates', () => {
  for (const bad of [
    { ...good, kind: 'Other' },
    { ...good, port: '8700' },
    { ...good, port: 70000 },
    { ...good, checkpointIntervalMs: 0 },
    { ...good, bodyLimitBytes: 10 },
    { ...good, witnessPeers: {} },
    { ...good, logs: [{ log: 'https://a.example/l', mode: 'full' }] },
    { ...good, logs: [{ log: 'a b', mode: 'full' }] },
    { ...good, logs: [{ log: 'a+b', mode: 'full' }] },
    { ...good, logs: [{ log: 'a.example/l', mode: 'partial' }] },
    {
      ...good,
      logs: [
        { log: 'a.example/l', mode: 'full' },
        { log: 'a.example/l', mode: 'hash_only' },
      ],
    },
    [],
    null,
  ])
    expect(readConfig(bad).ok, JSON.stringify(bad)).toBe(false);
});

it('the time window: defaults argued in docs/operators.md, non-negative integers up to their limits', () => {
  const r = readConfig({ kind: 'SequencerConfig', logs: [] });
  expect(r.ok && [r.value.maxClockSkewMs, r.value.maxDeliveryDelayMs]).toEqual([300_000, 259_200_000]);
  expect(readConfig({ ...good, maxClockSkewMs: 0, maxDeliveryDelayMs: 366 * 86_400_000 }).ok).toBe(true);
  for (const bad of [
    { maxClockSkewMs: -1 },
    { maxClockSkewMs: 1.5 },
    { maxClockSkewMs: '5m' },
    { maxClockSkewMs: 86_400_001 },
    { maxDeliveryDelayMs: 366 * 86_400_000 + 1 },
  ]) {
    expect(readConfig({ ...good, ...bad }), JSON.stringify(bad)).toMatchObject({ ok: false, code: 'invalid_document' });
  }
});

it('names a log folder by its encoded origin, one path segment', () => {
  expect(logDirName('a.example/missions/m-1')).toBe('a.example%2Fmissions%2Fm-1');
  expect(logDirName('a.example/x?y#z')).not.toMatch(/[/?#]/);
});
