// logstore/append-plan.ts: the pure half of an append or an erasure (docs/design.md §4, §6). Given the
// head, a frontier and the items, it checks that the entries chain from the head (checkLink), hashes
// the new leaves into a COPY of the frontier, and returns the exact LevelDB operations (entries,
// payloads, indexes, one node key per leaf, the new head) plus the new head and frontier. The store
// then writes the ops as one synced batch and swaps head and frontier only after the write, so a
// refused plan or a failed write changes nothing in memory. Each check is done once per entry on
// this hot path: the entry encoder checks the hash shapes while it writes the binary
// form, the leaf and the dedup value are read from that form, and the dedup keys come computed
// from the group planner. Leaves out: reading the database (the append queue checks the dedup
// index on disk, the store reads the entry an erasure names) and signature checks (entries come
// from the sequencer, which verified the events). Invariant: the returned ops never contain a node
// or head that does not follow from exactly these entries, and a refused plan adds no op to a
// shared batch.

import { fail, ok, type Result } from '../verifier/index.ts';
import { isHashString, isTime, formatHash } from '../verifier/encoding/index.ts';
import { checkLink } from '../verifier/documents/index.ts';
import { createFrontier, hashLeaf, type Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, ErasureRecord, Entry, Head } from './types.ts';
import { P, dedupKey, erasureKey, singleKey, subjectKey, wipeKey, type RecordLayout } from './keys.ts';
import { encodeDedup, encodeHead, encodeJson, encodeU64 } from './values.ts';
import { packCompleted } from './tree-nodes.ts';
import { BINARY_HASH_AT, BINARY_EVENT_HASH_AT, encodeEntry, isBinaryEntry } from './entry-codec.ts';
import { encodePayload } from './payload-codec.ts';

export const ERASED_TYPE = 'cookwala.log.erased';

export type Op = { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer };

/** The head record put; every batch that appends ends with exactly one. */
export function headOp(head: Head): Op {
  return { type: 'put', key: singleKey.head, value: encodeHead(head) };
}

export interface AppendPlan {
  /** Everything but the head record (see headOp), so several plans can share one batch. */
  ops: Op[];
  head: Head;
  frontier: Frontier;
}

function copyFrontier(f: Frontier): Frontier {
  return createFrontier(f.size, f.nodes());
}

/** A dedup key as written (`buf`) and as a Set/Map key (`str`, its latin1 text); see dedupKeyOf. */
export interface DedupKey {
  buf: Buffer;
  str: string;
}

/** The dedup key of one item, computed once per append and shared by the queue, the group and the plan; undefined without a well-formed pair. */
export function dedupKeyOf(item: AppendItem | undefined): DedupKey | undefined {
  const d = item?.dedup;
  if (!d || typeof d.source !== 'string' || typeof d.id !== 'string') return undefined;
  const buf = dedupKey(d.source, d.id);
  return { buf, str: buf.toString('latin1') };
}

/**
 * The stored form of an item's payload: the caller's own JSON text when it gave one that the
 * payload codec would store as JSON text too (no binary data to keep as raw bytes), else
 * encodePayload. decodePayload reads both the same way (JSON.parse of text starting with `{`).
 */
function payloadOf(item: AppendItem): Buffer {
  const t = item.payloadText;
  if (t !== undefined && t.length > 0 && t[0] === 0x7b && typeof item.payload?.data_base64 !== 'string')
    return Buffer.isBuffer(t) ? t : Buffer.from(t.buffer, t.byteOffset, t.byteLength);
  return encodePayload(item.payload!);
}

/**
 * `dedupKeys[i]`, when given, must be dedupKeyOf(items[i]) (the group planner computes them once).
 * `out`, when given, receives the ops instead of a new array (the group planner's batch).
 */
export function planAppend(
  layout: RecordLayout,
  log: string,
  head: Head,
  frontier: Frontier,
  items: readonly AppendItem[],
  dedupKeys?: ReadonlyArray<DedupKey | undefined>,
  out?: Op[],
): Result<AppendPlan> {
  if (frontier.size !== head.seq) throw new Error(`logstore: frontier size ${frontier.size} != head seq ${head.seq}`);
  const f = copyFrontier(frontier);
  const ops: Op[] = out ?? [];
  const start = ops.length;
  const refuse = <T>(r: Result<T>): Result<AppendPlan> => {
    ops.length = start; // a refused append leaves nothing in a shared batch
    return r as Result<AppendPlan>;
  };
  let seenDedup: Set<string> | undefined;
  let lastBySubject: Map<string, number> | undefined;
  // prevHash is always a well-formed hash string: the head's (checked when it was written) or the
  // hash of an entry accepted below (checked by the encoder or by isHashString).
  let prevSeq = head.seq;
  let prevHash = head.hash;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const e: Entry | undefined = item?.entry;
    if (!e || typeof e !== 'object') return refuse(fail('invalid_document', `item ${i} has no entry`));
    if (e.log !== log)
      return refuse(
        fail('log_mismatch', `entry ${e.seq} names log ${JSON.stringify(e.log)}, this store holds ${JSON.stringify(log)}`, {
          seq: e.seq,
        }),
      );
    if (e.seq !== prevSeq + 1 || e.prev !== prevHash) return refuse(checkLink({ seq: prevSeq, hash: prevHash }, e));
    let entryBytes: Buffer | undefined;
    let encodeError: unknown;
    try {
      entryBytes = encodeEntry(e, prevHash);
    } catch (err) {
      encodeError = err;
    }
    // The binary form is only taken for well-formed hashes, so only the JSON form needs the check.
    const binary = entryBytes !== undefined && isBinaryEntry(entryBytes);
    if (!binary && (!isHashString(e.hash) || !isHashString(e.eventHash)))
      return refuse(fail('invalid_hash', `entry ${e.seq} hash or eventHash malformed`, { seq: e.seq }));
    if (entryBytes === undefined)
      return refuse(fail('invalid_document', `entry ${e.seq}: ${(encodeError as Error).message}`, { seq: e.seq }));
    const leafIndex = e.seq - 1;
    // The leaf data is entryLeaf(e), the 32 raw bytes of the entry hash: read from the binary form
    // (or decoded with Buffer's hex codec), several times faster on this hot path than parseHash
    // (store.test.ts checks they agree).
    const leaf = binary ? entryBytes.subarray(BINARY_HASH_AT, BINARY_HASH_AT + 32) : Buffer.from(e.hash.slice(7), 'hex');
    ops.push({ type: 'put', key: layout.key(P.node, leafIndex), value: packCompleted(leafIndex, f.append(hashLeaf(leaf))) });
    ops.push({ type: 'put', key: layout.key(P.entry, e.seq), value: entryBytes });
    if (item.payload !== undefined) {
      let payloadBytes: Buffer;
      try {
        payloadBytes = payloadOf(item);
      } catch (err) {
        return refuse(fail('invalid_event', `payload of entry ${e.seq}: ${(err as Error).message}`, { seq: e.seq }));
      }
      ops.push({ type: 'put', key: layout.key(P.payload, e.seq), value: payloadBytes });
    }
    if (item.dedup !== undefined) {
      const dk = dedupKeys ? dedupKeys[i] : dedupKeyOf(item);
      if (dk === undefined) return refuse(fail('bad_request', `entry ${e.seq}: dedup source and id must be strings`));
      seenDedup ??= new Set<string>();
      if (seenDedup.has(dk.str)) {
        const { source, id } = item.dedup;
        return refuse(
          fail('duplicate_id', `(source, id) = (${JSON.stringify(source)}, ${JSON.stringify(id)}) twice in one append`, {
            seq: e.seq,
            source,
            id,
          }),
        );
      }
      seenDedup.add(dk.str);
      ops.push({
        type: 'put',
        key: dk.buf,
        value: binary ? encodeDedup(e.seq, entryBytes, BINARY_EVENT_HASH_AT) : encodeDedup(e.seq, e.eventHash),
      });
    }
    if (item.subject !== undefined) {
      const { subject, cookwalaseq } = item.subject;
      if (typeof subject !== 'string' || !Number.isSafeInteger(cookwalaseq) || cookwalaseq < 0) {
        return refuse(fail('bad_request', `entry ${e.seq}: subject index needs a string subject and a non-negative integer cookwalaseq`));
      }
      // Only the subject's last cookwalaseq in this batch matters: one put per subject, not per event.
      (lastBySubject ??= new Map<string, number>()).set(subject, cookwalaseq);
    }
    prevSeq = e.seq;
    prevHash = e.hash;
  }
  if (lastBySubject)
    for (const [subject, cookwalaseq] of lastBySubject) ops.push({ type: 'put', key: subjectKey(subject), value: encodeU64(cookwalaseq) });
  const newHead: Head = { seq: prevSeq, hash: prevHash, root: formatHash(f.root()) };
  return ok({ ops, head: newHead, frontier: f });
}

export interface EraseInput {
  layout: RecordLayout;
  mode: 'full' | 'hash_only';
  log: string;
  head: Head;
  frontier: Frontier;
  seq: number;
  record: ErasureRecord;
  /** The stored entry at `seq`, and what the store holds for its payload. */
  entry: Entry | undefined;
  payload: 'present' | 'erased' | 'absent';
  item: AppendItem;
}

/**
 * An erasure: delete the payload, store the record, mark the seq for wiping (the store compacts
 * the bytes away after the batch and clears the mark; a crash in between is redone at open), and
 * append the cookwala.log.erased entry.
 */
export function planErase(x: EraseInput): Result<AppendPlan & { record: ErasureRecord }> {
  if (x.mode !== 'hash_only') return fail('mode_forbids_erasure', `log ${x.log} is in ${x.mode} mode`);
  if (!Number.isSafeInteger(x.seq) || x.seq < 1 || x.seq > x.head.seq || !x.entry)
    return fail('not_found', `no entry at seq ${x.seq}`, { seq: x.seq });
  if (x.payload === 'erased') return fail('payload_erased', `payload of seq ${x.seq} is already erased`, { seq: x.seq });
  if (x.payload === 'absent') return fail('not_found', `no payload stored at seq ${x.seq}`, { seq: x.seq });
  const r = x.record;
  if (!r || r.seq !== x.seq) return fail('bad_request', `erasure record seq ${r?.seq} is not ${x.seq}`);
  if (r.eventHash !== x.entry.eventHash) return fail('bad_request', `erasure record eventHash is not the entry's (${x.entry.eventHash})`);
  if (typeof r.reason !== 'string' || !isTime(r.erasedAt))
    return fail('bad_request', 'erasure record needs a reason string and an RFC 3339 erasedAt');
  if (x.item?.entry?.ce?.type !== ERASED_TYPE)
    return fail('bad_request', `an erasure appends a ${ERASED_TYPE} entry, not ${x.item?.entry?.ce?.type}`);
  const erasureSeq = x.item.entry.seq;
  if (r.erasureSeq !== undefined && r.erasureSeq !== erasureSeq)
    return fail('bad_request', `erasureSeq ${r.erasureSeq} is not the erased entry's seq ${erasureSeq}`);
  const plan = planAppend(x.layout, x.log, x.head, x.frontier, [x.item]);
  if (!plan.ok) return plan;
  const record: ErasureRecord = { seq: r.seq, eventHash: r.eventHash, reason: r.reason, erasedAt: r.erasedAt, erasureSeq };
  const ops: Op[] = [
    { type: 'del', key: x.layout.key(P.payload, x.seq) },
    { type: 'put', key: erasureKey(x.seq), value: encodeJson(record) },
    { type: 'put', key: wipeKey(x.seq), value: Buffer.alloc(0) },
    ...plan.value.ops,
    headOp(plan.value.head),
  ];
  return ok({ ...plan.value, ops, record });
}
