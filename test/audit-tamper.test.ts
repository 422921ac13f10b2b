// Tampering found offline: a real log built through the sequencer (LevelDB in a temp dir, signed device
// events over the real app, checkpoints cosigned by three witness keys at quorum 2, one payload
// erased), exported, then tampered with in every way the issue lists. `cookwala verify` runs as a
// child process on each copy and must exit 1 (2 for an unusable header) naming the right failure
// at the right seq; the untouched bundle and its erased payload verify with exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCheckpoint } from '../verifier/documents/checkpoint.ts';
import { verifyForkProof } from '../verifier/documents/fork-proof.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';
import type { BundleReport } from '../verifier/bundle/report.ts';
import { deviceKey } from '../testkit/keys.ts';
import { formatTime, timeMs } from '../verifier/encoding/wire.ts';
import { DEFAULT_TIME_BOUNDS } from '../verifier/documents/time-bounds.ts';
import {
  AUDIT_LOG,
  OTHER_LOG,
  buildAuditedLog,
  checkpointLine,
  cookwala,
  edit,
  entryLine,
  find,
  flipChar,
  fromLines,
  limited,
  payloadLine,
  rechain,
  rehash,
  reseal,
  resign,
  toLines,
  type AuditedLog,
  type Doc,
} from '../testkit/audit.ts';

let a: AuditedLog;
let lines: string[];
let other: string[];

beforeAll(async () => {
  a = await buildAuditedLog();
  await a.round(5); // seq 1..10, checkpoint 10
  await a.round(5); // 11..20, checkpoint 20
  await a.erase(5); // entry 21 erases the payload of 5, checkpoint 21
  await a.round(5); // 22..31, checkpoint 31
  await a.round(4); // 32..39, checkpoint 39
  await a.round(3, OTHER_LOG);
  lines = toLines(await a.bundle());
  other = toLines(await a.bundle(OTHER_LOG));
}, 120_000);

afterAll(async () => {
  await a?.close();
  if (a) await rm(a.dir, { recursive: true, force: true });
});

interface Case {
  name: string;
  make: () => string[] | string;
  exit: 1 | 2;
  /** Each of these `kind@seq` (or `kind` alone) must be among the failures. */
  expect: string[];
  /** The first failure in the report (sorted by seq) is this one. */
  first?: string;
  /** The failures are exactly `expect`: a forgery re-sealed so that only this check can see it. */
  only?: boolean;
}

async function verifyText(name: string, text: string): Promise<{ code: number | null; report: BundleReport; stderr: string }> {
  const file = join(a.dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.ndjson`);
  await writeFile(file, text);
  const r = await cookwala(['verify', file, '--policy', a.policyPath, '--json']);
  return { code: r.code, report: JSON.parse(r.stdout) as BundleReport, stderr: r.stderr };
}

/** A time inside the log (entry 2's), so a changed entry still predates the export. */
const earlier = () => JSON.parse(lines[entryLine(lines, 2)]).sequencedAt as string;
const named = (r: BundleReport) => r.failures.flatMap((f) => [`${f.kind}@${f.seq ?? '-'}`, f.kind]);

describe('cookwala verify on a real exported log', () => {
  it('the untouched bundle verifies (exit 0), with the erased payload reported with its erasure entry', async () => {
    const { code, report } = await verifyText('untouched', fromLines(lines));
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report).toMatchObject({ valid: true, log: AUDIT_LOG, mode: 'hash_only', seq: 39, entries: 39, witnessedThrough: 39 });
    expect(report.erased).toEqual([
      { seq: 5, eventHash: JSON.parse(lines[entryLine(lines, 5)]).eventHash, erasedBy: 21, reason: 'consent withdrawn' },
    ]);
    expect(report.payloads).toEqual({ present: 38, erased: 1, missing: 0 });
    expect(report.checkpoints).toMatchObject({
      count: 5,
      verified: 5,
      latest: { seq: 39, witnesses: ['witness-w1', 'witness-w2', 'witness-w3'] },
    });
    expect(report.skipped).toEqual([]);
    expect(report.timeBounds).toEqual(DEFAULT_TIME_BOUNDS); // declared by the sequencer's descriptor
    expect(() => payloadLine(lines, 5)).toThrow();
  });

  it('the human summary says VALID and names the erasure', async () => {
    const file = join(a.dir, 'human.ndjson');
    await writeFile(file, fromLines(lines));
    const r = await cookwala(['verify', file, '--policy', a.policyPath]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^VALID: audit\.example\/missions\/m-7 \(hash_only\)/);
    expect(r.stdout).toMatch(/erased\s+seq 5 .* by entry 21: consent withdrawn/);
  });

  const other7 = () => JSON.parse(lines[entryLine(lines, 7)]);
  // Time forgeries, re-signed (device key), re-chained and re-sealed (sequencer and witness keys),
  // so no hash, chain, root or signature check can see them: only the log's clock can.
  const sealed = (out: string[], from: number) =>
    reseal(
      rechain(out, entryLine(out, from)),
      a.sequencer,
      a.witnesses.map((w) => w.signer),
    );
  const deviceOf = (seq: number) =>
    a.devices.find((d) => d.record.kid === JSON.parse(lines[entryLine(lines, seq)]).eventSignature.kid)!.signer;
  const sequencedAt = (seq: number) => timeMs(JSON.parse(lines[entryLine(lines, seq)]).sequencedAt);
  const resignedAt = (seq: number, signedAtMs: number) => sealed(resign(lines, seq, deviceOf(seq), formatTime(signedAtMs)), seq);
  const resequenced = (seq: number, ms: number) =>
    sealed(
      edit(lines, entryLine(lines, seq), (d) => (d.sequencedAt = formatTime(ms))),
      seq,
    );
  const cosigned39 = () => timeMs(JSON.parse(lines[checkpointLine(lines, 39)]).signature[1].signedAt);
  const cases: Case[] = [
    {
      name: 'entry field sequencedAt changed',
      make: () => edit(lines, entryLine(lines, 7), (d) => (d.sequencedAt = earlier())),
      exit: 1,
      expect: ['entry_hash_mismatch@7', 'rewrite_detected@1'],
      first: 'rewrite_detected@1',
    },
    {
      name: 'entry ce.id changed',
      make: () => edit(lines, entryLine(lines, 8), (d) => (d.ce.id = 'forged')),
      exit: 1,
      expect: ['entry_hash_mismatch@8'],
    },
    {
      name: 'entry eventHash changed',
      make: () => edit(lines, entryLine(lines, 9), (d) => (d.eventHash = other7().eventHash)),
      exit: 1,
      expect: ['entry_hash_mismatch@9'],
    },
    {
      name: 'entry seq field changed',
      make: () => edit(lines, entryLine(lines, 13), (d) => (d.seq = 14)),
      exit: 1,
      expect: ['chain_broken@13', 'entry_hash_mismatch@14'],
    },
    {
      name: 'entry log changed',
      make: () => edit(lines, entryLine(lines, 3), (d) => (d.log = OTHER_LOG)),
      exit: 1,
      expect: ['log_mismatch@3', 'entry_hash_mismatch@3'],
    },
    {
      name: 'entry dropped',
      make: () => lines.filter((_, i) => i !== entryLine(lines, 12) && i !== payloadLine(lines, 12)),
      exit: 1,
      expect: ['chain_broken@12', 'rewrite_detected@11'],
    },
    {
      name: 'entry inserted',
      make: () => {
        const i = entryLine(lines, 12);
        return [...lines.slice(0, i + 2), lines[entryLine(lines, 30)], ...lines.slice(i + 2)];
      },
      exit: 1,
      expect: ['chain_broken@13', 'duplicate_id@30'],
    },
    {
      name: 'entry duplicated',
      make: () => {
        const i = entryLine(lines, 15);
        return [...lines.slice(0, i + 2), lines[i], lines[i + 1], ...lines.slice(i + 2)];
      },
      exit: 1,
      expect: ['chain_broken@16', 'duplicate_id@15', 'out_of_order@15'],
    },
    {
      name: 'entries reordered',
      make: () => {
        const i = entryLine(lines, 24);
        return [...lines.slice(0, i), ...lines.slice(i + 2, i + 4), ...lines.slice(i, i + 2), ...lines.slice(i + 4)];
      },
      exit: 1,
      expect: ['chain_broken@24', 'rewrite_detected@22'],
    },
    {
      name: 'history rewritten with a consistent chain',
      make: () =>
        rechain(
          edit(lines, entryLine(lines, 25), (d) => (d.sequencedAt = earlier())),
          entryLine(lines, 25),
        ),
      exit: 1,
      expect: ['rewrite_detected@22'],
      first: 'rewrite_detected@22',
    },
    {
      name: 'payloads swapped',
      make: () => {
        const p = payloadLine(lines, 3);
        const q = payloadLine(lines, 4);
        return edit(
          edit(lines, p, (d) => (d.event = JSON.parse(lines[q]).event)),
          q,
          (d) => (d.event = JSON.parse(lines[p]).event),
        );
      },
      exit: 1,
      expect: ['payload_hash_mismatch@3', 'payload_hash_mismatch@4'],
    },
    {
      name: 'payload data altered',
      make: () => edit(lines, payloadLine(lines, 17), (d) => (d.event.data.step = 99)),
      exit: 1,
      expect: ['payload_hash_mismatch@17'],
    },
    {
      name: 'payload dropped without erasure',
      make: () => lines.filter((_, i) => i !== payloadLine(lines, 18)),
      exit: 1,
      expect: ['payload_missing@18'],
    },
    {
      name: 'erasure entry dropped',
      make: () =>
        rechain(
          lines.filter((_, i) => i !== entryLine(lines, 21) && i !== payloadLine(lines, 21)),
          entryLine(lines, 21),
        ),
      exit: 1,
      expect: ['payload_missing@5', 'chain_broken@21', 'rewrite_detected@21'],
    },
    {
      name: 'payload cookwalasig altered',
      make: () =>
        edit(lines, payloadLine(lines, 6), (d) => (d.event.cookwalasig = JSON.parse(lines[payloadLine(lines, 7)]).event.cookwalasig)),
      exit: 1,
      expect: ['bad_signature@6'],
    },
    {
      name: 'device signature altered',
      make: () => {
        const i = entryLine(lines, 26);
        return rechain(
          edit(lines, i, (d) => {
            d.eventSignature.sig = flipChar(d.eventSignature.sig);
            rehash(d);
          }),
          i,
        );
      },
      exit: 1,
      expect: ['bad_signature@26'],
    },
    {
      name: 'device signature stripped to another kid',
      make: () => {
        const i = entryLine(lines, 27);
        return rechain(
          edit(lines, i, (d) => {
            d.eventSignature.kid = 'dev-9';
            rehash(d);
          }),
          i,
        );
      },
      exit: 1,
      expect: ['unknown_key@27'],
    },
    {
      name: 'cosignatures stripped below quorum',
      make: () => edit(lines, checkpointLine(lines, 20), (d) => d.signature.splice(1)),
      exit: 1,
      expect: ['quorum_not_met@20'],
    },
    {
      name: 'a cosignature altered',
      make: () => edit(lines, checkpointLine(lines, 31), (d) => (d.signature[3].sig = flipChar(d.signature[3].sig))),
      exit: 1,
      expect: ['bad_signature@31'],
      first: 'bad_signature@31',
    },
    {
      name: 'sequencer checkpoint signature altered',
      make: () => edit(lines, checkpointLine(lines, 10), (d) => (d.signature[0].sig = flipChar(d.signature[0].sig))),
      exit: 1,
      expect: ['bad_signature@10'],
    },
    {
      name: 'checkpoint root altered',
      make: () =>
        edit(lines, checkpointLine(lines, 21), (d) => {
          d.root = JSON.parse(lines[checkpointLine(lines, 20)]).root;
          rehash(d);
        }),
      exit: 1,
      expect: ['bad_signature@21', 'root_mismatch@21'],
    },
    {
      name: 'device key record replaced',
      make: () =>
        edit(
          lines,
          find(lines, (d) => d.kind === 'KeyRecord' && d.kid === 'dev-2'),
          (d) => {
            d.publicKey = deviceKey(7).record.publicKey;
            rehash(d);
          },
        ),
      exit: 1,
      expect: ['bad_signature', 'unknown_key@2'],
    },
    {
      name: 'device key record dropped',
      make: () => lines.filter((_, i) => i !== find(lines, (d) => d.kind === 'KeyRecord' && d.kid === 'dev-1')),
      exit: 1,
      expect: ['unknown_key@1'],
    },
    {
      name: 'device key record revoked in place',
      make: () =>
        edit(
          lines,
          find(lines, (d) => d.kind === 'KeyRecord' && d.kid === 'dev-1'),
          (d) => (d.revokedAt = '2026-01-02T00:00:00.000Z'),
        ),
      exit: 1,
      expect: ['hash_mismatch', 'unknown_key@1'],
    },
    {
      name: 'file cut mid-line',
      make: () => {
        const t = fromLines(lines);
        return t.slice(0, t.length - 300);
      },
      exit: 1,
      expect: ['truncated'],
    },
    { name: 'file cut at a line boundary', make: () => lines.slice(0, entryLine(lines, 30)), exit: 1, expect: ['truncated@30'] },
    {
      name: 'two logs spliced',
      make: () => {
        const i = entryLine(lines, 4);
        const j = entryLine(other, 4);
        return [...lines.slice(0, i), ...other.slice(j, checkpointLine(other, 6)), ...lines.slice(checkpointLine(lines, 10))];
      },
      exit: 1,
      expect: ['chain_broken@4', 'log_mismatch@4'],
    },
    { name: 'header seq changed', make: () => edit(lines, 0, (d) => (d.seq = 38)), exit: 1, expect: ['header_mismatch@39'] },
    {
      name: 'header log changed',
      make: () => edit(lines, 0, (d) => (d.log = OTHER_LOG)),
      exit: 1,
      expect: ['header_mismatch@0', 'log_mismatch'],
    },
    { name: 'header checkpoints changed', make: () => edit(lines, 0, (d) => (d.checkpoints = 4)), exit: 1, expect: ['header_mismatch'] },
    { name: 'header type changed', make: () => edit(lines, 0, (d) => (d.type = 'some-bundle')), exit: 2, expect: ['bad_bundle_type'] },
    {
      name: 'header version of another major',
      make: () => edit(lines, 0, (d) => (d.schema_version = '2.0')),
      exit: 2,
      expect: ['unsupported_bundle_version'],
    },
    {
      name: 'unknown line kind',
      make: () => [...lines.slice(0, 3), '{"kind":"Note","text":"trust me"}', ...lines.slice(3)],
      exit: 1,
      expect: ['unknown_line_kind'],
    },
    {
      name: 'a line that is not JSON',
      make: () => [...lines.slice(0, 5), '{"kind":"Event",', ...lines.slice(5)],
      exit: 1,
      expect: ['bad_json'],
    },
    {
      name: 'a signature backdated past maxDeliveryDelay, re-sealed',
      make: () => resignedAt(12, sequencedAt(12) - DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs - 1),
      exit: 1,
      expect: ['delivery_too_late@12'],
      only: true,
    },
    {
      name: 'a signature forward-dated past maxClockSkew, re-sealed',
      make: () => resignedAt(13, sequencedAt(13) + DEFAULT_TIME_BOUNDS.maxClockSkewMs + 1),
      exit: 1,
      expect: ['signed_in_future@13'],
      only: true,
    },
    {
      name: 'sequencedAt going backwards, re-sealed',
      make: () => resequenced(26, sequencedAt(25) - 1),
      exit: 1,
      expect: ['time_regression@26'],
      only: true,
    },
    {
      name: 'sequencedAt after the witnesses cosigned, re-sealed',
      make: () => {
        const late = cosigned39() + DEFAULT_TIME_BOUNDS.maxClockSkewMs + 1000;
        return edit(resequenced(39, late), 0, (d) => (d.exportedAt = formatTime(late + 1000)));
      },
      exit: 1,
      expect: ['sequenced_after_cosignature@39'],
      only: true,
    },
    {
      name: 'an out-of-order cookwalaseq rechained',
      make: () => {
        const i = entryLine(lines, 33);
        return rechain(
          edit(lines, i, (d) => (d.ce.cookwalaseq += 5)),
          i,
        );
      },
      exit: 1,
      expect: ['out_of_order@33', 'rewrite_detected@32'],
    },
  ];

  it(`names each of ${cases.length} kinds of tampering, at its seq`, async () => {
    const results = await limited(
      2,
      cases.map((c) => async () => ({
        c,
        r: await verifyText(
          c.name,
          (() => {
            const m = c.make();
            return typeof m === 'string' ? m : fromLines(m);
          })(),
        ),
      })),
    );
    const problems: string[] = [];
    for (const { c, r } of results) {
      const got = named(r.report);
      if (r.code !== c.exit)
        problems.push(`${c.name}: exit ${r.code}, expected ${c.exit}; ${got.filter((x) => x.includes('@')).join(' ')} ${r.stderr}`);
      for (const e of c.expect)
        if (!got.includes(e)) problems.push(`${c.name}: missing ${e}; got ${got.filter((x) => x.includes('@')).join(' ')}`);
      if (c.only && got.filter((x) => x.includes('@')).join(' ') !== c.expect.join(' '))
        problems.push(`${c.name}: expected only ${c.expect.join(' ')}; got ${got.filter((x) => x.includes('@')).join(' ')}`);
      if (c.first) {
        const f = r.report.failures[0];
        if (`${f?.kind}@${f?.seq ?? '-'}` !== c.first) problems.push(`${c.name}: first failure ${f?.kind}@${f?.seq}, expected ${c.first}`);
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('a rewrite names the bracket after the last matching witnessed checkpoint and the first bad entry', async () => {
    const { report } = await verifyText('rewrite-detail', fromLines(edit(lines, entryLine(lines, 14), (d) => (d.sequencedAt = earlier()))));
    const rw = report.failures.filter((f) => f.kind === 'rewrite_detected');
    expect(rw.map((f) => [f.seq, f.upTo, f.firstBadEntry])).toEqual([
      [11, 20, 14],
      [11, 21, 14],
      [11, 31, 14],
      [11, 39, 14],
    ]);
    expect(rw[0].expected).toMatchObject({ seq: 20, root: JSON.parse(lines[checkpointLine(lines, 20)]).root });
  });

  it('a second checkpoint at one seq signed by the sequencer key is a fork, with a ForkProof that verifies', async () => {
    const i = checkpointLine(lines, 31);
    const cp = JSON.parse(lines[i]) as Doc;
    const forged = buildCheckpoint(
      { log: AUDIT_LOG, seq: 31, head: cp.head, root: JSON.parse(lines[checkpointLine(lines, 20)]).root },
      a.sequencer,
      cp.signature[0].signedAt,
    );
    const forked = [...lines.slice(0, i + 1), JSON.stringify(forged), ...lines.slice(i + 1)];
    const { code, report } = await verifyText('fork', fromLines(edit(forked, 0, (d) => (d.checkpoints += 1))));
    expect(code).toBe(1);
    const f = report.failures.find((x) => x.kind === 'fork_detected');
    expect(f).toMatchObject({ seq: 31, expected: { root: cp.root }, found: { root: forged.root } });
    const policy = readWitnessPolicy(JSON.parse(await (await import('node:fs/promises')).readFile(a.policyPath, 'utf8')));
    expect(policy.ok && verifyForkProof(f!.forkProof!, policy.value.sequencer).ok).toBe(true);
    expect(named(report)).toContain('quorum_not_met@31'); // the forged one has no witnesses
  });
});
