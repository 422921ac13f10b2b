// platform/sig-pool.ts: signature checks off the event loop (docs/design.md §5, §13), shared by the
// sequencer's ingest and the offline verifier. A pool of worker_threads (default size
// os.availableParallelism()) runs sig-worker.js, plain JS on node:crypto, so no loader is needed
// in the worker. Callers build the signed bytes themselves (verifier/signing/signature.ts signingHeaderBytes) and
// hand over raw {alg, publicKey, msg, sig}, or the text of those bytes (signingHeaderText) as msgText, which the
// pool writes as UTF-8 straight into the worker message; the pool only answers true/false, with the same
// verdict as verifier/signing/signature.ts verifyRaw() on the node:crypto backend (sig-pool.test.ts proves it).
// Calls made in the same event-loop turn are coalesced and packed into one transferred buffer per
// worker, so a request carrying one event costs no message of its own. While every worker already
// holds MAX_JOBS_PER_WORKER messages, new items wait and go out together when a worker answers
// (adaptive batching: under load of single-event requests a message carries many items instead
// of one, and a waiting item is delayed by at most the job ahead of it; an idle pool sends at once).
// A flush fills the workers up to one level counting what each still owes (splitShares), so items
// do not queue behind a busy worker's message while another worker idles. Workers are unref'd while
// idle, so an idle pool never keeps a process alive, and ref'd while a verdict is owed.
// The one Ed25519 rule (verifier/crypto/ed25519-rules.ts: key and signature encodings, small- and mixed-order keys)
// is applied here on the main thread before an item is sent; an item that breaks it goes to the
// worker as an unknown algorithm, whose verdict is false, as verifyRaw's is.
// Left out: key validity and roles (verifier/signing/signature.ts / verifier/signing/keys.ts decide those on the main thread).

import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { verifyRaw } from '../verifier/signing/index.ts';
import { ed25519InputsPass } from '../verifier/crypto/index.ts';
import type { Alg } from '../verifier/signing/index.ts';
import { utf8 } from '../verifier/encoding/index.ts';

export interface SigItem {
  alg: Alg | string;
  publicKey: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
}

/**
 * A SigItem whose signed bytes are the UTF-8 of `msgText` (signingHeaderText): the pool writes
 * them straight into the worker message, so no byte array is built per item first.
 */
export interface SigTextItem {
  alg: Alg | string;
  publicKey: Uint8Array;
  msgText: string;
  sig: Uint8Array;
}

type AnyItem = SigItem | SigTextItem;

export interface SigPool {
  readonly size: number;
  /** One boolean per item, in order; never rejects for a bad signature, only if the pool closed or a worker died. */
  verify(items: readonly AnyItem[]): Promise<boolean[]>;
  /** Items handed to workers so far (for metrics and tests). */
  readonly stats: { items: number; messages: number };
  close(): Promise<void>;
}

export interface SigPoolOptions {
  /** Worker count; 0 verifies inline on the calling thread (no workers). */
  size?: number;
  /** Largest number of items in one worker message (bounds latency). */
  maxChunk?: number;
}

interface Call {
  items: readonly AnyItem[];
  out: boolean[];
  left: number;
  resolve: (v: boolean[]) => void;
  reject: (e: Error) => void;
}
interface Job {
  slots: Array<[Call, number]>;
}
interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  inflight: number;
}

const ALG_CODE: Record<string, number> = { EdDSA: 0, ES256: 1 };
/** The fewest items a worker is handed in one flush when several take part. */
export const MIN_SHARE = 8;

/**
 * How many of `n` waiting items each worker takes, given the items each still owes (`owed`):
 * the shares fill the workers up to one common level, so that all finish together if a worker's
 * owed items are counted as not yet started. A worker already at that level (one still busy with
 * a message as large as its share would be) takes none, and waits for no one: the items go to the
 * free worker instead of queueing behind another message. No share is below MIN_SHARE unless one
 * worker takes everything. The shares sum to `n`; the first workers with the least owed come first
 * on ties.
 */
export function splitShares(n: number, owed: readonly number[]): number[] {
  const shares = owed.map(() => 0);
  if (n <= 0 || owed.length === 0) return shares;
  const order = owed.map((_, i) => i).sort((a, b) => owed[a] - owed[b] || a - b);
  // Water-filling: the k least-owing workers share n up to level L = (n + their owed) / k, as long
  // as L stays above the next worker's owed and every share keeps MIN_SHARE items.
  let used = 1;
  for (let k = 2; k <= order.length; k++) {
    const sum = order.slice(0, k).reduce((a, i) => a + owed[i], 0);
    const level = (n + sum) / k;
    if (level - owed[order[k - 1]] < MIN_SHARE) break;
    used = k;
  }
  // In whole items: each ends at floor(T / used) or one more (T = n + what they owe), the one more
  // going to the most owing, so no rounding drifts onto the last share.
  const total = n + order.slice(0, used).reduce((a, i) => a + owed[i], 0);
  const base = Math.floor(total / used);
  const extra = total - base * used;
  for (let j = 0; j < used; j++) shares[order[j]] = base - owed[order[j]] + (j >= used - extra ? 1 : 0);
  return shares;
}
/**
 * Messages a worker may hold before new items wait for its answer. One: measured against two on
 * the 2-core machine (ingest bench, interleaved pairs), it spent less CPU per single-event request
 * (fewer, fuller messages) and was no slower for batches of 100.
 */
export const MAX_JOBS_PER_WORKER = 1;
const WORKER_URL = new URL('./sig-worker.js', import.meta.url);

export function createSigPool(opts: SigPoolOptions = {}): SigPool {
  const size = opts.size ?? availableParallelism();
  const maxChunk = opts.maxChunk ?? 1024;
  const stats = { items: 0, messages: 0 };
  let closed = false;
  let nextId = 1;
  let queued: Call[] = [];
  let scheduled = false;
  let owed = 0; // items sent to workers and not yet answered
  const slots: Slot[] = [];

  function spawn(i: number): void {
    // The worker is plain JS on node:crypto: it needs none of the parent's loaders (--import tsx,
    // polyfills), and inheriting them breaks when the parent was started with a .ts --import.
    const worker = new Worker(WORKER_URL, { execArgv: [] });
    const slot: Slot = { worker, jobs: new Map(), inflight: 0 };
    worker.unref();
    worker.on('message', (m: Uint8Array) => {
      const id = new Uint32Array(m.buffer, m.byteOffset, 1)[0];
      const job = slot.jobs.get(id);
      if (!job) return;
      slot.jobs.delete(id);
      slot.inflight -= job.slots.length;
      settleOwed(-job.slots.length);
      for (let k = 0; k < job.slots.length; k++) {
        const [call, idx] = job.slots[k];
        call.out[idx] = m[4 + k] === 1;
        if (--call.left === 0) call.resolve(call.out);
      }
      // Items that waited for a free worker go now, all together.
      if (queued.length > 0 && !scheduled) flush();
    });
    const die = (err: Error) => {
      if (slots[i] !== slot) return;
      for (const job of slot.jobs.values()) {
        settleOwed(-job.slots.length);
        for (const [call] of job.slots) call.reject(err);
      }
      slot.jobs.clear();
      slot.inflight = 0;
      if (!closed) {
        spawn(i);
        if (queued.length > 0 && !scheduled) flush();
      }
    };
    worker.on('error', (e) => die(e instanceof Error ? e : new Error(String(e))));
    worker.on('exit', (code) => die(new Error(`signature worker exited with code ${code}`)));
    slots[i] = slot;
  }
  for (let i = 0; i < size; i++) spawn(i);

  function settleOwed(delta: number): void {
    const before = owed;
    owed += delta;
    if (before === 0 && owed > 0) for (const s of slots) s.worker.ref();
    else if (before > 0 && owed === 0) for (const s of slots) s.worker.unref();
  }

  function send(slot: Slot, part: Array<[Call, number]>): void {
    // One transferred buffer per message (the wire layout is in sig-worker.js): one transferable
    // costs the event loop less per round trip than an object holding two.
    const n = part.length;
    const head = 4 * (2 + 7 * n);
    let bytes = head;
    const msgLens = new Array<number>(n);
    for (let k = 0; k < n; k++) {
      const it = part[k][0].items[part[k][1]];
      msgLens[k] = 'msg' in it ? it.msg.length : Buffer.byteLength(it.msgText, 'utf8');
      bytes += it.publicKey.length + msgLens[k] + it.sig.length;
    }
    const buf = new ArrayBuffer(bytes);
    const meta = new Uint32Array(buf, 0, 2 + 7 * n);
    const data = Buffer.from(buf);
    const id = nextId++;
    meta[0] = id;
    meta[1] = n;
    let off = head;
    for (let k = 0; k < n; k++) {
      const it = part[k][0].items[part[k][1]];
      const o = 2 + 7 * k;
      meta[o] = it.alg === 'EdDSA' && !ed25519InputsPass(it.publicKey, it.sig) ? 255 : (ALG_CODE[it.alg] ?? 255);
      meta[o + 1] = off;
      meta[o + 2] = it.publicKey.length;
      data.set(it.publicKey, off);
      off += it.publicKey.length;
      meta[o + 3] = off;
      meta[o + 4] = msgLens[k];
      if ('msg' in it) data.set(it.msg, off);
      else data.write(it.msgText, off, msgLens[k], 'utf8');
      off += msgLens[k];
      meta[o + 5] = off;
      meta[o + 6] = it.sig.length;
      data.set(it.sig, off);
      off += it.sig.length;
    }
    slot.jobs.set(id, { slots: part });
    slot.inflight += n;
    stats.items += n;
    stats.messages++;
    settleOwed(n);
    slot.worker.postMessage(new Uint8Array(buf), [buf]);
  }

  function flush(): void {
    scheduled = false;
    // Every worker busy: keep the items; the next answer (or a respawn) flushes them together.
    if (!slots.some((s) => s.jobs.size < MAX_JOBS_PER_WORKER)) return;
    const calls = queued;
    queued = [];
    const all: Array<[Call, number]> = [];
    for (const c of calls) for (let i = 0; i < c.items.length; i++) all.push([c, i]);
    const shares = splitShares(
      all.length,
      slots.map((s) => s.inflight),
    );
    let k = 0;
    shares.forEach((share, w) => {
      for (let left = share; left > 0;) {
        const n = Math.min(left, maxChunk);
        send(slots[w], all.slice(k, k + n));
        k += n;
        left -= n;
      }
    });
  }

  return {
    size,
    stats,
    verify(items) {
      if (closed) return Promise.reject(new Error('the signature pool is closed'));
      if (items.length === 0) return Promise.resolve([]);
      if (size === 0)
        return Promise.resolve(
          items.map(
            (it) =>
              (it.alg === 'EdDSA' || it.alg === 'ES256') &&
              verifyRaw(it.alg, it.publicKey, 'msg' in it ? it.msg : utf8(it.msgText), it.sig),
          ),
        );
      return new Promise<boolean[]>((resolve, reject) => {
        queued.push({ items, out: new Array<boolean>(items.length), left: items.length, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      const err = new Error('the signature pool is closed');
      for (const c of queued) c.reject(err);
      queued = [];
      const olds = slots.splice(0);
      for (const s of olds) for (const job of s.jobs.values()) for (const [call] of job.slots) call.reject(err);
      await Promise.all(olds.map((s) => s.worker.terminate()));
    },
  };
}
