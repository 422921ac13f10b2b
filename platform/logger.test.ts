// The one logger: JSON lines with service, level name, ISO time, event and log; the terminal form;
// the reader skips what is not a record. Every `event: '…'` written anywhere in the product code
// is one of LOG_EVENTS, and the "Logs and metrics" section of docs/operators.md names each of them.
import { expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, formatLogRecord, LOG_EVENTS, prettyDestination, readLogLines } from './logger.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function capture() {
  let text = '';
  return { dest: { write: (s: string) => void (text += s) }, text: () => text };
}

it('writes one JSON object per line with service, level, time, event and log', () => {
  const c = capture();
  const logger = createLogger({ service: 'witness', destination: c.dest }).child({ log: 'a.example/l' });
  logger.warn({ event: 'fork_detected', seq: 9 }, 'fork');
  logger.debug({ event: 'listening' }, 'below the level: not written');
  const lines = c.text().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const r = JSON.parse(lines[0]);
  expect(r).toMatchObject({ level: 'warn', service: 'witness', log: 'a.example/l', event: 'fork_detected', seq: 9, msg: 'fork' });
  expect(r.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(r).not.toHaveProperty('hostname');
});

it('prints records as short lines on a terminal, errors by their message', () => {
  const c = capture();
  const logger = createLogger({ service: 'sequencer', destination: prettyDestination(c.dest) });
  logger.child({ log: 'x/y' }).fatal({ event: 'store_failed', err: new Error('disk on fire') }, 'write failed');
  expect(c.text()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} FATAL sequencer store_failed \[x\/y\] write failed err=disk on fire\n$/);
  expect(formatLogRecord({ level: 'info', time: '2026-12-01T10:00:00.000Z', msg: 'hi', n: 1 })).toBe('10:00:00.000 INFO  hi n=1');
});

it('reads records back and skips other lines', () => {
  expect(readLogLines('plain text\n{"level":"info","time":"t","event":"listening"}\n{not json\n{"no":"level"}\n')).toEqual([
    { level: 'info', time: 't', event: 'listening' },
  ]);
});

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && !name.startsWith('.')) sources(p, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

it('every event the product logs is a named LOG_EVENT, and docs/operators.md lists them all', () => {
  const used = new Set<string>();
  for (const dir of ['platform', 'sequencer', 'witness', 'executor', 'logstore', 'web/server']) {
    for (const f of sources(join(ROOT, dir)))
      for (const m of readFileSync(f, 'utf8').matchAll(/[{,]\s*event: '([a-z_]+)'/g)) used.add(m[1]);
  }
  expect(used.size).toBeGreaterThan(10);
  expect([...used].filter((e) => !(e in LOG_EVENTS))).toEqual([]);
  const guide = readFileSync(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Logs and metrics'));
  expect(section.length).toBeGreaterThan(20);
  expect(Object.keys(LOG_EVENTS).filter((e) => !section.includes(`\`${e}\``))).toEqual([]);
});
