// Auditing I-JSON: a real log built through the sequencer (testkit/audit.ts:
// LevelDB, device events over the real app, checkpoints cosigned at quorum 2), one of whose device
// events legitimately carries `__proto__`, `constructor` and `toString` members in its data. The
// exported bundle verifies; every copy with a member injected, duplicated or renamed inside a
// payload, an entry, the descriptor, a KeyRecord or a checkpoint is refused by the streaming
// verifier with a named reason at the right seq (duplicates with the same value too, which
// JSON.parse's "last wins" would have let through with every hash intact). `cookwala verify` runs
// as a child process on two of them. A change of spelling only (`\u0073tep` for `step`) is no
// change: the canonical form is over the names, not their escapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createBundleVerifier } from '../verifier/bundle/verifier.ts';
import type { BundleReport } from '../verifier/bundle/report.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import {
  AUDIT_LOG,
  buildAuditedLog,
  checkpointLine,
  cookwala,
  entryLine,
  find,
  fromLines,
  payloadLine,
  toLines,
  type AuditedLog,
} from '../testkit/audit.ts';

let a: AuditedLog;
let lines: string[];
let policy: WitnessPolicy;
/** The seq of the device event whose data carries __proto__, constructor and toString. */
let protoSeq: number;

beforeAll(async () => {
  a = await buildAuditedLog();
  await a.round(3); // seq 1..6, checkpoint 6
  const dev = a.devices[0];
  const ce = signed(
    makeEvent({
      source: dev.owner,
      subject: 'exec-proto',
      cookwalaseq: 1,
      data: JSON.parse('{"__proto__":{"x":1},"constructor":"c","toString":"t","step":1}'),
    }),
    dev,
    formatTime(a.clock.now()),
  );
  const r = await a.seq.app.inject({
    method: 'POST',
    url: logPath(AUDIT_LOG, '/events'),
    headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': 'proto-1' },
    payload: JSON.stringify(ce),
  });
  if (r.statusCode !== 201) throw new Error(`post: ${r.statusCode} ${r.body}`);
  protoSeq = r.json().seq;
  await a.round(3); // 8..13, checkpoint 13
  lines = toLines(await a.bundle());
  const p = readWitnessPolicy(JSON.parse(await readFile(a.policyPath, 'utf8')));
  if (!p.ok) throw new Error(p.detail);
  policy = p.value;
}, 120_000);

afterAll(async () => {
  await a?.close();
  if (a) await rm(a.dir, { recursive: true, force: true });
});

/** The streaming verifier in process, fed line by line as the CLI feeds it. */
async function verifyLines(ls: string[]): Promise<BundleReport> {
  const seqs = ls.flatMap((l) => {
    try {
      const d = JSON.parse(l);
      return d.kind === 'Checkpoint' ? [d.seq as number] : [];
    } catch {
      return [];
    }
  });
  const v = createBundleVerifier({ policy, checkpointSeqs: seqs });
  for (const l of ls) {
    const p = v.line(l);
    if (p) await p;
    if (v.stopped) break;
  }
  return v.end();
}

const named = (r: BundleReport) => r.failures.flatMap((f) => [`${f.kind}@${f.seq ?? '-'}`, f.kind]);

/** Line i with `insert` written right after the first `at` (text edits: JSON.stringify cannot write duplicates). */
function inject(i: number, at: string, insert: string): string[] {
  const out = lines.slice();
  expect(out[i].includes(at), `${at} in line ${i}`).toBe(true);
  out[i] = out[i].replace(at, at + insert);
  return out;
}
/** Line i with the first `from` replaced by `to`. */
function rename(i: number, from: string, to: string): string[] {
  const out = lines.slice();
  expect(out[i].includes(from), `${from} in line ${i}`).toBe(true);
  out[i] = out[i].replace(from, to);
  return out;
}
const keyLine = (kid: string) => find(lines, (d) => d.kind === 'KeyRecord' && d.kid === kid);
const member = (i: number, name: string) => `"${name}":${JSON.stringify(JSON.parse(lines[i])[name])}`;

interface Case {
  name: string;
  make: () => string[];
  /** Each `kind@seq` (or `kind@-` when the line has no seq) must be among the failures. */
  expect: string[];
  /** `found` of the failure that names the line, when it has no seq (a KeyRecord's kid). */
  found?: string;
  exit?: 1 | 2;
}

describe('a bundle with a member injected, duplicated or renamed is refused with the reason and the seq', () => {
  it('the untouched bundle verifies, __proto__ member and all', async () => {
    const r = await verifyLines(lines);
    expect(r.failures).toEqual([]);
    expect(r).toMatchObject({ valid: true, exitCode: 0, entries: 13, witnessedThrough: 13 });
    expect(lines[payloadLine(lines, protoSeq)]).toContain('"__proto__":{"x":1}');
  });

  it('a spelling change of a name (\\u escapes) is no change', async () => {
    const i = payloadLine(lines, 3);
    const r = await verifyLines(rename(i, '"step":', '"\\u0073tep":'));
    expect(r.failures).toEqual([]);
    expect(r.valid).toBe(true);
  });

  // Built when the test runs: protoSeq is known only after beforeAll.
  const cases = (): Case[] => [
    // injected
    {
      name: 'payload data: __proto__ injected',
      make: () => inject(payloadLine(lines, 3), '"data":{', '"__proto__":{"step":99},'),
      expect: ['payload_hash_mismatch@3'],
    },
    {
      name: 'payload data: the __proto__ member removed',
      make: () => rename(payloadLine(lines, protoSeq), '"__proto__":{"x":1},', ''),
      expect: [`payload_hash_mismatch@${protoSeq}`],
    },
    {
      name: 'payload data: the __proto__ member changed',
      make: () => rename(payloadLine(lines, protoSeq), '"__proto__":{"x":1}', '"__proto__":{"x":2}'),
      expect: [`payload_hash_mismatch@${protoSeq}`],
    },
    {
      name: 'payload data: toString injected',
      make: () => inject(payloadLine(lines, 4), '"data":{', '"toString":1,'),
      expect: ['payload_hash_mismatch@4'],
    },
    {
      name: 'payload event: __proto__ injected as an attribute',
      make: () => inject(payloadLine(lines, 5), '"event":{', '"__proto__":{"id":"x"},'),
      expect: ['invalid_event@5'],
    },
    {
      name: 'entry: __proto__ injected',
      make: () => inject(entryLine(lines, 2), '{', '"__proto__":{"seq":3},'),
      expect: ['unknown_field@2'],
    },
    { name: 'entry: constructor injected', make: () => inject(entryLine(lines, 2), '{', '"constructor":1,'), expect: ['unknown_field@2'] },
    { name: 'descriptor: __proto__ injected', make: () => inject(1, '{', '"__proto__":{},'), expect: ['unknown_field@0'] },
    {
      name: 'KeyRecord: __proto__ injected',
      make: () => inject(keyLine('dev-1'), '{', '"__proto__":{"revokedAt":"2020-01-01T00:00:00.000Z"},'),
      expect: ['unknown_field@-'],
    },
    {
      name: 'checkpoint: __proto__ injected',
      make: () => inject(checkpointLine(lines, 6), '{', '"__proto__":{"seq":1},'),
      expect: ['unknown_field@6'],
    },
    // duplicated, with the same value: only the repetition is wrong
    {
      name: 'payload data: a member twice',
      make: () =>
        inject(payloadLine(lines, 9), '"data":{', `"step":${JSON.stringify(JSON.parse(lines[payloadLine(lines, 9)]).event.data.step)},`),
      expect: ['duplicate_member@9'],
    },
    {
      name: 'payload data: __proto__ twice',
      make: () => inject(payloadLine(lines, protoSeq), '"data":{', '"__proto__":{"x":1},'),
      expect: [`duplicate_member@${protoSeq}`],
    },
    {
      name: 'payload event: an attribute twice, escaped',
      make: () => {
        const i = payloadLine(lines, 10);
        const id = JSON.parse(lines[i]).event.id;
        return inject(i, '"event":{', `"\\u0069d":${JSON.stringify(id)},`);
      },
      expect: ['duplicate_member@10'],
    },
    {
      name: 'entry: a member twice',
      make: () => {
        const i = entryLine(lines, 11);
        return inject(i, '{', member(i, 'eventHash') + ',');
      },
      expect: ['duplicate_member@11'],
    },
    { name: 'descriptor: a member twice', make: () => inject(1, '{', member(1, 'log') + ','), expect: ['duplicate_member@0'] },
    {
      name: 'KeyRecord: a member twice',
      make: () => {
        const i = keyLine('dev-2');
        return inject(i, '{', member(i, 'publicKey') + ',');
      },
      expect: ['duplicate_member@-'],
      found: 'dev-2',
    },
    {
      name: 'checkpoint: a member twice',
      make: () => {
        const i = checkpointLine(lines, 13);
        return inject(i, '{', member(i, 'root') + ',');
      },
      expect: ['duplicate_member@13'],
    },
    { name: 'header: a member twice', make: () => inject(0, '{', member(0, 'log') + ','), expect: ['duplicate_member@-'], exit: 2 },
    // renamed
    {
      name: 'payload data: a member renamed',
      make: () => rename(payloadLine(lines, 12), '"step":', '"Step":'),
      expect: ['payload_hash_mismatch@12'],
    },
    {
      name: 'payload data: a member renamed to __proto__',
      make: () => rename(payloadLine(lines, 12), '"step":', '"__proto__":'),
      expect: ['payload_hash_mismatch@12'],
    },
    {
      name: 'entry: a member renamed',
      make: () => rename(entryLine(lines, 8), '"sequencedAt":', '"sequencedat":'),
      expect: ['unknown_field@8'],
    },
    { name: 'descriptor: a member renamed', make: () => rename(1, '"createdAt":', '"__proto__":'), expect: ['unknown_field@0'] },
    {
      name: 'KeyRecord: a member renamed',
      make: () => rename(keyLine('dev-1'), '"owner":', '"0wner":'),
      expect: ['unknown_field@-'],
      found: 'dev-1',
    },
    {
      name: 'checkpoint: a member renamed',
      make: () => rename(checkpointLine(lines, 6), '"root":', '"toString":'),
      expect: ['unknown_field@6'],
    },
  ];

  it('names each of 24 tamperings, at its seq', async () => {
    const problems: string[] = [];
    expect(cases().length).toBe(24);
    for (const c of cases()) {
      const r = await verifyLines(c.make());
      const got = named(r);
      if (r.valid) problems.push(`${c.name}: VALID`);
      if (r.exitCode !== (c.exit ?? 1)) problems.push(`${c.name}: exit ${r.exitCode}, expected ${c.exit ?? 1}`);
      for (const e of c.expect)
        if (!got.includes(e)) problems.push(`${c.name}: missing ${e}; got ${got.filter((x) => x.includes('@')).join(' ')}`);
      if (c.found) {
        const kind = c.expect[0].split('@')[0];
        if (!r.failures.some((f) => f.kind === kind && f.found === c.found)) problems.push(`${c.name}: no ${kind} naming ${c.found}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('cookwala verify (the CLI, a child process) refuses a duplicated member and an injected __proto__ with the seq', async () => {
    for (const [name, ls, want] of [
      [
        'dup',
        inject(payloadLine(lines, 9), '"data":{', `"step":${JSON.stringify(JSON.parse(lines[payloadLine(lines, 9)]).event.data.step)},`),
        'duplicate_member@9',
      ],
      ['proto', rename(payloadLine(lines, protoSeq), '"__proto__":{"x":1}', '"__proto__":{"x":2}'), `payload_hash_mismatch@${protoSeq}`],
    ] as const) {
      const file = join(a.dir, `ijson-${name}.ndjson`);
      await writeFile(file, fromLines([...ls]));
      const r = await cookwala(['verify', file, '--policy', a.policyPath, '--json']);
      expect(r.code, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as BundleReport;
      expect(named(report)).toContain(want);
      const human = await cookwala(['verify', file, '--policy', a.policyPath]);
      expect(human.code).toBe(1);
      expect(human.stdout).toMatch(/^INVALID/);
      expect(human.stdout).toContain(want.split('@')[0]);
    }
  }, 60_000);
});
