// `cookwala verify --resume STATE` carries the (source, id) pairs across its resume points
// (docs/monitoring.md "Incremental audits", auditor/audit-ids.ts), through the CLI as child
// processes on a real audited log (testkit/audit.ts: LevelDB, fastify, three witness keys). A
// history in which an entry after the resume point repeats the (source, id) of one before it,
// otherwise perfect (the event re-signed by its device, the chain rebuilt, every checkpoint
// re-signed by the sequencer and cosigned by the witnesses), is duplicate_id at that entry in a
// full run, and the same in the resumed run that reads only the entries after the resume point;
// the state's side file is what makes the difference (a state without it passes the same
// bundle). An honest next bundle is valid, and the state then names a side file holding every pair.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildAuditedLog,
  cookwala,
  entryLine,
  payloadLine,
  edit,
  rechain,
  reseal,
  resign,
  toLines,
  fromLines,
  type AuditedLog,
  type Doc,
} from '../testkit/audit.ts';
import { eventHash } from '../verifier/cloudevent/read.ts';

let log: AuditedLog;

beforeAll(async () => {
  log = await buildAuditedLog();
  await log.round(6);
}, 120_000);

afterAll(async () => {
  await log?.close();
});

const verify = (file: string, state: string) => cookwala(['verify', file, '--policy', log.policyPath, '--resume', state, '--json']);
const failuresOf = (out: string) => (JSON.parse(out) as { failures: Array<{ kind: string; seq?: number }> }).failures;

/** The bundle's header and lines from `from` on (entries, payloads and checkpoints), as `export --from` writes it. */
function fromSeq(lines: string[], from: number): string {
  const header = JSON.parse(lines[0]) as Doc;
  const kept = lines.slice(1).filter((l) => {
    const d = JSON.parse(l) as Doc;
    return d.kind === 'Event' || d.kind === 'Payload' || d.kind === 'Checkpoint' ? d.seq >= from : true;
  });
  header.from = from;
  header.checkpoints = kept.filter((l) => l.includes('"kind":"Checkpoint"')).length;
  return fromLines([JSON.stringify(header), ...kept]);
}

describe('verify --resume carries the (source, id) set', () => {
  it('catches a repeat whose first copy is before the resume point, as a full run does', { timeout: 180_000 }, async () => {
    const state = join(log.dir, 'ids-state.json');
    const first = join(log.dir, 'ids-first.ndjson');
    await writeFile(first, await log.bundle());
    let r = await verify(first, state);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s1 = JSON.parse(await readFile(state, 'utf8')) as { seq: number; ids: { file: string; count: number } };
    expect(s1.ids.count).toBe(s1.seq);
    expect((await readFile(join(log.dir, s1.ids.file))).length).toBe(8 * s1.seq);

    await log.round(6);
    const honest = toLines(await log.bundle());
    // Entry `dup`, after the resume point, takes the id of entry `orig` before it, from the same device (same source).
    const orig = 1;
    const source = (seq: number) => (JSON.parse(honest[entryLine(honest, seq)]) as Doc).ce.source as string;
    let dup = s1.seq + 1;
    while (source(dup) !== source(orig)) dup++;
    const origId = (JSON.parse(honest[entryLine(honest, orig)]) as Doc).ce.id as string;
    const e = JSON.parse(honest[entryLine(honest, dup)]) as Doc;
    const device = log.devices.find((d) => d.record.kid === e.eventSignature.kid)!;
    let lines = edit(honest, payloadLine(honest, dup), (p) => (p.event.id = origId));
    const h = eventHash((JSON.parse(lines[payloadLine(lines, dup)]) as Doc).event);
    if (!h.ok) throw new Error(h.detail);
    lines = edit(lines, entryLine(lines, dup), (d) => {
      d.ce.id = origId;
      d.eventHash = h.value;
    });
    lines = resign(lines, dup, device.signer, e.eventSignature.signedAt as string);
    lines = rechain(lines, entryLine(lines, dup));
    lines = reseal(
      lines,
      log.sequencer,
      log.witnesses.map((w) => w.signer),
    );

    // The full run: the repeat and nothing else.
    const full = join(log.dir, 'ids-full-forged.ndjson');
    await writeFile(full, fromLines(lines));
    const plain = await cookwala(['verify', full, '--policy', log.policyPath, '--json']);
    expect(plain.code, plain.stdout).toBe(1);
    expect(failuresOf(plain.stdout).map((f) => `${f.kind}@${f.seq}`)).toEqual([`duplicate_id@${dup}`]);

    // The resumed run reads only what comes after the resume point, and finds the same.
    const inc = join(log.dir, 'ids-inc-forged.ndjson');
    await writeFile(inc, fromSeq(lines, s1.seq + 1));
    const st = join(log.dir, 'ids-state-forged.json');
    await copyFile(state, st);
    r = await verify(inc, st);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(failuresOf(r.stdout).map((f) => `${f.kind}@${f.seq}`)).toEqual([`duplicate_id@${dup}`]);
    expect((JSON.parse(await readFile(st, 'utf8')) as { seq: number }).seq).toBe(s1.seq); // not advanced

    // The side file is what catches it: a state without it lets the same bundle pass.
    const bare = join(log.dir, 'ids-state-bare.json');
    const { ids: _ids, ...rest } = s1 as Record<string, unknown>;
    await writeFile(bare, JSON.stringify(rest));
    r = await verify(inc, bare);
    expect(r.code, r.stdout).toBe(0);

    // The honest next bundle is valid and the state moves, its side file holding every pair.
    const next = join(log.dir, 'ids-inc.ndjson');
    await writeFile(next, fromSeq(honest, s1.seq + 1));
    r = await verify(next, state);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s2 = JSON.parse(await readFile(state, 'utf8')) as { seq: number; ids: { file: string; count: number } };
    expect(s2.seq).toBeGreaterThan(s1.seq);
    expect(s2.ids.count).toBe(s2.seq);
    expect((await readFile(join(log.dir, s2.ids.file))).length).toBe(8 * s2.seq);
    expect(await readdir(log.dir)).not.toContain(s1.ids.file); // the old side file is gone
  });
});
