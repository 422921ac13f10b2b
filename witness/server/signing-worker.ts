// witness/server/signing-worker.ts: the witness's cosignature signing off the event loop (docs/design.md
// §13: worker threads for the crypto). One worker thread (sign-worker.js, plain JS on node:crypto) holds the
// witness's Ed25519 private key: the same process holds it anyway (the main thread's Signer keeps
// the seed in a closure), so no new party sees the secret; the seed goes to the worker once, in
// workerData, and the worker is never handed anything else secret. It signs what the main thread
// built (checkpoint-cosigner.ts header bytes, verifier/c2sp/note/cosignature.ts cosignature/v1
// messages) and only after the witness decided (under the per-log lock, as inline): it changes
// where the Ed25519 arithmetic runs, not what is signed nor when a cosignature may leave (the
// callers still commit the state, synced, before they answer). Ed25519 is deterministic, so the
// bytes are those of the inline signer (signing-worker.test.ts proves it for many inputs).
// Calls made in one event-loop turn are coalesced into one transferred buffer; while a job is out,
// new messages wait and go together when it answers (as platform/sig-pool.ts does).
// Left out: P-256 witness keys (their signatures are randomized; such a witness signs inline), a
// pool of several signers (one worker; signing is two Ed25519 signs per request).
// Invariants: signWith() returns the inline signer's signatures or rejects never: when the worker
// dies or is closed, its pending messages are signed inline, so nothing is answered unsigned; a
// worker whose key does not give the signer's public key is refused at creation.

import { Worker } from 'node:worker_threads';
import { fromBase64url } from '../../verifier/encoding/index.ts';
import type { SecretKey, Signer } from '../../verifier/signing/index.ts';
import { defaultBackend } from '../../verifier/crypto/index.ts';

export interface SigningWorker {
  /** The 64-byte signature of each message, in order; rejects only when the worker died or closed. */
  sign(msgs: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /** Messages sent to the worker, items signed there, worker deaths (tests, metrics). */
  readonly stats: { messages: number; items: number; deaths: number };
  close(): Promise<void>;
}

export interface SigningWorkerOptions {
  /** The worker script (tests: one that dies); default sign-worker.js. */
  workerUrl?: URL;
  /** Deaths after which the worker is not started again (every later call rejects, so callers sign inline). */
  maxDeaths?: number;
}

interface Call {
  msgs: readonly Uint8Array[];
  resolve: (v: Uint8Array[]) => void;
  reject: (e: Error) => void;
}

const WORKER_URL = new URL('./sign-worker.js', import.meta.url);

/** A signing worker for `key`, which must be the Ed25519 key of `signer` (checked). */
export function createSigningWorker(key: SecretKey, signer: Signer, opts: SigningWorkerOptions = {}): SigningWorker {
  if (key.alg !== 'EdDSA' || signer.alg !== 'EdDSA') throw new TypeError('the signing worker signs with an Ed25519 key');
  const seed = fromBase64url(key.secretKey);
  if (!seed.ok || seed.value.length !== 32) throw new TypeError('secretKey is 32 bytes of base64url');
  const pub = defaultBackend().ed25519PublicKey(seed.value);
  if (pub.length !== signer.publicKey.length || pub.some((b, i) => b !== signer.publicKey[i]))
    throw new TypeError("the signing worker's key is not the signer's key");
  const maxDeaths = opts.maxDeaths ?? 3;
  const stats = { messages: 0, items: 0, deaths: 0 };
  let worker: Worker | undefined;
  let closed = false;
  let nextId = 1;
  let queued: Call[] = [];
  let scheduled = false;
  /** The one job out: its id and the calls it answers. */
  let out: { id: number; calls: Call[] } | undefined;

  const failAll = (calls: Call[], err: Error) => {
    for (const c of calls) c.reject(err);
  };

  function spawn(): Worker {
    const w = new Worker(opts.workerUrl ?? WORKER_URL, { execArgv: [], workerData: { seed: seed.ok ? seed.value : undefined } });
    w.unref();
    w.on('message', (m: Uint8Array) => {
      const id = new Uint32Array(m.buffer, m.byteOffset, 1)[0];
      if (!out || out.id !== id) return;
      const calls = out.calls;
      out = undefined;
      w.unref();
      let off = 4;
      for (const c of calls) {
        const sigs: Uint8Array[] = [];
        for (let i = 0; i < c.msgs.length; i++, off += 64) sigs.push(m.subarray(off, off + 64));
        c.resolve(sigs);
      }
      if (queued.length > 0 && !scheduled) flush();
    });
    const die = (err: Error) => {
      if (worker !== w) return;
      worker = undefined;
      stats.deaths++;
      const pending = out?.calls ?? [];
      out = undefined;
      failAll(pending, err);
      if (queued.length > 0 && !scheduled) flush();
    };
    w.on('error', (e) => die(e instanceof Error ? e : new Error(String(e))));
    w.on('exit', (code) => die(new Error(`signing worker exited with code ${code}`)));
    return w;
  }

  function flush(): void {
    scheduled = false;
    if (out || queued.length === 0) return;
    const calls = queued;
    queued = [];
    if (closed || stats.deaths >= maxDeaths) {
      failAll(calls, new Error(closed ? 'the signing worker is closed' : 'the signing worker keeps dying'));
      return;
    }
    worker ??= spawn();
    let n = 0;
    let bytes = 0;
    for (const c of calls)
      for (const m of c.msgs) {
        n++;
        bytes += m.length;
      }
    const head = 8 + 4 * n;
    const buf = new ArrayBuffer(head + bytes);
    const words = new Uint32Array(buf, 0, 2 + n);
    const data = new Uint8Array(buf);
    const id = nextId++;
    words[0] = id;
    words[1] = n;
    let k = 2;
    let off = head;
    for (const c of calls)
      for (const m of c.msgs) {
        words[k++] = m.length;
        data.set(m, off);
        off += m.length;
      }
    out = { id, calls };
    stats.messages++;
    stats.items += n;
    worker.ref();
    worker.postMessage(data, [buf]);
  }

  return {
    stats,
    sign(msgs) {
      if (closed) return Promise.reject(new Error('the signing worker is closed'));
      if (msgs.length === 0) return Promise.resolve([]);
      return new Promise<Uint8Array[]>((resolve, reject) => {
        queued.push({ msgs, resolve, reject });
        if (!scheduled && !out) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      const err = new Error('the signing worker is closed');
      failAll(queued.splice(0), err);
      const w = worker;
      worker = undefined;
      failAll(out?.calls ?? [], err);
      out = undefined;
      await w?.terminate();
    },
  };
}

/**
 * The signer's signatures over `msgs`: from the worker when there is one and it answers, else made
 * inline by `signer` (the same bytes: Ed25519 is deterministic). Never rejects for a dead worker.
 */
export async function signWith(worker: SigningWorker | undefined, signer: Signer, msgs: readonly Uint8Array[]): Promise<Uint8Array[]> {
  if (worker) {
    try {
      return await worker.sign(msgs);
    } catch {
      // The worker died or closed: sign here, as without one.
    }
  }
  return msgs.map((m) => signer.sign(m));
}
