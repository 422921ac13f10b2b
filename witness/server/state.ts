// witness/server/state.ts: the witness's durable state (docs/design.md §7): per log the latest cosigned
// {seq, root, head} and the checkpoint it came from, plus every ForkProof seen, in LevelDB under
// the data directory. Layout: `l!<origin>` -> LogState (JSON); `f!<origin>!<seq, 16 digits>!<id>`
// -> ForkProof (JSON), id = the two checkpoint hashes in sorted order (one record per fork), or a
// C2SP log's NoteForkProof (verifier/documents/note-fork-proof.ts), id = the two notes' SHA-256;
// `a!<origin>` -> a C2SP log admitted from a followed logs/v0 list (add-only). One LogState per
// origin whichever protocol (libp2p JSON or C2SP tlog-witness HTTP) advanced it.
// Invariants: commit() is a compare-and-set on the log's version (checked synchronously against the
// latest committed-or-pending version, so two racing writers cannot both win), written with
// sync:true, and resolves only once durable; get() only ever returns durable state. Concurrent
// commits share one synced batch (group commit). A failed write poisons the store: a witness
// whose disk failed must stop cosigning rather than guess what was persisted. There is no delete:
// a log's state can only move forward, and re-admitting a log cannot reset it.

import { Level } from 'level';
import { fail, ok, type Result } from '../../verifier/index.ts';
import type { Checkpoint } from '../../verifier/documents/index.ts';
import type { ForkProof } from '../../verifier/documents/index.ts';
import type { NoteForkProof } from '../../verifier/documents/index.ts';
import { sha256 } from '../../verifier/crypto/index.ts';
import { toHex } from '../../verifier/encoding/index.ts';
import type { Signature } from '../../verifier/signing/index.ts';
import { createKeyedLock, type KeyedLock } from './mutex.ts';
import { openLevel } from '../../platform/index.ts';

export interface LogState {
  log: string;
  seq: number;
  root: string;
  /** The entry hash at seq: known when the state came from the libp2p protocol (C2SP notes carry no head). */
  head?: string;
  /** The sequencer-signed checkpoint at seq, as received (without our cosignature); libp2p only. */
  checkpoint?: Checkpoint;
  /** Our latest JSON cosignature over it; libp2p only. */
  cosignature?: Signature;
  /**
   * The C2SP signed note at seq we last cosigned: the note as received (its text and the log's
   * signatures) with our cosignature/v1 line appended; served by GET /<sha256(origin)>/checkpoint.
   * Absent when no note signature of the log was seen at seq (a libp2p checkpoint without one).
   */
  note?: string;
  /** Our latest cosignature/v1 signature line at seq (without the em dash and newline). */
  noteCosignature?: string;
  /** The log descriptor's hash, from first contact. */
  descriptorHash?: string;
  /** Bumped by every commit; the compare-and-set token. */
  version: number;
  updatedAt: string;
}

export interface StateStore {
  readonly dir: string;
  readonly lock: KeyedLock;
  get(log: string): Promise<LogState | undefined>;
  /** Store `next` if the log's version is still `expectedVersion` (0: no state yet); durable on ok. */
  commit(next: Omit<LogState, 'version'>, expectedVersion: number): Promise<Result<LogState>>;
  /** Store a fork proof (synced); false when it was already known. */
  putFork(fp: StoredForkProof): Promise<boolean>;
  forks(log?: string): Promise<StoredForkProof[]>;
  /** Store a C2SP log admission learned from a followed logs/v0 list (synced); add-only. */
  putAdmission(a: StoredAdmission): Promise<void>;
  admissions(): Promise<StoredAdmission[]>;
  logs(): Promise<LogState[]>;
  /** Synced batches written and the records they held (group commit shows as records > batches). */
  stats(): { batches: number; records: number };
  close(): Promise<void>;
}

/** A C2SP log admitted from a logs/v0 list, kept so that a list dropping it cannot un-admit it. */
export interface StoredAdmission {
  origin: string;
  vkey: string;
  /** The list (path or URL) it came from, and when it was first admitted. */
  source: string;
  admittedAt: string;
}

/** What a witness keeps as fork evidence: two JSON checkpoints, or two signed notes of a C2SP log. */
export type StoredForkProof = ForkProof | NoteForkProof;

const SEP = '!';
const admissionKey = (origin: string) => `a${SEP}${origin}`;
const stateKey = (log: string) => `l${SEP}${log}`;
const forkPrefix = (log: string) => `f${SEP}${log}${SEP}`;
const noteId = (note: string) => toHex(sha256(new TextEncoder().encode(note)));
const forkKey = (fp: StoredForkProof) => {
  // A note's second line is its tree size (tlog-checkpoint); the caller verified both notes.
  const seq = fp.kind === 'NoteForkProof' ? Number(fp.a.split('\n')[1]) : fp.a.seq;
  const ids = (fp.kind === 'NoteForkProof' ? [noteId(fp.a), noteId(fp.b)] : [fp.a.hash, fp.b.hash]).sort();
  return `${forkPrefix(fp.log)}${String(seq).padStart(16, '0')}${SEP}${ids[0]}${SEP}${ids[1]}`;
};

type Op = { key: string; value: unknown };
interface Pending {
  ops: Op[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

export async function openStateStore(dir: string): Promise<StateStore> {
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
  await openLevel(db, dir, 'witness state');
  const durable = new Map<string, LogState>();
  /** The version of the latest committed or pending state per log. */
  const latest = new Map<string, number>();
  /** The pending write of each log's latest version. */
  const inflight = new Map<string, Promise<void>>();
  let queue: Pending[] = [];
  let writing = false;
  let broken: unknown;
  let batches = 0;
  let records = 0;
  /** Fork keys written or being written by this process (so one fork is reported once). */
  const forkKeys = new Set<string>();

  const load = async (log: string): Promise<LogState | undefined> => {
    const hit = durable.get(log);
    if (hit) return hit;
    const v = (await db.get(stateKey(log))) as LogState | undefined;
    // Another caller may have loaded or committed while we awaited: the map wins.
    const now = durable.get(log);
    if (now) return now;
    if (v) durable.set(log, v);
    if (!latest.has(log)) latest.set(log, v?.version ?? 0);
    return v;
  };

  const flush = async (): Promise<void> => {
    if (writing || queue.length === 0) return;
    writing = true;
    const group = queue;
    queue = [];
    try {
      // A chained batch: one binding call per put with its arguments, where an array of
      // operation objects costs the event loop two to three times as much (each object's
      // properties read through N-API).
      const batch = db.batch();
      let n = 0;
      try {
        for (const p of group)
          for (const o of p.ops) {
            batch.put(o.key, o.value);
            n++;
          }
      } catch (e) {
        await batch.close();
        throw e;
      }
      await batch.write({ sync: true });
      batches++;
      records += n;
      for (const p of group) p.resolve();
    } catch (e) {
      broken = e;
      for (const p of group) p.reject(e);
    } finally {
      writing = false;
      if (queue.length > 0) {
        if (broken) for (const p of queue.splice(0)) p.reject(broken);
        else void flush();
      }
    }
  };

  const write = (ops: Op[]): Promise<void> => {
    if (broken) return Promise.reject(broken);
    return new Promise<void>((resolve, reject) => {
      queue.push({ ops, resolve, reject });
      // Let every request that is ready in this turn join the batch.
      if (!writing) queueMicrotask(() => void flush());
    });
  };

  return {
    dir,
    lock: createKeyedLock(),
    get: load,
    async commit(next, expectedVersion) {
      await load(next.log);
      const current = latest.get(next.log) ?? 0;
      if (current !== expectedVersion) {
        // Lost the race: let the winner's write land so a retry reads the state that beat us.
        await inflight.get(next.log)?.catch(() => {});
        return fail('conflict', `state of ${next.log} moved (version ${current}, expected ${expectedVersion})`, { version: current });
      }
      const state: LogState = { ...next, version: expectedVersion + 1 };
      latest.set(next.log, state.version);
      const w = write([{ key: stateKey(next.log), value: state }]);
      inflight.set(next.log, w);
      try {
        await w;
      } finally {
        if (inflight.get(next.log) === w) inflight.delete(next.log);
      }
      const d = durable.get(next.log);
      if (!d || d.version < state.version) durable.set(next.log, state);
      return ok(state);
    },
    async putFork(fp) {
      const key = forkKey(fp);
      if (forkKeys.has(key) || (await db.get(key)) !== undefined || forkKeys.has(key)) return false;
      forkKeys.add(key);
      try {
        await write([{ key, value: fp }]);
      } catch (e) {
        forkKeys.delete(key);
        throw e;
      }
      return true;
    },
    async putAdmission(a) {
      await write([{ key: admissionKey(a.origin), value: a }]);
    },
    async admissions() {
      const out: StoredAdmission[] = [];
      for await (const v of db.values({ gte: `a${SEP}`, lt: `a${SEP}\uffff` })) out.push(v as StoredAdmission);
      return out;
    },
    async forks(log) {
      const prefix = log === undefined ? `f${SEP}` : forkPrefix(log);
      const out: StoredForkProof[] = [];
      for await (const v of db.values({ gte: prefix, lt: prefix + '\uffff' })) out.push(v as StoredForkProof);
      return out;
    },
    async logs() {
      const out: LogState[] = [];
      for await (const v of db.values({ gte: `l${SEP}`, lt: `l${SEP}\uffff` })) {
        const s = v as LogState;
        const d = durable.get(s.log);
        out.push(d && d.version > s.version ? d : s);
      }
      return out;
    },
    stats: () => ({ batches, records }),
    async close() {
      for (let i = 0; i < 2000 && (writing || queue.length > 0); i++) await new Promise((r) => setTimeout(r, 5));
      await db.close();
    },
  };
}
