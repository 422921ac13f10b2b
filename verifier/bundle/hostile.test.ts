// Hostile bundles: inputs built to crash the streaming verifier or make it slow. An Event
// line repeated with no payload line between (#1) is named chain_broken and the audit ends with a
// report, never a TypeError; many copies of one checkpoint line (#3) are each named once in linear
// time (80,000 copies: minutes when each was compared with every copy before it).
import { describe, expect, it } from 'vitest';
import { generateLog } from '../../testkit/log-generator.ts';
import { createBundleVerifier } from './verifier.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';

function bundle(o: Parameters<typeof generateLog>[0]) {
  const g = generateLog(o);
  const lines = [...g.lines()].join('').split('\n');
  lines.pop();
  return { g, lines };
}

async function run(lines: string[], g: ReturnType<typeof generateLog>, backend?: CryptoBackend) {
  const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys, backend });
  for (const l of lines) {
    const p = v.line(l);
    if (p) await p;
  }
  return v.end();
}

describe('hostile bundles', () => {
  it('an Event line repeated with no payload line between is chain_broken, not a crash (#1)', async () => {
    const { g, lines } = bundle({ events: 6, checkpointEvery: 3, mode: 'hash_only' });
    const at = lines.findIndex((l) => l.includes('"kind":"Event"') && l.includes('"seq":4,'));
    expect(at).toBeGreaterThan(0);
    // entry 4 twice, then entry 4 again, each with its payload dropped; the end comes after them.
    const evil = [...lines.slice(0, at + 1), lines[at], lines[at], ...lines.slice(at + 2)];
    const r = await run(evil, g);
    expect(r.exitCode).toBe(1);
    expect(r.failures.map((f) => f.kind)).toContain('chain_broken');
    // The same with the repeated entry as the very last line (the crash came from end()).
    const cut = [...lines.slice(0, at + 1), lines[at]];
    const r2 = await run(cut, g);
    expect(r2.exitCode).toBe(1);
    expect(r2.failures.map((f) => `${f.kind}@${f.seq}`)).toContain('chain_broken@5');
  });

  it('copies of the last checkpoint line are each named, and cost no further signature check (#3)', async () => {
    const { g, lines } = bundle({ events: 4, checkpointEvery: 4, witnesses: 1, quorum: 1 });
    const last = lines[lines.length - 1];
    expect(last).toContain('"kind":"Checkpoint"');
    const base = defaultBackend();
    let checks = 0;
    const counting: CryptoBackend = { ...base, ed25519Verify: (pk, msg, sig) => (checks++, base.ed25519Verify(pk, msg, sig)) };
    const work = async (copies: number) => {
      checks = 0;
      const r = await run([...lines, ...Array(copies).fill(last)], g, counting);
      expect(r.failureCounts.misplaced_line ?? 0).toBe(copies);
      return checks;
    };
    const none = await work(0);
    // Before: each copy was verified again (2 checks a copy, 20,000 copies ~10 s over the CLI).
    expect(await work(1)).toBe(none);
    expect(await work(20_000)).toBe(none);
  }, 40_000);

  it('an over-long line (skipped by the reader) is body_too_large, 16.5 MB of [{},…] too_many_values; reading goes on (#4)', async () => {
    const { g, lines } = bundle({ events: 3, checkpointEvery: 3 });
    const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys });
    const feed = async (l: string, flags = {}) => {
      const p = v.line(l, flags);
      if (p) await p;
    };
    await feed(lines[0]);
    await feed(lines[1]);
    await feed('', { tooLong: true });
    await feed('[' + '{},'.repeat(5_500_000) + '{}]');
    for (const l of lines.slice(2)) await feed(l);
    const r = await v.end();
    expect(r.failures.map((f) => `${f.kind}@${f.line}`)).toEqual(expect.arrayContaining(['body_too_large@3', 'too_many_values@4']));
    expect(r.entries).toBe(3);
  });
});
