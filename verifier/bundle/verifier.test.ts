// The pure streaming bundle reader (verifier.ts) on generated bundles (testkit/log-generator.ts):
// untouched bundles verify (with erasures, in both modes, inline and through the worker pool), and
// each tampering is named with its code and seq. The CLI-level suite over a real sequencer's
// export is test/audit-tamper.test.ts.
import { describe, expect, it } from 'vitest';
import { generateLog, type GenOptions } from '../../testkit/log-generator.ts';
import { createBundleVerifier, type BundleVerifierOptions } from './verifier.ts';
import type { BundleReport } from './report.ts';
import type { JsonObject } from '../signing/document-hash.ts';
import { verifyForkProof } from '../documents/fork-proof.ts';
import { buildCheckpoint } from '../documents/checkpoint.ts';
import { createSigPool } from '../../platform/sig-pool.ts';
import { decodeCookwalasig, eventHash, signEvent } from '../cloudevent/read.ts';
import { entryCeOf } from '../documents/entry.ts';
import { signDocument, type Signer } from '../signing/signature.ts';
import { edit, rechain, rehash, type Doc } from '../../testkit/audit.ts';

function bundle(o: Partial<GenOptions> = {}) {
  const g = generateLog({ events: 60, checkpointEvery: 10, eraseEvery: 0, ...o });
  const lines = [...g.lines()].join('').split('\n');
  lines.pop();
  return { g, lines };
}

function checkpointSeqs(lines: string[]): number[] {
  const out: number[] = [];
  for (const l of lines) {
    try {
      const d = JSON.parse(l);
      if (d?.kind === 'Checkpoint') out.push(d.seq);
    } catch {
      // not JSON: the verifier names it
    }
  }
  return out;
}

async function verify(
  lines: string[],
  policy: BundleVerifierOptions['policy'],
  o: Partial<BundleVerifierOptions> & { ahead?: boolean; lastUnterminated?: boolean } = {},
): Promise<BundleReport> {
  const v = createBundleVerifier({ policy, checkpointSeqs: o.ahead === false ? undefined : checkpointSeqs(lines), ...o });
  for (let i = 0; i < lines.length; i++) {
    const p = v.line(lines[i], { unterminated: o.lastUnterminated === true && i === lines.length - 1 });
    if (p) await p;
  }
  return v.end();
}

const idx = (lines: string[], pred: (d: Doc) => boolean) =>
  lines.findIndex((l) => {
    try {
      return pred(JSON.parse(l));
    } catch {
      return false;
    }
  });
const entryAt = (lines: string[], seq: number) => idx(lines, (d) => d.kind === 'Event' && d.seq === seq);
const kinds = (r: BundleReport) => r.failures.map((f) => `${f.kind}@${f.seq ?? '-'}`);

describe('bundle verifier: untouched bundles', () => {
  it('a hash_only bundle with erasures verifies, listing each erasure with its entry', async () => {
    const { g, lines } = bundle({ eraseEvery: 7 });
    const r = await verify(lines, g.policy);
    expect(kinds(r)).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.erased.length).toBe(8);
    expect(r.erased[0]).toMatchObject({ seq: 7, erasedBy: 9, reason: 'consent withdrawn' });
    expect(r.payloads).toEqual({ present: 60, erased: 8, missing: 0 });
    expect(r.witnessedThrough).toBe(68);
    expect(r.checkpoints.latest?.witnesses.length).toBe(3);
  });

  it('a full-mode bundle verifies, also through the worker pool in small batches', async () => {
    const { g, lines } = bundle({ mode: 'full', events: 300, checkpointEvery: 50 });
    const pool = createSigPool({ size: 2 });
    try {
      const r = await verify(lines, g.policy, { verifyBatch: (items) => pool.verify(items), batchSize: 16, maxInFlight: 2 });
      expect(kinds(r)).toEqual([]);
      expect(pool.stats.items).toBe(300);
      const bad = edit(lines, entryAt(lines, 123), (d) => {
        d.eventSignature.sig = d.eventSignature.sig.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A'));
        rehash(d);
      });
      const r2 = await verify(rechain(bad, entryAt(bad, 123)), g.policy, { verifyBatch: (items) => pool.verify(items), batchSize: 16 });
      expect(kinds(r2)).toContain('bad_signature@123');
    } finally {
      await pool.close();
    }
  });

  it('an empty log (checkpoint at seq 0: the descriptor hash and the empty root) verifies', async () => {
    const { g, lines } = bundle({ events: 0 });
    const r = await verify(lines, g.policy);
    expect(kinds(r)).toEqual([]);
    expect(r).toMatchObject({ entries: 0, witnessedThrough: 0, checkpoints: { count: 1, verified: 1 } });
  });

  it('without checkpoint seqs read ahead, earlier checkpoints are reported as skipped, not passed', async () => {
    const { g, lines } = bundle();
    const r = await verify(lines, g.policy, { ahead: false });
    expect(r.valid).toBe(true);
    expect(r.skipped.filter((s) => s.check === 'head and root').map((s) => s.seq)).toEqual([10, 20, 30, 40, 50]);
  });
});

describe('bundle verifier: the header', () => {
  const { g, lines } = bundle({ events: 5 });
  it('refuses a wrong type, another major version or an empty file with exit 2', async () => {
    for (const [h, code] of [
      ['{"type":"other"}', 'bad_bundle_type'],
      ['not json', 'bad_bundle_type'],
      [lines[0].replace('"1.0"', '"2.0"'), 'unsupported_bundle_version'],
    ] as const) {
      const r = await verify([h, ...lines.slice(1)], g.policy);
      expect(r.exitCode).toBe(2);
      expect(kinds(r)).toEqual([`${code}@-`]);
    }
    expect((await verify([], g.policy)).exitCode).toBe(2);
  });
  it('reads another minor of major 1, refuses unknown header members, checks every field', async () => {
    expect((await verify([lines[0].replace('"1.0"', '"1.7"'), ...lines.slice(1)], g.policy)).valid).toBe(true);
    const cases: Array<[(d: Doc) => void, string]> = [
      [(d) => (d.extra = 1), 'unknown_field'],
      [(d) => (d.seq = 4), 'header_mismatch'],
      [(d) => (d.seq = 9), 'truncated'],
      [(d) => (d.mode = 'full'), 'header_mismatch'],
      [(d) => (d.checkpoints = 2), 'truncated'],
      [(d) => (d.exportedAt = '2020-01-01T00:00:00.000Z'), 'header_mismatch'],
      [(d) => (d.log = 'other.example.org/x'), 'header_mismatch'],
    ];
    for (const [f, code] of cases) {
      const r = await verify(edit(lines, 0, f), g.policy);
      expect(r.exitCode, code).toBe(1);
      expect(r.failureCounts[code as never], code).toBeGreaterThan(0);
    }
  });
  it('a cut file is truncated: an unterminated last line, or lines missing at the end', async () => {
    const cut = lines.slice(0, -1).concat(lines[lines.length - 1].slice(0, 40));
    expect(kinds(await verify(cut, g.policy, { lastUnterminated: true }))).toContain('truncated@-');
    const short = await verify(lines.slice(0, entryAt(lines, 4)), g.policy);
    expect(short.failureCounts.truncated).toBe(2); // entries through 5, one checkpoint promised
  });
});

describe('bundle verifier: tampering is named with its seq', () => {
  const { g, lines } = bundle({ eraseEvery: 9 });
  it('a changed entry field: entry_hash_mismatch, and the witnessed checkpoints after it see a rewrite', async () => {
    const r = await verify(
      edit(lines, entryAt(lines, 25), (d) => (d.sequencedAt = '2026-11-30T10:00:00.001Z')),
      g.policy,
    );
    expect(kinds(r)).toContain('entry_hash_mismatch@25');
    const rw = r.failures.find((f) => f.kind === 'rewrite_detected');
    expect(rw).toMatchObject({ seq: 21, upTo: 30, firstBadEntry: 25 });
  });
  it('an entry member outside the direct encoder is hashed generically: it changes the tree, a `signature` member does not', async () => {
    // entries.ts writes the usual entry's canonical text directly; a line with any other member
    // must still hash as canonicalize(hashedView(line)), so the added member reaches the root.
    const at = entryAt(lines, 7);
    const vendor = await verify(
      edit(lines, at, (d) => (d['x-note'] = 'a')),
      g.policy,
    );
    expect(kinds(vendor)).toEqual(expect.arrayContaining(['unknown_field@7', 'rewrite_detected@1']));
    const signature = await verify(
      edit(lines, at, (d) => (d.signature = { a: 1 })),
      g.policy,
    );
    expect(kinds(signature)).toContain('unknown_field@7');
    expect(signature.failureCounts.rewrite_detected).toBeUndefined();
    expect(signature.failureCounts.chain_broken).toBeUndefined();
  });
  it('a consistent rewrite (chain recomputed) is caught by the witnessed checkpoints, bracketed', async () => {
    const a = bundle({ events: 60, checkpointEvery: 10 });
    const b = bundle({ events: 60, checkpointEvery: 10, variantFrom: 33 });
    const cps = a.lines.filter((l) => l.includes('"kind":"Checkpoint"'));
    const spliced = b.lines.filter((l) => !l.includes('"kind":"Checkpoint"')).concat(cps);
    const r = await verify(spliced, a.g.policy);
    expect(r.failures.filter((f) => f.kind === 'rewrite_detected').map((f) => [f.seq, f.upTo])).toEqual([
      [31, 40],
      [31, 50],
      [31, 60],
    ]);
    expect(r.failureCounts.entry_hash_mismatch).toBeUndefined();
  });
  it('drop, duplicate and reorder entries: chain_broken at the first affected seq', async () => {
    const i = entryAt(lines, 12);
    expect(kinds(await verify([...lines.slice(0, i), ...lines.slice(i + 2)], g.policy))).toContain('chain_broken@12');
    expect(kinds(await verify([...lines.slice(0, i + 2), ...lines.slice(i, i + 2), ...lines.slice(i + 2)], g.policy))).toContain(
      'chain_broken@13',
    );
    const reordered = kinds(
      await verify([...lines.slice(0, i), ...lines.slice(i + 2, i + 4), ...lines.slice(i, i + 2), ...lines.slice(i + 4)], g.policy),
    );
    expect(reordered.filter((k) => k.startsWith('chain_broken'))[0]).toBe('chain_broken@12');
  });
  it('duplicate (source, id) and a cookwalaseq gap, even when the chain is recomputed', async () => {
    const src = JSON.parse(lines[entryAt(lines, 5)]).ce;
    const dup = rechain(
      edit(lines, entryAt(lines, 14), (d) => {
        d.ce.id = src.id;
        d.ce.source = src.source;
      }),
      entryAt(lines, 14),
    );
    expect(kinds(await verify(dup, g.policy))).toContain('duplicate_id@14');
    const gap = rechain(
      edit(lines, entryAt(lines, 40), (d) => (d.ce.cookwalaseq += 1)),
      entryAt(lines, 40),
    );
    const r = await verify(gap, g.policy);
    expect(r.failures.find((f) => f.kind === 'out_of_order')).toMatchObject({
      seq: 40,
      found: JSON.parse(gap[entryAt(gap, 40)]).ce.cookwalaseq,
    });
  });
  it('payloads: swapped contents, a dropped payload line, a changed cookwalasig', async () => {
    const a = idx(lines, (d) => d.kind === 'Payload' && d.seq === 3);
    const b = idx(lines, (d) => d.kind === 'Payload' && d.seq === 4);
    const swapped = edit(
      edit(lines, a, (d) => (d.event = JSON.parse(lines[b]).event)),
      b,
      (d) => (d.event = JSON.parse(lines[a]).event),
    );
    expect(kinds(await verify(swapped, g.policy))).toEqual(['payload_hash_mismatch@3', 'payload_hash_mismatch@4']);
    expect(
      kinds(
        await verify(
          lines.filter((_, k) => k !== a),
          g.policy,
        ),
      ),
    ).toEqual(['payload_missing@3']);
    const other = JSON.parse(lines[b]).event.cookwalasig;
    expect(
      kinds(
        await verify(
          edit(lines, a, (d) => (d.event.cookwalasig = other)),
          g.policy,
        ),
      ),
    ).toEqual(['bad_signature@3']);
  });
  it('a full-mode bundle may not lack a payload', async () => {
    const f = bundle({ mode: 'full', events: 12 });
    const p = idx(f.lines, (d) => d.kind === 'Payload' && d.seq === 6);
    expect(
      kinds(
        await verify(
          f.lines.filter((_, k) => k !== p),
          f.g.policy,
        ),
      ),
    ).toEqual(['payload_missing@6']);
  });
  it('key records: a replaced key fails its signature and its events have no key; a dropped one leaves them unknown', async () => {
    const k = idx(lines, (d) => d.kind === 'KeyRecord' && d.role === 'device');
    const other = generateLog({ events: 1, seed: 9 }).deviceKeys[0].publicKey;
    const r = await verify(
      edit(lines, k, (d) => (d.publicKey = other)),
      g.policy,
    );
    expect(r.failureCounts.hash_mismatch).toBe(1);
    expect(r.failureCounts.unknown_key).toBe(8);
    const resigned = await verify(
      edit(lines, k, (d) => {
        d.publicKey = other;
        rehash(d);
      }),
      g.policy,
    );
    expect(resigned.failureCounts.bad_signature).toBe(1);
    expect(resigned.failureCounts.unknown_key).toBe(8);
    const dropped = await verify(
      lines.filter((_, i) => i !== k),
      g.policy,
    );
    expect(Object.keys(dropped.failureCounts)).toEqual(['unknown_key']);
  });
  it('cosignatures: stripped below quorum is quorum_not_met; an altered one is bad_signature', async () => {
    const c = idx(lines, (d) => d.kind === 'Checkpoint' && d.seq === 30);
    expect(
      kinds(
        await verify(
          edit(lines, c, (d) => d.signature.splice(1, 2)),
          g.policy,
        ),
      ),
    ).toContain('quorum_not_met@30');
    const r = await verify(
      edit(lines, c, (d) => (d.signature[2].signedAt = '2026-11-30T10:00:00.999Z')),
      g.policy,
    );
    expect(kinds(r)).toEqual(['bad_signature@30']);
  });
  it('two sequencer-signed checkpoints at one seq: fork_detected with a ForkProof that verifies', async () => {
    const c = idx(lines, (d) => d.kind === 'Checkpoint' && d.seq === 20);
    const cp = JSON.parse(lines[c]);
    const fork = buildCheckpoint(
      { log: cp.log, seq: 20, head: cp.head, root: 'sha256:' + 'ab'.repeat(32) },
      g.sequencer,
      cp.signature[0].signedAt,
    );
    const withFork = [...lines.slice(0, c + 1), JSON.stringify(fork), ...lines.slice(c + 1)];
    withFork[0] = JSON.stringify({ ...JSON.parse(lines[0]), checkpoints: JSON.parse(lines[0]).checkpoints + 1 });
    const r = await verify(withFork, g.policy);
    const f = r.failures.find((x) => x.kind === 'fork_detected');
    expect(f?.seq).toBe(20);
    expect(verifyForkProof(f!.forkProof!, g.policy.sequencer).ok).toBe(true);
  });
  it('strings JCS cannot encode (a lone surrogate) are named, never a crash', async () => {
    const r = await verify(
      edit(lines, entryAt(lines, 6), (d) => (d.ce.id = 'a\ud800b')),
      g.policy,
    );
    expect(r.exitCode).toBe(1);
    expect(kinds(r)).toContain('invalid_document@6');
    const k = await verify(
      edit(
        lines,
        idx(lines, (d) => d.kind === 'KeyRecord' && d.role === 'device'),
        (d) => (d.owner = '\udfff'),
      ),
      g.policy,
    );
    expect(k.exitCode).toBe(1);
  });
  it('unknown kinds, broken JSON and misplaced lines are named by line', async () => {
    const i = entryAt(lines, 3);
    const r = await verify([...lines.slice(0, i), '{"kind":"Mystery"}', '{oops', lines[i + 1], ...lines.slice(i)], g.policy);
    expect(r.failures.slice(0, 3).map((f) => [f.kind, f.line])).toEqual([
      ['unknown_line_kind', i + 1],
      ['bad_json', i + 2],
      ['misplaced_line', i + 3],
    ]);
  });
  it('a bundle of another log, or checked with another policy, fails on the descriptor', async () => {
    const other = bundle({ seed: 4, log: 'other.example.org/missions/x' });
    const r = await verify(other.lines, g.policy);
    expect(r.failureCounts.log_mismatch).toBeGreaterThan(0);
    expect(r.exitCode).toBe(1);
  });
});

describe('bundle verifier: keys, roles and erasures', () => {
  const { g, lines } = bundle({ eraseEvery: 9 });
  const at = (ms: number) => new Date(Date.parse('2026-11-30T10:00:00.000Z') + ms).toISOString();
  const keyIdx = (kid: string) => idx(lines, (d) => d.kind === 'KeyRecord' && d.kid === kid);
  const dev0 = g.deviceKeys[0];

  /** Replace entry `seq`'s event (payload and entry fields) by `ce` signed with `signer`, and rechain. */
  function resign(seq: number, change: (ce: Doc) => void, signer: Signer): string[] {
    const p = idx(lines, (d) => d.kind === 'Payload' && d.seq === seq);
    const ev = JSON.parse(lines[p]).event;
    delete ev.cookwalasig;
    change(ev);
    const signed = signEvent(ev, signer, ev.time);
    let out = edit(lines, p, (d) => (d.event = signed));
    out = edit(out, entryAt(out, seq), (d) => {
      d.eventHash = (eventHash(signed) as { value: string }).value;
      d.eventSignature = (decodeCookwalasig(signed.cookwalasig as string) as { value: unknown }).value;
      d.ce = entryCeOf(signed);
      rehash(d);
    });
    return rechain(out, entryAt(out, seq));
  }

  it('a sequencer-signed revocation or validity window makes later event signatures key_revoked / key_not_valid_at', async () => {
    const revoked = signDocument({ ...dev0, revokedAt: at(1020) } as unknown as JsonObject, g.sequencer, at(0));
    const r = await verify(
      edit(lines, keyIdx(dev0.kid), (d) => Object.assign(d, revoked)),
      g.policy,
    );
    expect(Object.keys(r.failureCounts)).toEqual(['key_revoked']);
    expect(r.failures[0]).toMatchObject({ kind: 'key_revoked', found: expect.any(String), expected: { revokedAt: at(1020) } });
    const window = signDocument({ ...dev0, validUntil: at(1020) } as unknown as JsonObject, g.sequencer, at(0));
    expect(
      Object.keys(
        (
          await verify(
            edit(lines, keyIdx(dev0.kid), (d) => Object.assign(d, window)),
            g.policy,
          )
        ).failureCounts,
      ),
    ).toEqual(['key_not_valid_at']);
  });
  it("the auditor's key cache: a revocation there counts; another public key for a kid is key_conflict", async () => {
    const r = await verify(lines, g.policy, { keys: [{ ...dev0, revokedAt: at(1020) }] });
    expect(Object.keys(r.failureCounts)).toEqual(['key_revoked']);
    const c = await verify(lines, g.policy, { keys: [{ ...dev0, publicKey: g.deviceKeys[1].publicKey }] });
    expect(c.failureCounts.key_conflict).toBe(1);
  });
  it('roles: the sequencer key may sign only its own entry types, and only it may sign them', async () => {
    const bySequencer = resign(4, () => undefined, g.sequencer);
    expect(kinds(await verify(bySequencer, g.policy))).toContain('key_role_mismatch@4');
    const erasure = lines.findIndex((l) => l.includes('"type":"cookwala.log.erased"') && l.includes('"kind":"Event"'));
    const seq = JSON.parse(lines[erasure]).seq;
    const byDevice = resign(seq, (ce) => (ce.source = dev0.owner), g.deviceSigners[0]);
    const r = await verify(byDevice, g.policy);
    expect(kinds(r)).toContain(`key_role_mismatch@${seq}`);
    expect(kinds(r)).toContain(`payload_missing@${seq - 2}`); // a device cannot explain a gap away
  });
  it('erasures must name a missing payload of that seq and eventHash', async () => {
    const erasure = lines.findIndex((l) => l.includes('"type":"cookwala.log.erased"') && l.includes('"kind":"Event"'));
    const seq = JSON.parse(lines[erasure]).seq;
    const present = resign(seq, (ce) => (ce.data.seq = 2), g.sequencer);
    const r = await verify(present, g.policy);
    expect(kinds(r)).toEqual(expect.arrayContaining([`erasure_mismatch@${seq}`, `payload_missing@${seq - 2}`]));
    expect(r.failures.find((x) => x.kind === 'erasure_mismatch')?.detail).toMatch(/is in the bundle: it was not erased/);
    const wrongHash = resign(seq, (ce) => (ce.data.eventHash = 'sha256:' + '0'.repeat(64)), g.sequencer);
    expect((await verify(wrongHash, g.policy)).failures.find((x) => x.kind === 'erasure_mismatch')?.detail).toMatch(/another eventHash/);
  });
  it('a Core 0.2.0 bare-hash event signature is legacy_signature, accepted only by request and then counted as weaker', async () => {
    const l = bundle({ events: 30, legacyAt: 11 });
    expect(kinds(await verify(l.lines, l.g.policy))).toEqual(['legacy_signature@12']);
    const r = await verify(l.lines, l.g.policy, { allowLegacy: true });
    expect(r.valid).toBe(true);
    expect(r.legacySignatures).toBe(1);
  });
  it('a descriptor signed by another sequencer key is descriptor_mismatch (the policy decides)', async () => {
    const other = generateLog({ events: 1, seed: 5 });
    const r = await verify(lines, { ...other.policy, log: g.policy.log });
    expect(r.failureCounts.descriptor_mismatch).toBe(1);
    expect(r.exitCode).toBe(1);
  });
});

describe('bundle verifier: what the witnessed checkpoints cover', () => {
  const withoutCheckpoints = (lines: string[], keep: number) => {
    const cps = lines
      .map((l, i) => [l, i] as const)
      .filter(([l]) => JSON.parse(l).kind === 'Checkpoint')
      .map(([, i]) => i);
    const drop = new Set(cps.slice(keep));
    const out = lines.filter((_, i) => !drop.has(i));
    return edit(out, 0, (h) => {
      h.checkpoints = keep;
    });
  };

  it('entries with no checkpoint meeting the policy are quorum_not_met: nothing binds the chain', async () => {
    const { g, lines } = bundle({ events: 25 });
    const r = await verify(withoutCheckpoints(lines, 0), g.policy);
    expect(kinds(r)).toEqual(['quorum_not_met@1']);
    expect(r.exitCode).toBe(1);
  });

  it('an unwitnessed tail is reported, and is a failure only with requireWitnessed', async () => {
    const { g, lines } = bundle({ events: 25 });
    const cut = withoutCheckpoints(lines, 2);
    const lenient = await verify(cut, g.policy);
    expect(kinds(lenient)).toEqual([]);
    expect(lenient.witnessedThrough).toBe(20);
    expect(lenient.unwitnessed).toEqual({ from: 21, to: 25 });
    const strict = await verify(cut, g.policy, { requireWitnessed: true });
    expect(kinds(strict)).toEqual(['quorum_not_met@21']);
    expect((await verify(lines, g.policy, { requireWitnessed: true })).valid).toBe(true);
  });
});
