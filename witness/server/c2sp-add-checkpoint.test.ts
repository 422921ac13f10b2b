// The C2SP tlog-witness decision (c2sp.org/tlog-witness at C2SP/C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9) over a real LevelDB state store: each row of the
// status table, strict body parsing, the stored signed checkpoint, a race on one log, and one
// state shared with the libp2p protocol (a Cookwala log advanced alternately by both). Requests
// are built by testkit/c2sp-log.ts, an independent implementation of the specs on node:crypto.

import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { tempDirs } from '../../testkit/tmp.ts';
import { SpecLog, specSigner, verifySpecCosignature } from '../../testkit/c2sp-log.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { c2spAnswer, parseC2spAddCheckpointBody, processC2spAddCheckpoint, type C2spWitnessDeps } from './c2sp-add-checkpoint.ts';
import { openStateStore, type StateStore } from './state.ts';
import { createWitnessCosigner, logVkeyOf } from './note-cosigner.ts';
import { createLogRegistry } from './c2sp-logs.ts';
import { c2spBodyOf, processAddCheckpointBoth, type WitnessDeps } from './add-checkpoint.ts';
import { createNoteSigner, formatSignerKey, signNote, SIG_ED25519, verifyNote } from '../../verifier/c2sp/note/index.ts';
import { fromBase64url, parseHash } from '../../verifier/encoding/wire.ts';
import { signCheckpointNote } from '../../verifier/documents/checkpoint-c2sp.ts';
import { verifyNoteForkProof, type NoteForkProof } from '../../verifier/documents/note-fork-proof.ts';

const tmp = tempDirs('cookwala-c2sp-');
const stores: StateStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await tmp.cleanup();
});

const witnessKey = testKey('c2sp-w1', 'witness');
const cosigner = createWitnessCosigner('witness.test/w1', witnessKey.signer);
const enc = (s: string) => new TextEncoder().encode(s);

async function setup(logs: SpecLog[], cookwala: ReturnType<typeof createFakeLog>[] = []) {
  const state = await openStateStore(await tmp.make());
  stores.push(state);
  const reg = createLogRegistry(
    cookwala.map((l) => ({ log: l.origin, sequencer: l.keyRecord })),
    logs.map((l) => ({ origin: l.origin, vkey: l.signer.vkey })),
  );
  if (!reg.ok) throw new Error(reg.detail);
  const evidence: string[] = [];
  const deps: C2spWitnessDeps = {
    state,
    logKeys: reg.value,
    cosigner,
    clock: () => Date.parse('2026-12-01T09:00:00.000Z'),
    onEvidence: (e) => void evidence.push(e.code),
  };
  const submit = async (body: string) => c2spAnswer(await processC2spAddCheckpoint(enc(body), deps));
  return { state, deps, submit, evidence };
}

describe('C2SP add-checkpoint status table', () => {
  it('answers each row with the spec status and body', async () => {
    const log = new SpecLog('example.com/spec-log').append(8);
    const fresh = new SpecLog('example.com/fresh-log').append(3);
    const { submit, state, evidence } = await setup([log, fresh]);

    // 404: an origin this witness does not follow.
    const stranger = new SpecLog('example.com/stranger').append(2);
    expect((await submit(stranger.request(0, 2))).status).toBe(404);
    // 403: no signature from a trusted key (same name, another key: another key ID).
    expect((await submit(log.request(0, 5, { signers: [specSigner(log.origin)] }))).status).toBe(403);
    // 403: the trusted key's name and ID, a signature that does not verify.
    const bad403 = await submit(log.request(0, 5, { signers: [log.signer.bad] }));
    expect(bad403.status).toBe(403);
    expect(bad403.body).toMatch(/^bad_signature: /);
    // ... even beside a good one (such a note is malformed per signed-note).
    expect((await submit(log.request(0, 5, { signers: [log.signer, log.signer.bad] }))).status).toBe(403);
    // 400: old size above the checkpoint size.
    expect((await submit(log.request(6, 5, { proof: [] }))).status).toBe(400);

    // 200: first contact from old 0, cosignature/v1 over the body, stamped now.
    const ok1 = await submit(log.request(0, 5));
    expect(ok1.status).toBe(200);
    expect(verifySpecCosignature(ok1.body, cosigner.vkey, log.body(5))).toBe(Date.parse('2026-12-01T09:00:00.000Z') / 1000);
    // 409: old 0 again; the body is the stored size and a newline, typed text/x.tlog.size.
    const c409 = await submit(log.request(0, 8));
    expect(c409).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '5\n' });
    // 422: a consistency proof that does not verify.
    const proof = log.proof(5, 8);
    proof[0] = Buffer.from(proof[0]).fill(7, 0, 1);
    expect((await submit(log.request(5, 8, { proof }))).status).toBe(422);
    // 422: the cosigned size with another root (the 2026-07 rule in the pinned text).
    const other = await submit(log.request(5, 5, { root: createHash('sha256').update('other').digest() }));
    expect(other.status).toBe(422);
    expect(other.body).toMatch(/^fork_detected: /);
    // 200: the same tree again (fresh cosignature), then 5 -> 8 with a good proof.
    expect((await submit(log.request(5, 5))).status).toBe(200);
    expect((await submit(log.request(5, 8))).status).toBe(200);
    expect((await state.get(log.origin))?.seq).toBe(8);

    // 422 on a log never cosigned: a non-empty proof with old 0; size 0 with a non-empty root.
    expect((await submit(fresh.request(0, 3, { proof: fresh.proof(1, 3) }))).status).toBe(422);
    expect((await submit(fresh.request(0, 0, { root: fresh.root(3) }))).status).toBe(422);
    expect(await state.get(fresh.origin)).toBeUndefined();
    // 200: size 0 with the empty root.
    expect((await submit(fresh.request(0, 0))).status).toBe(200);
    expect(evidence).toEqual(['inconsistent', 'fork_detected', 'inconsistent', 'inconsistent']);
  });

  it('a same-size fork of a C2SP log is stored once as a NoteForkProof that proves it under the log vkey', async () => {
    const log = new SpecLog('example.com/forked').append(6);
    const { submit, state, deps } = await setup([log]);
    const forks: string[] = [];
    deps.onFork = (fp) => void forks.push(fp.log);
    expect((await submit(log.request(0, 5))).status).toBe(200);
    const forked = { root: createHash('sha256').update('forked').digest() };
    const r = await submit(log.request(5, 5, forked));
    expect(r.status).toBe(422);
    expect(r.body).toMatch(/^fork_detected: /);
    // The same forked note again is the same fork: kept once, reported once.
    expect((await submit(log.request(5, 5, forked))).status).toBe(422);
    expect(forks).toEqual([log.origin]);
    const stored = await state.forks(log.origin);
    expect(stored).toHaveLength(1);
    const fp = stored[0] as NoteForkProof;
    expect(fp.kind).toBe('NoteForkProof');
    const v = verifyNoteForkProof(fp, log.signer.vkey);
    expect(v.ok && v.value).toMatchObject({ log: log.origin, seq: 5 });
    // The state is untouched: the witness still stands by the checkpoint it cosigned.
    expect((await state.get(log.origin))?.root).toBe(`sha256:${log.root(5).toString('hex')}`);
  });

  it('keeps the signed checkpoint it cosigned: the log signature and our line, verifiable by both keys', async () => {
    const log = new SpecLog('example.com/kept').append(4);
    const { submit, state } = await setup([log]);
    // A line from an unknown key in the request is not kept.
    const res = await submit(log.request(0, 4, { signers: [log.signer, specSigner('someone.else/w9')] }));
    expect(res.status).toBe(200);
    const note = (await state.get(log.origin))!.note!;
    expect(note.startsWith(log.note(4).split('\u2014')[0])).toBe(true);
    expect(note).not.toContain('someone.else/w9');
    const v = verifyNote(note, [log.signer.vkey, cosigner.vkey]);
    expect(v.ok && v.value.verified.map((s) => s.name)).toEqual([log.origin, 'witness.test/w1']);
  });

  it('lets exactly one of two racing submissions win; the other gets 409 with the winner size', async () => {
    const log = new SpecLog('example.com/race').append(12);
    const { submit } = await setup([log]);
    expect((await submit(log.request(0, 4))).status).toBe(200);
    const [a, b] = await Promise.all([submit(log.request(4, 9)), submit(log.request(4, 12))]);
    const winner = a.status === 200 ? 9 : 12;
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((a.status === 409 ? a : b).body).toBe(`${winner}\n`);
  });

  it('parses bodies strictly', () => {
    const log = new SpecLog('example.com/strict').append(3);
    const bad = (s: string) => parseC2spAddCheckpointBody(enc(s));
    const good = log.request(1, 3);
    expect(bad(good).ok).toBe(true);
    expect(bad(good.replace('old 1', 'old 01')).ok).toBe(false);
    expect(bad(good.replace('old 1', 'old  1')).ok).toBe(false);
    expect(bad(good.replace('old 1\n', 'old 1\r\n')).ok).toBe(false);
    expect(bad('old 1\n').ok).toBe(false); // no empty line
    expect(bad('old 1\n\n').ok).toBe(false); // no checkpoint
    const h = Buffer.alloc(32).toString('base64');
    expect(bad(`old 1\n${`${h}\n`.repeat(63)}\n${log.note(3)}`).ok).toBe(true);
    expect(bad(`old 1\n${`${h}\n`.repeat(64)}\n${log.note(3)}`).ok).toBe(false);
    expect(bad(`old 1\n${Buffer.alloc(31).toString('base64')}\n\n${log.note(3)}`).ok).toBe(false);
    expect(bad(`old 1\n${h.replace(/=$/, '')}\n\n${log.note(3)}`).ok).toBe(false);
    const big = parseC2spAddCheckpointBody(new Uint8Array(200 * 1024));
    expect(!big.ok && big.code).toBe('body_too_large');
  });

  it('answers 400 for a malformed note and never stores anything', async () => {
    const log = new SpecLog('example.com/malformed').append(2);
    const { submit, state } = await setup([log]);
    expect((await submit(`old 0\n\n${log.body(2)}`)).status).toBe(400); // no signatures
    expect((await submit(`old 0\n\n${log.note(2).replace('\n2\n', '\n02\n')}`)).status).toBe(400);
    expect(await state.get(log.origin)).toBeUndefined();
  });
});

describe('regression: a witness vkey whose base64 key holds a "+"', () => {
  it('verifies with the spec client (which once split the vkey at every "+")', async () => {
    // Deterministic keys: the first test key name whose vkey's key part contains '+'.
    let c = cosigner;
    for (let i = 0; !c.vkey.slice(c.vkey.indexOf('+', c.vkey.indexOf('+') + 1) + 1).includes('+'); i++)
      c = createWitnessCosigner('witness.test/plus', testKey(`plus-${i}`, 'witness').signer);
    const log = new SpecLog('example.com/plus').append(2);
    const line = `\u2014 ${c.cosign(enc(log.body(2)), Date.parse('2026-12-01T09:00:00.000Z')).line}\n`;
    expect(verifySpecCosignature(line, c.vkey, log.body(2))).toBe(Date.parse('2026-12-01T09:00:00.000Z') / 1000);
  });
});

describe('one state for both protocols (a Cookwala log)', () => {
  it('libp2p and C2SP advance the same state; the libp2p reply carries a cosignature/v1 that verifies', async () => {
    const fake = createFakeLog('kitchen.example.org/missions/c2sp-both', 'c2sp-both-seq');
    const { deps: cdeps, state, submit } = await setup([], [fake]);
    const wdeps: WitnessDeps = {
      state,
      logs: { get: (o) => (o === fake.origin ? { log: o, sequencer: fake.keyRecord } : undefined) },
      signer: witnessKey.signer,
      clock: cdeps.clock,
      cosigner,
    };
    fake.append(7);
    const cp3 = await fake.checkpoint(3);
    const r1 = await processAddCheckpointBoth(await fake.request(0, cp3), wdeps);
    expect(r1.ok).toBe(true);
    if (!r1.ok) return;
    // The cosignature/v1 object renders as a note line our C2SP verifier accepts with the witness vkey.
    const n = r1.value.noteCosignature!;
    expect(n.kid).toBe(`witness.test/w1+${cosigner.keyId}`);
    expect(n.signedAt).toBe('2026-12-01T09:00:00.000Z');
    const t = Date.parse(n.signedAt) / 1000;
    const raw = Buffer.concat([
      Buffer.from(cosigner.keyId, 'hex'),
      Buffer.alloc(8),
      Buffer.from(fromBase64url(n.sig).ok ? (fromBase64url(n.sig) as { value: Uint8Array }).value : []),
    ]);
    raw.writeBigUInt64BE(BigInt(t), 4);
    const rendered = `${c2spBodyOf(cp3)}\n\u2014 witness.test/w1 ${raw.toString('base64')}\n`;
    expect(verifyNote(rendered, [cosigner.vkey]).ok).toBe(true);
    expect(verifySpecCosignature(`\u2014 witness.test/w1 ${raw.toString('base64')}\n`, cosigner.vkey, c2spBodyOf(cp3))).toBe(t);

    // The log's note key is its sequencer key under the origin (docs/design.md §7a); C2SP moves 3 -> 5.
    const seed = createHash('sha256').update('cookwala-test-key:c2sp-both-seq').digest();
    const noteSigner = createNoteSigner(formatSignerKey(fake.origin, SIG_ED25519, seed));
    expect(noteSigner.ok && noteSigner.value.vkey).toBe((logVkeyOf(fake.origin, fake.keyRecord) as { value: string }).value);
    if (!noteSigner.ok) return;
    const cp5 = await fake.checkpoint(5);
    const proof35 = (await fake.request(3, cp5)).consistency.map((h) =>
      Buffer.from((parseHash(h) as { value: Uint8Array }).value).toString('base64'),
    );
    const note5 = signNote(c2spBodyOf(cp5), [noteSigner.value]);
    if (!note5.ok) throw new Error(note5.detail);
    expect(await submit(`old 0\n\n${note5.value}`)).toEqual({ status: 409, contentType: 'text/x.tlog.size', body: '3\n' });
    expect((await submit(`old 3\n${proof35.map((p) => p + '\n').join('')}\n${note5.value}`)).status).toBe(200);
    const s5 = (await state.get(fake.origin))!;
    expect([s5.seq, s5.head, s5.descriptorHash]).toEqual([5, undefined, fake.descriptor.hash]);

    // libp2p sees the C2SP-advanced state: old 3 is a conflict at 5; 5 -> 7 is cosigned.
    const cp7 = await fake.checkpoint(7);
    const stale = await processAddCheckpointBoth(await fake.request(3, cp7), wdeps);
    expect(!stale.ok && [stale.code, stale.knownSeq]).toEqual(['conflict', 5]);
    const r7 = await processAddCheckpointBoth(await fake.request(5, cp7), wdeps);
    expect(r7.ok).toBe(true);
    expect((await state.get(fake.origin))?.head).toBe(fake.heads[7]);
    // And C2SP sees it back: another root at 7 is a 422.
    const other7 = signNote(c2spBodyOf({ ...cp7, root: await fake.rootAt(6) }), [noteSigner.value]);
    if (!other7.ok) throw new Error(other7.detail);
    expect((await submit(`old 7\n\n${other7.value}`)).status).toBe(422);
  });

  it('a libp2p checkpoint carrying the log note signature is kept as a signed note for the monitoring read', async () => {
    const fake = createFakeLog('kitchen.example.org/missions/c2sp-note', 'c2sp-note-seq');
    const { state } = await setup([], [fake]);
    const wdeps: WitnessDeps = {
      state,
      logs: { get: (o) => (o === fake.origin ? { log: o, sequencer: fake.keyRecord } : undefined) },
      signer: witnessKey.signer,
      clock: () => Date.parse('2026-12-01T09:00:00.000Z'),
      cosigner,
    };
    fake.append(2);
    const plain = await fake.checkpoint(2);
    expect((await processAddCheckpointBoth(await fake.request(0, plain), wdeps)).ok).toBe(true);
    expect((await state.get(fake.origin))?.note).toBeUndefined(); // no log note signature: nothing to serve
    fake.append(2);
    const cp = await fake.checkpoint(4);
    const withNote = { ...cp, signature: [...cp.signature, signCheckpointNote(cp, fake.signer, cp.signature[0].signedAt) as never] };
    expect((await processAddCheckpointBoth(await fake.request(2, withNote), wdeps)).ok).toBe(true);
    const note = (await state.get(fake.origin))!.note!;
    const v = verifyNote(note, [(logVkeyOf(fake.origin, fake.keyRecord) as { value: string }).value, cosigner.vkey]);
    expect(v.ok && v.value.verified.map((x) => x.name)).toEqual([fake.origin, 'witness.test/w1']);
    expect(note.startsWith(c2spBodyOf(cp))).toBe(true);
  });
});
