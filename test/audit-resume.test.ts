// Incremental audits (docs/monitoring.md "Incremental audits"): `cookwala export --from SEQ` (here
// the sequencer's GET …/bundle?from=, the route behind `export --url`) and `cookwala verify
// --resume STATE`, both through the CLI as child processes on a real audited log
// (testkit/audit.ts: LevelDB, fastify, three witness keys, quorum 2). A first audit from nothing
// writes the state; the next reads only the entries exported since and is valid, moving the state;
// a wrong resume point is chain_broken. And a rewrite before the resume point that a full audit
// cannot see (entry 5 changed, the chain and every checkpoint rebuilt, signed by the sequencer and
// cosigned by the witnesses: a perfect forgery) is still caught by the incremental audit, through
// the Merkle frontier it resumed from: the new checkpoints' roots do not extend the audited tree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildAuditedLog,
  cookwala,
  AUDIT_LOG,
  toLines,
  fromLines,
  entryLine,
  edit,
  rehash,
  rechain,
  reseal,
  type AuditedLog,
} from '../testkit/audit.ts';
import { logPath } from '../testkit/sequencer.ts';

let log: AuditedLog;

beforeAll(async () => {
  log = await buildAuditedLog();
  await log.round(6);
  await log.round(6);
}, 120_000);

afterAll(async () => {
  await log?.close();
});

async function bundleFrom(from: number): Promise<string> {
  const r = await log.seq.app.inject({ method: 'GET', url: logPath(AUDIT_LOG, `/bundle?from=${from}`) });
  if (r.statusCode !== 200) throw new Error(`bundle?from: ${r.statusCode} ${r.body}`);
  return r.body;
}
const verify = (file: string, state: string) => cookwala(['verify', file, '--policy', log.policyPath, '--resume', state, '--json']);
const stateOf = async (p: string) => JSON.parse(await readFile(p, 'utf8')) as { kind: string; seq: number };

describe('cookwala verify --resume over cookwala export --from', () => {
  it('audits only what was added, and still catches a rewrite before the resume point', { timeout: 180_000 }, async () => {
    const state = join(log.dir, 'audit-state.json');
    const full = join(log.dir, 'full.ndjson');
    await writeFile(full, await log.bundle());
    let r = await verify(full, state);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s1 = await stateOf(state);
    expect(s1.kind).toBe('AuditState');
    expect(s1.seq).toBeGreaterThan(0);

    await log.round(6);
    const inc = join(log.dir, 'inc.ndjson');
    const incText = await bundleFrom(s1.seq + 1);
    expect(JSON.parse(incText.split('\n')[0]).from).toBe(s1.seq + 1);
    await writeFile(inc, incText);
    const before = join(log.dir, 'state-before.json');
    await copyFile(state, before);
    r = await verify(inc, state);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { valid: boolean; entries: unknown };
    expect(report.valid).toBe(true);
    const s2 = await stateOf(state);
    expect(s2.seq).toBeGreaterThan(s1.seq);
    expect(toLines(incText).filter((l) => l.includes('"kind":"Event"')).length).toBe(s2.seq - s1.seq);

    // The same incremental bundle against a state that is not its resume point: the chain does not link.
    const wrong = join(log.dir, 'state-wrong.json');
    await writeFile(wrong, await readFile(state, 'utf8'));
    r = await verify(inc, wrong);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/chain_broken/);

    // A perfect forgery of the history before the resume point, exported from the resume point on.
    await log.round(6);
    let lines = toLines(await log.bundle());
    const i5 = entryLine(lines, 5);
    lines = edit(lines, i5, (d) => {
      d.sequencedAt = new Date(Date.parse(d.sequencedAt) - 1).toISOString(); // still after entry 4 (manual clock steps)
      rehash(d);
    });
    lines = rechain(lines, i5);
    lines = reseal(
      lines,
      log.sequencer,
      log.witnesses.map((w) => w.signer),
    );
    const header = JSON.parse(lines[0]);
    const kept = lines.slice(1).filter((l) => {
      const d = JSON.parse(l);
      if (d.kind === 'Event' || d.kind === 'Payload') return d.seq > s2.seq;
      if (d.kind === 'Checkpoint') return d.seq > s2.seq;
      return true;
    });
    header.from = s2.seq + 1;
    header.checkpoints = kept.filter((l) => l.includes('"kind":"Checkpoint"')).length;
    const forged = join(log.dir, 'forged.ndjson');
    await writeFile(forged, fromLines([JSON.stringify(header), ...kept]));
    // A full audit of the forged history alone finds nothing: only the resumed state knows better.
    const fullForged = join(log.dir, 'full-forged.ndjson');
    await writeFile(fullForged, fromLines(lines));
    const plain = await cookwala(['verify', fullForged, '--policy', log.policyPath]);
    expect(plain.code, plain.stdout).toBe(0);
    const st = join(log.dir, 'state-forged.json');
    await copyFile(state, st);
    r = await verify(forged, st);
    expect(r.code).toBe(1);
    const failures = (JSON.parse(r.stdout) as { failures: Array<{ kind: string }> }).failures.map((f) => f.kind);
    expect(failures.some((k) => k === 'rewrite_detected' || k === 'root_mismatch')).toBe(true);
    expect((await stateOf(st)).seq).toBe(s2.seq); // an invalid audit leaves the state as it was
  });
});
