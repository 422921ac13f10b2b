// The entries route's body written from stored bytes (entry-lines.ts) on a real LevelDB store,
// against the road it replaced (kept here as the oracle): the decoded entries with their payloads
// (testkit/entries-with-payloads.ts), each line JSON.stringify'd and each payload encodeLine'd. Byte for
// byte over random ranges of a log with binary and JSON payloads, unicode subjects, erased payloads
// and the erasure entries the erasures appended; with and without payloads, the store's scans cut
// into batches of any size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openLogStore, type LogStore, type StoredRecord } from '../logstore/index.ts';
import { buildPayloadLine, encodeLine } from '../verifier/bundle/index.ts';
import { erasePayloadOf, makeDescriptor, makeItems, removeDir, tempDir, TEST_LOG } from '../testkit/logstore.ts';
import { entriesWithPayloads } from '../testkit/entries-with-payloads.ts';
import { entryLines } from './entry-lines.ts';

let dir: string;
let store: LogStore;

beforeAll(async () => {
  dir = tempDir();
  store = await openLogStore(dir);
  await store.init(makeDescriptor('hash_only'));
  const block = new Uint8Array(600).map((_, i) => i * 7);
  await store.append(makeItems(TEST_LOG, store.head(), 30, { subject: 'exec-\u00e9\u4e2d\ud83d\ude00 "q"\\', cookwalaseq: 1 }));
  await store.append(makeItems(TEST_LOG, store.head(), 30, { block, prefix: 'bin-' }));
  await store.append(makeItems(TEST_LOG, store.head(), 30, { data: { text: 'tab\t\u2028', n: [1.5, -0.25, 1e21] }, prefix: 'j-' }));
  for (const seq of [2, 31, 45, 61]) await erasePayloadOf(store, seq);
});
afterAll(async () => {
  await store.close();
  removeDir(dir);
});

async function oracle(from: number, to: number, withPayloads: boolean): Promise<string> {
  let out = '';
  if (!withPayloads) {
    for await (const e of store.entries(from, to)) out += JSON.stringify(e) + '\n';
    return out;
  }
  for await (const { entry, payload } of entriesWithPayloads(store, from, to)) {
    out += JSON.stringify(entry) + '\n';
    if (payload) out += encodeLine(buildPayloadLine(entry.seq, payload));
  }
  return out;
}

/** The store's raw scans cut into batches of `n` (entries) and `m` (payloads), so batch edges fall anywhere. */
function rebatched(n: number, m: number): Pick<LogStore, 'rawEntries' | 'rawPayloads'> {
  async function* cut(scan: AsyncIterable<StoredRecord[]>, k: number): AsyncIterable<StoredRecord[]> {
    const all: StoredRecord[] = [];
    for await (const b of scan) all.push(...b);
    for (let i = 0; i < all.length; i += k) yield all.slice(i, i + k);
  }
  return { rawEntries: (a, b) => cut(store.rawEntries(a, b), n), rawPayloads: (a, b) => cut(store.rawPayloads(a, b), m) };
}

async function served(from: number, to: number, withPayloads: boolean, batches?: [number, number]): Promise<string> {
  const chunks: Buffer[] = [];
  const src = batches ? rebatched(...batches) : store;
  for await (const c of entryLines(src, TEST_LOG, from, to, withPayloads)) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

describe('entryLines', () => {
  it('gives exactly the bytes of the decoded road, every stored form and erased payloads included', async () => {
    const head = store.head().seq;
    expect(head).toBe(94);
    const whole = await served(1, head, true);
    expect(whole).toBe(await oracle(1, head, true));
    expect(whole).toContain('"kind":"Payload","seq":32,'); // binary data back as base64
    expect(whole).not.toContain('"kind":"Payload","seq":31,'); // erased: the entry alone
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.boolean(),
        fc.option(fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })), { nil: undefined }),
        async (from, to, p, batches) => {
          expect(await served(from, to, p, batches)).toBe(await oracle(from, to, p));
        },
      ),
      { numRuns: 60 },
    );
  });
});
