// Signature checks on a worker (off-thread-verify.ts, a real platform/sig-pool.ts worker): every
// request gets the same result, code and detail, as the inline check, over a real state store:
// first contact, extensions, a signature that does not verify, a bare-hash (legacy) signature, a
// malformed signature, another key's signature under the right kid, an unknown log, a checkpoint
// with the log's note signature (both go to the pool; a bad one is decided again); and over C2SP
// notes: good, a known key's bad signature, no trusted key. A request refused before any
// signature check (unknown log, malformed signature) sends nothing to the pool; a good one sends
// exactly its one signature; a failed one is decided again on the event loop; results leave in
// the order the checks were made even when the pool answers out of order (or fails one).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSigPool, type SigItem } from '../../platform/sig-pool.ts';
import { defaultBackend } from '../../verifier/crypto/default.ts';
import { signHash } from '../../verifier/signing/signature.ts';
import { withLogNoteSignature } from '../../verifier/documents/checkpoint.ts';
import { fromBase64url, toBase64url, utf8 } from '../../verifier/encoding/wire.ts';
import { createFakeLog, testKey, type FakeLog } from '../../testkit/witness.ts';
import { tempDirs } from '../../testkit/tmp.ts';
import { SpecLog, specSigner } from '../../testkit/c2sp-log.ts';
import { createOffThreadVerifier } from './off-thread-verify.ts';
import { processAddCheckpointBoth, type AdmittedLog, type WitnessDeps } from './add-checkpoint.ts';
import { processC2spAddCheckpoint, type C2spWitnessDeps } from './c2sp-add-checkpoint.ts';
import { openStateStore, type StateStore } from './state.ts';
import { createWitnessCosigner } from './note-cosigner.ts';
import { createLogRegistry } from './c2sp-logs.ts';
import type { AddCheckpointRequest } from '../wire/messages.ts';

const pool = createSigPool({ size: 1 });
afterAll(() => pool.close());
const tmp = tempDirs('cookwala-offthread-');
const stores: StateStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await tmp.cleanup();
});

/** The pool, counting the items it is given. */
function countingPool() {
  const sent: SigItem[] = [];
  return { sent, verify: (items: readonly SigItem[]) => (sent.push(...items), pool.verify(items)) };
}

const witnessKey = testKey('offthread-w1', 'witness');
const cosigner = createWitnessCosigner('witness.test/offthread', witnessKey.signer);
const clock = () => Date.parse('2026-12-01T09:00:00.000Z');

async function libp2pDeps(logs: FakeLog[], offThread?: WitnessDeps['offThread']): Promise<WitnessDeps> {
  const state = await openStateStore(await tmp.make());
  stores.push(state);
  const admitted = new Map<string, AdmittedLog>(logs.map((l) => [l.origin, { log: l.origin, sequencer: l.keyRecord }]));
  return { state, logs: admitted, signer: witnessKey.signer, clock, cosigner, offThread };
}

/** The checkpoint's signature[0] replaced (same kid, alg, signedAt). */
function withSig(req: AddCheckpointRequest, sig: string): AddCheckpointRequest {
  const s0 = { ...req.checkpoint.signature[0], sig };
  return { ...req, checkpoint: { ...req.checkpoint, signature: [s0, ...req.checkpoint.signature.slice(1)] } };
}

const strip = (r: Awaited<ReturnType<typeof processAddCheckpointBoth>>) =>
  r.ok ? { ok: true, kid: r.value.cosignature.kid, note: r.value.noteCosignature?.kid } : { ok: false, code: r.code, detail: r.detail };

describe('sequencer signatures off the event loop', () => {
  it('gives every request the result of the inline check, and sends only what reaches the signature check', async () => {
    const log = createFakeLog('example.org/offthread/a', 'offthread-seq-a');
    const other = testKey('offthread-other', 'sequencer');
    const counting = countingPool();
    const off = createOffThreadVerifier(counting, defaultBackend());
    const inline = await libp2pDeps([log]);
    const moved = await libp2pDeps([log], off);
    const both = async (req: AddCheckpointRequest) => {
      const a = strip(await processAddCheckpointBoth(req, inline));
      const b = strip(await processAddCheckpointBoth(req, moved));
      expect(b).toEqual(a);
      return b;
    };

    log.append(4);
    expect(await both(await log.request(0))).toMatchObject({ ok: true });
    expect(counting.sent).toHaveLength(1);

    log.append(3);
    const next = await log.request(4);
    const sig0 = fromBase64url(next.checkpoint.signature[0].sig);
    if (!sig0.ok) throw new Error('sig');
    // A signature that does not verify (one bit of R flipped): worker says no, decided again here.
    const flipped = Uint8Array.from(sig0.value);
    flipped[0] ^= 1;
    const again0 = off.stats.again;
    const bad = await both(withSig(next, toBase64url(flipped)));
    expect(bad).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(off.stats.again).toBe(again0 + 1);
    // The right kid, another key's signature over the right header.
    const forged = signHash(
      next.checkpoint.hash,
      'Checkpoint',
      { ...other.signer, kid: log.keyRecord.kid },
      next.checkpoint.signature[0].signedAt,
    );
    expect(await both(withSig(next, forged.sig))).toMatchObject({ ok: false, code: 'bad_signature' });
    // The log's key over the bare hash (Core 0.2.0): refused with the legacy detail, as inline.
    const bare = toBase64url(log.signer.sign(utf8(next.checkpoint.hash)));
    const legacy = await both(withSig(next, bare));
    expect(legacy).toMatchObject({ ok: false, code: 'bad_signature' });
    expect((legacy as { detail: string }).detail).toMatch(/^legacy_signature: /);

    // Refused before any signature check: nothing goes to the pool.
    const before = counting.sent.length;
    expect(await both(withSig(next, 'not-base64url!'))).toMatchObject({ ok: false, code: 'bad_signature' });
    const stranger = createFakeLog('example.org/offthread/stranger', 'offthread-seq-s');
    stranger.append(2);
    expect(await both(await stranger.request(0))).toMatchObject({ ok: false, code: 'unknown_log' });
    expect(counting.sent.length).toBe(before);

    // The good request still goes through after all that, one signature sent.
    expect(await both(next)).toMatchObject({ ok: true });
    expect(counting.sent.length).toBe(before + 1);
    expect((await moved.state.get(log.origin))?.seq).toBe(7);
  });

  it("checks the log's note signature (sent with every checkpoint by our sequencers) on the pool too, with the inline result", async () => {
    const log = createFakeLog('example.org/offthread/noted', 'offthread-seq-n');
    const counting = countingPool();
    const off = createOffThreadVerifier(counting, defaultBackend());
    const inline = await libp2pDeps([log]);
    const moved = await libp2pDeps([log], off);
    const noted = (r: AddCheckpointRequest): AddCheckpointRequest => ({
      ...r,
      checkpoint: withLogNoteSignature(r.checkpoint, log.signer, r.checkpoint.signature[0].signedAt),
    });
    const both = async (req: AddCheckpointRequest) => {
      const a = await processAddCheckpointBoth(req, inline);
      const b = await processAddCheckpointBoth(req, moved);
      expect(strip(b)).toEqual(strip(a));
      // The monitoring read's note (log's line, then ours) is stored alike.
      expect((await moved.state.get(log.origin))?.note).toEqual((await inline.state.get(log.origin))?.note);
      return b;
    };
    log.append(4);
    const first = noted(await log.request(0));
    expect(first.checkpoint.signature).toHaveLength(2);
    expect(await both(first)).toMatchObject({ ok: true });
    // Both of the log's signatures went to the pool, none was checked here.
    expect(counting.sent).toHaveLength(2);
    expect(off.stats.again).toBe(0);
    const stored = await moved.state.get(log.origin);
    expect(stored?.note).toMatch(/^example\.org\/offthread\/noted\n4\n/);
    expect(stored?.note?.split('\u2014 ')).toHaveLength(3); // the log's line and ours

    // A note signature that does not verify: the worker says no, it is decided again here, and the
    // checkpoint is cosigned without the log's line, as inline.
    log.append(3);
    const next = noted(await log.request(4));
    const note = next.checkpoint.signature[1];
    const raw = fromBase64url(note.sig);
    if (!raw.ok) throw new Error('sig');
    const flipped = Uint8Array.from(raw.value);
    flipped[flipped.length - 1] ^= 1;
    const badNote = {
      ...next,
      checkpoint: { ...next.checkpoint, signature: [next.checkpoint.signature[0], { ...note, sig: toBase64url(flipped) }] },
    };
    expect(await both(badNote)).toMatchObject({ ok: true });
    expect(off.stats.again).toBe(1);
    expect((await moved.state.get(log.origin))?.note).toBeUndefined();
  });

  it('decides concurrent requests of many logs like the inline check (group commit, one pool)', async () => {
    const logs = Array.from({ length: 40 }, (_, i) => createFakeLog(`example.org/offthread/m-${i}`, `offthread-m-${i}`));
    const off = createOffThreadVerifier(pool, defaultBackend());
    const moved = await libp2pDeps(logs, off);
    for (const round of [0, 1, 2]) {
      const reqs = await Promise.all(
        logs.map(async (l) => {
          const old = l.size;
          l.append(3);
          return l.request(old);
        }),
      );
      // Every fifth one carries a broken signature.
      const sent = reqs.map((r, i) => (i % 5 === 0 ? withSig(r, toBase64url(new Uint8Array(64).fill(round + 1))) : r));
      const results = await Promise.all(sent.map((r) => processAddCheckpointBoth(r, moved)));
      results.forEach((r, i) => expect(r.ok).toBe(i % 5 !== 0));
      // The refused ones are re-sent intact so every log keeps moving.
      const retried = await Promise.all(reqs.filter((_, i) => i % 5 === 0).map((r) => processAddCheckpointBoth(r, moved)));
      expect(retried.every((r) => r.ok)).toBe(true);
    }
    for (const l of logs) expect((await moved.state.get(l.origin))?.seq).toBe(l.size);
  });
});

describe('arrival order', () => {
  it('releases checks in the order they were made, whatever order the pool answers in', async () => {
    // A pool whose answers the test releases by hand, last call first.
    const calls: Array<{ n: number; answer: (v: boolean[]) => void; fail: (e: Error) => void }> = [];
    const manual = {
      verify: (items: readonly SigItem[]) => new Promise<boolean[]>((answer, fail) => calls.push({ n: items.length, answer, fail })),
    };
    const off = createOffThreadVerifier(manual, defaultBackend());
    const k = testKey('offthread-order', 'sequencer');
    const msg = utf8('order');
    const sig = k.signer.sign(msg);
    const pub = k.signer.publicKey;
    const done: number[] = [];
    const one = (i: number) =>
      off
        .check((b) => ({ ok: b.ed25519Verify(pub, msg, sig), i }))
        .then(
          (r) => void done.push(r.i),
          () => void done.push(-i),
        );
    const all = [one(1), one(2), one(3), one(4)];
    expect(calls).toHaveLength(4);
    calls[3].answer([true]);
    calls[2].fail(new Error('worker died'));
    calls[1].answer([true]);
    await new Promise((r) => setImmediate(r));
    expect(done).toEqual([]); // all wait for the first
    calls[0].answer([true]);
    await Promise.all(all);
    expect(done).toEqual([1, 2, -3, 4]);
  });
});

describe('C2SP note signatures off the event loop', () => {
  it('gives every note the result of the inline check', async () => {
    const log = new SpecLog('example.com/offthread-spec').append(8);
    const counting = countingPool();
    const off = createOffThreadVerifier(counting, defaultBackend());
    const make = async (withOff: boolean): Promise<C2spWitnessDeps> => {
      const state = await openStateStore(await tmp.make());
      stores.push(state);
      const reg = createLogRegistry([], [{ origin: log.origin, vkey: log.signer.vkey }], withOff ? off.backend : undefined);
      if (!reg.ok) throw new Error(reg.detail);
      return { state, logKeys: reg.value, cosigner, clock, offThread: withOff ? off : undefined };
    };
    const inline = await make(false);
    const moved = await make(true);
    const both = async (body: string) => {
      const bytes = new TextEncoder().encode(body);
      const a = await processC2spAddCheckpoint(bytes, inline);
      const b = await processC2spAddCheckpoint(bytes, moved);
      expect(b.ok ? { ok: true, size: b.value.size } : { code: b.code, detail: b.detail }).toEqual(
        a.ok ? { ok: true, size: a.value.size } : { code: a.code, detail: a.detail },
      );
      return b;
    };
    expect(await both(log.request(0, 5, { signers: [log.signer.bad] }))).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(await both(log.request(0, 5, { signers: [specSigner(log.origin)] }))).toMatchObject({ ok: false, code: 'unknown_key' });
    expect(counting.sent).toHaveLength(1); // the bad one; an unknown key's line is never checked
    expect(await both(log.request(0, 5))).toMatchObject({ ok: true });
    expect(await both(log.request(5, 8))).toMatchObject({ ok: true });
    expect(counting.sent).toHaveLength(3);
    expect((await moved.state.get(log.origin))?.seq).toBe(8);
  });
});
