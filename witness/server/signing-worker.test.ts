// The witness's signing worker (signing-worker.ts, sign-worker.js): the signatures it makes are
// byte for byte the inline signer's (a fast-check property over batches of messages made in one
// turn, several keys; and whole add-checkpoint replies, libp2p and C2SP, with and without the
// worker); a worker that dies (a real worker thread that exits on its first message) or was
// closed leaves signWith signing inline, so no request goes unsigned; a key that is not the
// signer's is refused; and a request signed on the worker is not answered before its state
// record is durable (the state store's commit held behind a gate, released by the test); and
// createWitness with signWorker answers a frame exactly as without (and refuses to start without the key).

import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSigner, type SecretKey, type Signer } from '../../verifier/signing/signature.ts';
import { toBase64url } from '../../verifier/encoding/wire.ts';
import { tempDirs } from '../../testkit/tmp.ts';
import { createFakeLog } from '../../testkit/witness.ts';
import { SpecLog } from '../../testkit/c2sp-log.ts';
import { createSigningWorker, signWith, type SigningWorker } from './signing-worker.ts';
import { createWitnessCosigner } from './note-cosigner.ts';
import { processAddCheckpointBoth, type AdmittedLog, type WitnessDeps } from './add-checkpoint.ts';
import { processC2spAddCheckpoint, type C2spWitnessDeps } from './c2sp-add-checkpoint.ts';
import { createLogRegistry } from './c2sp-logs.ts';
import { openStateStore, type LogState, type StateStore } from './state.ts';
import { createWitness } from './service.ts';
import { encodeMessage } from '../wire/messages.ts';
import { keyRecordOf } from '../../verifier/signing/signature.ts';
import { generateKeyPair } from '@libp2p/crypto/keys';

const tmp = tempDirs('cookwala-signw-');
const stores: StateStore[] = [];
const workers: SigningWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.close();
  for (const s of stores.splice(0)) await s.close();
  await tmp.cleanup();
});

function key(name: string): { secretKey: SecretKey; signer: Signer } {
  const seed = createHash('sha256').update(`signing-worker-test:${name}`).digest();
  const secretKey: SecretKey = { alg: 'EdDSA', kid: `wit-${name}`, secretKey: toBase64url(seed) };
  return { secretKey, signer: createSigner(secretKey) };
}

function worker(k: { secretKey: SecretKey; signer: Signer }, opts?: Parameters<typeof createSigningWorker>[2]): SigningWorker {
  const w = createSigningWorker(k.secretKey, k.signer, opts);
  workers.push(w);
  return w;
}

/** A worker script that exits as soon as it is asked to sign (a crash at the worst moment). */
async function dyingWorkerUrl(): Promise<URL> {
  const file = join(await tmp.make(), 'dies.mjs');
  await writeFile(file, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(7));\n");
  return pathToFileURL(file);
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const inline = (signer: Signer, msgs: readonly Uint8Array[]) => msgs.map((m) => hex(signer.sign(m)));

describe('signing worker', () => {
  it('signs byte for byte as the inline signer, for batches made in one turn, with several keys', async () => {
    for (const name of ['a', 'b', 'c']) {
      const k = key(name);
      const w = worker(k);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.uint8Array({ minLength: 0, maxLength: 600 }), { minLength: 1, maxLength: 4 }), {
            minLength: 1,
            maxLength: 6,
          }),
          async (calls) => {
            // All calls in one turn: they share one worker message (and later ones wait for it).
            const got = await Promise.all(calls.map((msgs) => w.sign(msgs)));
            for (let i = 0; i < calls.length; i++) expect(got[i].map(hex)).toEqual(inline(k.signer, calls[i]));
          },
        ),
        { numRuns: 40 },
      );
      expect(w.stats.deaths).toBe(0);
      expect(w.stats.items).toBeGreaterThan(40);
      // Coalescing: fewer messages than calls.
      expect(w.stats.messages).toBeLessThan(w.stats.items);
    }
  });

  it('refuses a key that is not the signer’s', () => {
    expect(() => createSigningWorker(key('x').secretKey, key('y').signer)).toThrow(/not the signer's key/);
  });

  it('falls back to inline signing when the worker dies or is closed, and stops respawning after maxDeaths', async () => {
    const k = key('dies');
    const w = worker(k, { workerUrl: await dyingWorkerUrl(), maxDeaths: 2 });
    const msgs = [new TextEncoder().encode('cosignature/v1\ntime 1\nx\n1\n'), new Uint8Array([1, 2, 3])];
    await expect(w.sign(msgs)).rejects.toThrow(/exited with code 7/);
    expect(w.stats.deaths).toBe(1);
    expect((await signWith(w, k.signer, msgs)).map(hex)).toEqual(inline(k.signer, msgs));
    expect(w.stats.deaths).toBe(2);
    // No third worker: the call is refused at once and signed inline.
    await expect(w.sign(msgs)).rejects.toThrow(/keeps dying/);
    expect((await signWith(w, k.signer, msgs)).map(hex)).toEqual(inline(k.signer, msgs));
    expect(w.stats).toMatchObject({ deaths: 2, messages: 2 });

    const ok = worker(key('closed'));
    await ok.close();
    await expect(ok.sign(msgs)).rejects.toThrow(/closed/);
    expect((await signWith(ok, key('closed').signer, msgs)).map(hex)).toEqual(inline(key('closed').signer, msgs));
  });
});

const CLOCK = () => Date.parse('2026-12-01T09:00:00.000Z');

async function libp2pDeps(k: { signer: Signer }, log: ReturnType<typeof createFakeLog>, extra: Partial<WitnessDeps> = {}) {
  const state = await openStateStore(await tmp.make());
  stores.push(state);
  const admitted = new Map<string, AdmittedLog>([[log.origin, { log: log.origin, sequencer: log.keyRecord }]]);
  const deps: WitnessDeps = {
    state,
    logs: { get: (o) => admitted.get(o) },
    signer: k.signer,
    clock: CLOCK,
    cosigner: createWitnessCosigner('witness.test/w1', k.signer),
    ...extra,
  };
  return deps;
}

/** The store with commit held until `open()`; `committing` resolves with the record being committed. */
function gated(store: StateStore) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let entered!: (next: Omit<LogState, 'version'>) => void;
  const committing = new Promise<Omit<LogState, 'version'>>((r) => (entered = r));
  const s: StateStore = {
    ...store,
    async commit(next, v) {
      entered(next);
      await gate;
      return store.commit(next, v);
    },
  };
  return { store: s, open, committing };
}

describe('add-checkpoint with the signing worker', () => {
  it('gives the same replies as inline signing (libp2p: JCS and cosignature/v1; C2SP line), also with a dying worker', async () => {
    const k = key('w1');
    const w = worker(k);
    const dying = worker(k, { workerUrl: await dyingWorkerUrl() });
    const log = createFakeLog('example.org/sw-1');
    log.append(4);
    const first = await log.request(0);
    log.append(3);
    const second = await log.request(4, await log.checkpoint());
    const replies: unknown[][] = [];
    for (const signWorker of [undefined, w, dying]) {
      const d = await libp2pDeps(k, log, { signWorker });
      const r1 = await processAddCheckpointBoth(first, d);
      const r2 = await processAddCheckpointBoth(second, d);
      if (!r1.ok || !r2.ok) throw new Error('refused');
      replies.push([r1.value, r2.value, (await d.state.get(log.origin))?.cosignature]);
    }
    expect(replies[1]).toEqual(replies[0]);
    expect(replies[2]).toEqual(replies[0]);
    expect(w.stats.items).toBe(4);
    expect(dying.stats.deaths).toBeGreaterThan(0);

    const spec = new SpecLog('example.com/sw-spec').append(5);
    const reg = createLogRegistry([], [{ origin: spec.origin, vkey: spec.signer.vkey }]);
    if (!reg.ok) throw new Error(reg.detail);
    const bodies = [spec.request(0, 3), spec.request(3, 5)].map((b) => new TextEncoder().encode(b));
    const lines: string[][] = [];
    for (const signWorker of [undefined, { worker: w, signer: k.signer }, { worker: dying, signer: k.signer }]) {
      const state = await openStateStore(await tmp.make());
      stores.push(state);
      const d: C2spWitnessDeps = {
        state,
        logKeys: reg.value,
        cosigner: createWitnessCosigner('witness.test/w1', k.signer),
        clock: CLOCK,
        signWorker,
      };
      const out: string[] = [];
      for (const b of bodies) {
        const r = await processC2spAddCheckpoint(b, d);
        if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
        out.push(r.value.lines);
      }
      out.push((await state.get(spec.origin))!.noteCosignature!);
      lines.push(out);
    }
    expect(lines[1]).toEqual(lines[0]);
    expect(lines[2]).toEqual(lines[0]);
    expect(w.stats.items).toBe(6);
  });

  it('answers a request signed on the worker only after its state record is durable', async () => {
    const k = key('w2');
    const w = worker(k);
    const log = createFakeLog('example.org/sw-2');
    log.append(2);
    const d = await libp2pDeps(k, log, { signWorker: w });
    const g = gated(d.state);
    let settled = false;
    const p = processAddCheckpointBoth(await log.request(0), { ...d, state: g.store }).then((r) => ((settled = true), r));
    // The record reaches the commit already signed (on the worker)…
    const next = await g.committing;
    expect(w.stats.items).toBe(2);
    expect(next.cosignature?.sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
    // …and while the commit is held, the request stays unanswered, however many turns pass.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(await d.state.get(log.origin)).toBeUndefined();
    g.open();
    const r = await p;
    if (!r.ok) throw new Error(r.detail);
    const stored = await d.state.get(log.origin);
    expect(stored?.cosignature).toEqual(r.value.cosignature);
    expect(stored?.noteCosignature).toBe(`${next.noteCosignature}`);
  });

  it('createWitness with signWorker answers frames as the inline witness does, and needs the secret key', async () => {
    const k = key('svc');
    const keyRecord = keyRecordOf(k.signer, { owner: 'test:svc', role: 'witness', validFrom: '2026-01-01T00:00:00.000Z' });
    const log = createFakeLog('example.org/sw-svc');
    log.append(3);
    const frame = encodeMessage(await log.request(0));
    const logs = [{ log: log.origin, sequencer: log.keyRecord }];
    const replies = [];
    for (const signWorker of [false, true]) {
      const state = await openStateStore(await tmp.make());
      stores.push(state);
      const w = createWitness(
        { state, signer: k.signer, secretKey: k.secretKey, keyRecord, clock: CLOCK },
        { peerKey: await generateKeyPair('Ed25519'), listen: [], logs, signWorker },
      );
      try {
        replies.push(await w.handleFrame(frame));
      } finally {
        await w.stop();
      }
    }
    expect(replies[0]).toMatchObject({ ok: true });
    expect(replies[1]).toEqual(replies[0]);
    const state = await openStateStore(await tmp.make());
    stores.push(state);
    expect(() =>
      createWitness({ state, signer: k.signer, keyRecord }, { peerKey: undefined as never, listen: [], logs, signWorker: true }),
    ).toThrow(/secret key/);
  });
});
