// logstore/store-read.ts: the read side of the log store (docs/design.md §6, §10): entries and payloads
// by seq and as streamed ranges (LevelDB iterators, so constant memory), the (source, id) and
// subject indexes, stored checkpoints, and Merkle roots and proofs at any size up to the head, as
// `sha256:<hex>` strings, each read from stored nodes with ONE getMany (tree-nodes.ts). Leaves out
// every write (store.ts). Invariant: roots and proofs are served only for sizes up to the durable
// head, whose nodes are all on disk (a batch lands whole or not at all).

import type { Level } from 'level';
import { ProtocolError } from '../verifier/index.ts';
import { formatHash } from '../verifier/encoding/index.ts';
import {
  consistencyProof as merkleConsistency,
  inclusionProof as merkleInclusion,
  rootAt as merkleRootAt,
  type Frontier,
  type NodeReader,
} from '../verifier/merkle/index.ts';
import { planErase, type AppendPlan } from './append-plan.ts';
import type {
  AppendItem,
  Checkpoint,
  CloudEvent,
  Entry,
  ErasureRecord,
  Head,
  LogDescriptor,
  PayloadRecord,
  StoredRecord,
} from './types.ts';
import {
  checkpointKey,
  dedupKey,
  dedupSourcePrefixes,
  erasureKey,
  familyRange,
  subjectKey,
  P,
  type RecordFamily,
  type RecordLayout,
} from './keys.ts';
import { decodeDedup, decodeJson, decodeU64 } from './values.ts';
import { createNodeReader } from './tree-nodes.ts';
import { decodeEntry } from './entry-codec.ts';
import { decodePayload } from './payload-codec.ts';

export type DB = Level<Buffer, Buffer>;

/** LevelDB's manual compaction of [start, end]: classic-level has it, `level`'s universal typings omit it. */
export function compactRange(db: DB, start: Buffer, end: Buffer): Promise<void> {
  return (db as unknown as { compactRange(start: Buffer, end: Buffer): Promise<void> }).compactRange(start, end);
}

/** A key range of the byte-ordered key space (keys.ts), as LevelDB's iterators take it. */
export interface KvRange {
  gte?: Buffer;
  lte?: Buffer;
  reverse?: boolean;
  limit?: number;
}

/**
 * What the read side needs from a backend: LevelDB (`level`) has it as is; the PostgreSQL driver
 * (postgres/pg-kv.ts) provides the same over its tables, so both serve reads with this one class.
 */
export interface KvRead {
  get(key: Buffer): Promise<Uint8Array | undefined>;
  getMany(keys: Buffer[]): Promise<Array<Uint8Array | undefined>>;
  iterator(range: KvRange): AsyncIterable<[Buffer, Buffer]>;
  values(range: KvRange): AsyncIterable<Buffer> & { all(): Promise<Buffer[]> };
}

/** Records per batch of the raw scans. */
const BATCH = 1000;

/**
 * The pairs of `range` in batches: with LevelDB's nextv one await per batch instead of one per
 * record (the cost of a long scan); another backend's iterator is batched as it yields.
 */
async function* batchesOf(db: KvRead, range: KvRange): AsyncIterable<Array<[Buffer, Buffer]>> {
  const it = db.iterator(range) as AsyncIterable<[Buffer, Buffer]> & {
    nextv?(n: number): Promise<Array<[Buffer, Buffer]>>;
    close?(): Promise<void>;
  };
  if (typeof it.nextv === 'function') {
    try {
      for (;;) {
        const b = await it.nextv(BATCH);
        if (b.length === 0) return;
        yield b;
      }
    } finally {
      await it.close?.();
    }
  }
  let batch: Array<[Buffer, Buffer]> = [];
  for await (const kv of it) {
    batch.push(kv);
    if (batch.length < BATCH) continue;
    yield batch;
    batch = [];
  }
  if (batch.length > 0) yield batch;
}

export abstract class StoreReader<D extends KvRead = DB> {
  protected desc: LogDescriptor | undefined;
  protected cur: Head | undefined;
  protected readonly reader: NodeReader;

  constructor(
    protected readonly db: D,
    /** Where this driver keeps the per-entry records (keys.ts). */
    protected readonly layout: RecordLayout,
  ) {
    this.reader = createNodeReader((keys) => db.getMany(keys), layout);
  }

  /** The durable head; throws before init. */
  protected headNow(): Head {
    if (!this.cur) throw new Error('logstore: not initialized (call init with the log descriptor)');
    return this.cur;
  }

  /** Why the stored log disagrees with a checkpoint, or undefined when it holds exactly that state. */
  protected async disagreement(cp: Checkpoint): Promise<string | undefined> {
    const head = this.headNow();
    if (cp.seq > head.seq) return `head seq ${head.seq} is behind checkpoint seq ${cp.seq}`;
    const at = cp.seq === 0 ? this.desc!.hash : (await this.getEntry(cp.seq))?.hash;
    if (at !== cp.head) return `entry ${cp.seq} hash ${at} is not the checkpoint head ${cp.head}`;
    const root = await this.rootAt(cp.seq);
    if (root !== cp.root) return `root at ${cp.seq} ${root} is not the checkpoint root ${cp.root}`;
    return undefined;
  }

  private get log(): string {
    return this.desc?.log ?? '';
  }

  async getEntry(seq: number): Promise<Entry | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    const v = await this.db.get(this.layout.key(P.entry, seq));
    return v ? decodeEntry(v, this.log, seq) : undefined;
  }

  async *entries(from: number, to: number): AsyncIterable<Entry> {
    const r = seqRange(from, to, 1);
    if (!r) return;
    for (const range of this.layout.ranges(P.entry, r[0], r[1]))
      for await (const [k, v] of this.db.iterator(range)) yield decodeEntry(v, this.log, this.layout.seqOf(k));
  }

  /** The stored entry records of a range as they are (entry-codec.ts), in seq order, in batches; for json-lines.ts. */
  rawEntries(from: number, to: number): AsyncIterable<StoredRecord[]> {
    return this.rawRecords(P.entry, from, to);
  }

  private async *rawRecords(family: RecordFamily, from: number, to: number): AsyncIterable<StoredRecord[]> {
    const r = seqRange(from, to, 1);
    if (!r) return;
    for (const range of this.layout.ranges(family, r[0], r[1]))
      for await (const batch of batchesOf(this.db, range)) yield batch.map(([k, v]) => ({ seq: this.layout.seqOf(k), value: v }));
  }

  async getPayload(seq: number): Promise<PayloadRecord | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    const [p, x] = await this.db.getMany([this.layout.key(P.payload, seq), erasureKey(seq)]);
    if (p) return { event: decodePayload(p) };
    if (x) return { erased: decodeJson<ErasureRecord>(x) };
    return undefined;
  }

  async *payloads(from: number, to: number): AsyncIterable<{ seq: number; event: CloudEvent }> {
    const r = seqRange(from, to, 1);
    if (!r) return;
    for (const range of this.layout.ranges(P.payload, r[0], r[1]))
      for await (const [k, v] of this.db.iterator(range)) yield { seq: this.layout.seqOf(k), event: decodePayload(v) };
  }

  /** The stored payload records of a range as they are (payload-codec.ts), in seq order, in batches. */
  rawPayloads(from: number, to: number): AsyncIterable<StoredRecord[]> {
    return this.rawRecords(P.payload, from, to);
  }

  /**
   * The plan of an erasure (append-plan.ts planErase) from what is stored: the entry at `seq`, whether
   * its payload is present, erased or absent, and no other entry with the erasure entry's (source,
   * id). Shared by both drivers; each writes the plan's ops its own way.
   */
  protected async planErasure(
    state: { desc: LogDescriptor; head: Head; frontier: Frontier },
    seq: number,
    record: ErasureRecord,
    erasedEntry: AppendItem,
  ): Promise<AppendPlan & { record: ErasureRecord }> {
    const valid = Number.isSafeInteger(seq) && seq >= 1;
    const entry = valid ? await this.getEntry(seq) : undefined;
    const [p, x] = valid ? await this.db.getMany([this.layout.key(P.payload, seq), erasureKey(seq)]) : [undefined, undefined];
    const payload = p ? 'present' : x ? 'erased' : 'absent';
    const plan = planErase({
      layout: this.layout,
      mode: state.desc.mode,
      log: state.desc.log,
      ...state,
      seq,
      record,
      entry,
      payload,
      item: erasedEntry,
    });
    if (!plan.ok) throw ProtocolError.from(plan);
    const clash = await this.lookupItem(erasedEntry);
    if (clash) throw new ProtocolError('duplicate_id', `(source, id) of the erasure entry is already at seq ${clash.seq}`, clash);
    return plan.value;
  }

  protected async lookupItem(item: AppendItem): Promise<{ seq: number; eventHash: string } | undefined> {
    const d = item.dedup;
    return d && typeof d.source === 'string' && typeof d.id === 'string' ? this.lookupId(d.source, d.id) : undefined;
  }

  async lookupId(source: string, id: string): Promise<{ seq: number; eventHash: string } | undefined> {
    const v = await this.db.get(dedupKey(source, id));
    return v ? decodeDedup(v) : undefined;
  }

  /**
   * The seqs of every entry appended with a (source, id) index entry for `source`, ascending: a
   * range read of the dedup index, O(that source's events), not of the log.
   */
  async seqsOfSource(source: string): Promise<number[]> {
    const seqs: number[] = [];
    for (const prefix of dedupSourcePrefixes(source)) {
      for await (const [k, v] of this.db.iterator({ gte: prefix })) {
        if (k.length < prefix.length || k.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0) break;
        seqs.push(decodeDedup(v).seq);
      }
    }
    return seqs.sort((a, b) => a - b);
  }

  async lastSubjectSeq(subject: string): Promise<number | undefined> {
    const v = await this.db.get(subjectKey(subject));
    return v ? decodeU64(v) : undefined;
  }

  async latestCheckpoint(): Promise<Checkpoint | undefined> {
    const [v] = await this.db.values({ ...familyRange(P.checkpoint), reverse: true, limit: 1 }).all();
    return v ? decodeJson<Checkpoint>(v) : undefined;
  }

  async checkpoint(seq: number): Promise<Checkpoint | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
    const v = await this.db.get(checkpointKey(seq));
    return v ? decodeJson<Checkpoint>(v) : undefined;
  }

  async *checkpoints(opts: { reverse?: boolean } = {}): AsyncIterable<Checkpoint> {
    for await (const v of this.db.values({ ...familyRange(P.checkpoint), reverse: opts.reverse === true })) yield decodeJson<Checkpoint>(v);
  }

  private size(n: number, what: string, min = 0): number {
    const head = this.headNow();
    if (!Number.isSafeInteger(n) || n < min || n > head.seq) {
      throw new ProtocolError('bad_request', `${what} ${n} is outside ${min}..${head.seq}`, { headSeq: head.seq });
    }
    return n;
  }

  async rootAt(size: number): Promise<string> {
    this.size(size, 'size');
    const head = this.headNow();
    if (size === head.seq) return head.root;
    return formatHash(await merkleRootAt(this.reader, size));
  }

  async inclusionProof(seq: number, size: number): Promise<string[]> {
    this.size(size, 'size', 1);
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > size) throw new ProtocolError('bad_request', `seq ${seq} is outside 1..${size}`);
    return (await merkleInclusion(this.reader, seq - 1, size)).map(formatHash);
  }

  /** RFC 9162 §2.1.4; from 0 (the empty tree) gives the empty proof, as C2SP tlog-witness expects. */
  async consistencyProof(from: number, to: number): Promise<string[]> {
    this.size(to, 'to');
    if (!Number.isSafeInteger(from) || from < 0 || from > to) throw new ProtocolError('bad_request', `from ${from} is outside 0..${to}`);
    if (from === 0 || from === to) return [];
    return (await merkleConsistency(this.reader, from, to)).map(formatHash);
  }

  /**
   * The hashes of tlog-tiles tile (level, index) of width 1..256 (C2SP tlog-tiles): node
   * [8·level, index·256 + i] for i < width, concatenated (32 bytes each), read with ONE getMany of
   * the stored nodes (tree-nodes.ts), never rehashed. The tile must lie within the durable tree:
   * (index·256 + width)·256^level <= head size, else bad_request.
   */
  async tileHashes(level: number, index: number, width: number): Promise<Uint8Array> {
    if (
      !Number.isInteger(level) ||
      level < 0 ||
      level > 6 ||
      !Number.isSafeInteger(index) ||
      index < 0 ||
      !Number.isInteger(width) ||
      width < 1 ||
      width > 256
    ) {
      throw new ProtocolError('bad_request', `tile ${level}/${index} of width ${width} is not a tile`);
    }
    const span = 256 ** level;
    const need = (index * 256 + width) * span;
    if (!Number.isSafeInteger(need) || need > this.headNow().seq) {
      throw new ProtocolError(
        'not_found',
        `tile ${level}/${index} of width ${width} needs ${need} leaves; the tree has ${this.headNow().seq}`,
        { headSeq: this.headNow().seq },
      );
    }
    const ids = Array.from({ length: width }, (_, i) => [8 * level, index * 256 + i] as [number, number]);
    const hashes = await this.reader.getNodes(ids);
    const out = new Uint8Array(width * 32);
    hashes.forEach((h, i) => out.set(h, i * 32));
    return out;
  }
}

/** Clamp an inclusive seq range to seq >= min; undefined when empty. Non-integers are a programmer error. */
function seqRange(from: number, to: number, min: number): [number, number] | undefined {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new RangeError(`seq range ${from}..${to}`);
  const a = Math.max(from, min);
  return a > to ? undefined : [a, to];
}
