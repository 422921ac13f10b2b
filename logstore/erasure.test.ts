// Payload erasure (hash_only mode): the payload's bytes leave the LevelDB files, the erasure record
// and the cookwala.log.erased entry are written in the same batch, entries and proofs are intact;
// full mode refuses, and every refusal leaves the store as it was.
import { describe, expect, it } from 'vitest';
import { hashLeaf, verifyInclusion } from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { parseHash } from '../verifier/encoding/wire.ts';
import { type AppendItem, type Head } from './index.ts';
import { TEST_LOG, T0, dirContains, secret, itemFor, makeEvent, makeItems, sequencerSigner, errorCode } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';

const stores = useStores();
const fresh = (mode: 'full' | 'hash_only') => stores.fresh({ mode });

function erasedItem(head: Head, seq: number, eventHash: string, reason = 'consent withdrawn'): AppendItem {
  const ce = makeEvent(`erase-${seq}`, { source: 'urn:cookwala:sequencer', type: 'cookwala.log.erased', data: { seq, eventHash, reason } });
  return itemFor(TEST_LOG, head, ce, sequencerSigner());
}

const raw = (h: string) => (parseHash(h) as { value: Uint8Array }).value;

describe('erasePayload', () => {
  it('hash_only: the payload bytes go, the record and the erased entry come, entries and proofs stay', async () => {
    const s = await fresh('hash_only');
    const mark = secret();
    await s.append(makeItems(TEST_LOG, s.head(), 5));
    const target = itemFor(TEST_LOG, s.head(), makeEvent('personal', { data: { note: mark } }), sequencerSigner());
    await s.append([target]);
    await s.append(makeItems(TEST_LOG, s.head(), 5, { prefix: 'late-' }));
    expect(dirContains(s.dir, Buffer.from(mark))).toBe(true); // so the check below can fail
    const before = s.head();
    const proofBefore = await s.inclusionProof(6, 11);

    const record = { seq: 6, eventHash: target.entry.eventHash, reason: 'consent withdrawn', erasedAt: T0 };
    const item = erasedItem(before, 6, target.entry.eventHash);
    const head = await s.erasePayload(6, record, item);
    expect(head.seq).toBe(12);
    expect(head.hash).toBe(item.entry.hash);
    expect(await s.getPayload(6)).toEqual({ erased: { ...record, erasureSeq: 12 } });
    expect(await s.getEntry(6)).toEqual(target.entry);
    expect(await s.getEntry(12)).toEqual(item.entry);
    expect(await s.getPayload(12)).toEqual({ event: item.payload });
    const listed = [];
    for await (const p of s.payloads(1, 12)) listed.push(p.seq);
    expect(listed).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]);
    expect(await s.inclusionProof(6, 11)).toEqual(proofBefore);
    expect(await s.rootAt(11)).toBe(before.root);
    const p = await s.inclusionProof(6, 12);
    expect(verifyInclusion(hashLeaf(entryLeaf(target.entry)), 5, 12, p.map(raw), raw(head.root)).ok).toBe(true);
    expect(dirContains(s.dir, Buffer.from(mark))).toBe(false);

    // and after reopen
    const t = await stores.reopen(s);
    expect(t.head()).toEqual(head);
    expect(await t.getPayload(6)).toMatchObject({ erased: { seq: 6, erasureSeq: 12 } });
    expect(dirContains(t.dir, Buffer.from(mark))).toBe(false);
  });

  it('old payloads already compacted into deep tables and recent ones still in the memtable both go', async () => {
    const s = await fresh('hash_only');
    const marks = new Map<number, string>();
    const compactAll = () =>
      (s as unknown as { db: { compactRange(a: Buffer, b: Buffer): Promise<void> } }).db.compactRange(
        Buffer.from([0]),
        Buffer.from([0xff]),
      );
    for (let round = 0; round < 4; round++) {
      for (let b = 0; b < 3; b++) {
        const items = makeItems(TEST_LOG, s.head(), 40, { prefix: `r${round}b${b}-` });
        const m = secret();
        items[7] = itemFor(
          TEST_LOG,
          { seq: items[7].entry.seq - 1, hash: items[7].entry.prev },
          makeEvent(`m-${round}-${b}`, { data: { note: m } }),
          sequencerSigner(),
        );
        // re-chain the rest of the batch after the replaced item
        for (let i = 8; i < items.length; i++) {
          const prev = items[i - 1].entry;
          items[i] = itemFor(TEST_LOG, { seq: prev.seq, hash: prev.hash }, items[i].payload!, sequencerSigner());
        }
        await s.append(items);
        marks.set(items[7].entry.seq, m);
      }
      if (round % 2 === 0) await compactAll(); // push what exists so far into tables
    }
    for (const m of marks.values()) expect(dirContains(s.dir, Buffer.from(m))).toBe(true);
    const seqs = [...marks.keys()];
    const victims = [seqs[seqs.length - 1], seqs[0], seqs[4]]; // in the memtable, compacted long ago, middle
    for (const v of victims) {
      const e = (await s.getEntry(v))!;
      await s.erasePayload(
        v,
        { seq: v, eventHash: e.eventHash, reason: 'consent withdrawn', erasedAt: T0 },
        erasedItem(s.head(), v, e.eventHash),
      );
    }
    for (const [seq, m] of marks) expect([seq, dirContains(s.dir, Buffer.from(m))]).toEqual([seq, !victims.includes(seq)]);
    for (const v of victims) expect(await s.getPayload(v)).toMatchObject({ erased: { seq: v } });
  });

  it('full mode refuses with mode_forbids_erasure and changes nothing', async () => {
    const s = await fresh('full');
    const items = makeItems(TEST_LOG, s.head(), 3);
    await s.append(items);
    const before = s.head();
    const record = { seq: 2, eventHash: items[1].entry.eventHash, reason: 'r', erasedAt: T0 };
    expect(await errorCode(s.erasePayload(2, record, erasedItem(before, 2, record.eventHash)))).toBe('mode_forbids_erasure');
    expect(s.head()).toEqual(before);
    expect(await s.getPayload(2)).toEqual({ event: items[1].payload });
  });

  it('refuses a second erasure, a wrong record, a missing seq and a non-erasure entry', async () => {
    const s = await fresh('hash_only');
    const items = makeItems(TEST_LOG, s.head(), 3);
    await s.append(items);
    const eh = items[1].entry.eventHash;
    const rec = { seq: 2, eventHash: eh, reason: 'r', erasedAt: T0 };
    const h = s.head();
    expect(await errorCode(s.erasePayload(2, { ...rec, eventHash: items[0].entry.eventHash }, erasedItem(h, 2, eh)))).toBe('bad_request');
    expect(await errorCode(s.erasePayload(2, { ...rec, seq: 3 }, erasedItem(h, 2, eh)))).toBe('bad_request');
    expect(await errorCode(s.erasePayload(2, { ...rec, erasureSeq: 9 }, erasedItem(h, 2, eh)))).toBe('bad_request');
    expect(await errorCode(s.erasePayload(2, rec, makeItems(TEST_LOG, h, 1, { prefix: 'x-' })[0]))).toBe('bad_request');
    expect(await errorCode(s.erasePayload(9, { ...rec, seq: 9 }, erasedItem(h, 9, eh)))).toBe('not_found');
    expect(await errorCode(s.erasePayload(2, rec, { ...erasedItem(h, 2, eh), entry: { ...erasedItem(h, 2, eh).entry, seq: 5 } }))).toBe(
      'chain_broken',
    );
    expect(s.head()).toEqual(h);
    expect(await s.getPayload(2)).toEqual({ event: items[1].payload });
    await s.erasePayload(2, rec, erasedItem(h, 2, eh));
    expect(await errorCode(s.erasePayload(2, rec, erasedItem(s.head(), 2, eh)))).toBe('payload_erased');
    // an entry stored without payload has nothing to erase
    await s.append([{ entry: makeItems(TEST_LOG, s.head(), 1, { prefix: 'bare-' })[0].entry }]);
    const bare = s.head().seq;
    const e = (await s.getEntry(bare))!;
    expect(
      await errorCode(s.erasePayload(bare, { ...rec, seq: bare, eventHash: e.eventHash }, erasedItem(s.head(), bare, e.eventHash))),
    ).toBe('not_found');
  });
});
