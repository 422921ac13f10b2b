// The entries route's body written from stored bytes (entry-lines.ts) on a real LevelDB store,
// against the road it replaced (kept here as the oracle): the decoded entries with their payloads
// (entries-with-payloads.ts), each line JSON.stringify'd and each payload encodeLine'd. Byte for
// byte over random ranges of a log with binary and JSON payloads, unicode subjects, erased payloads
// and the erasure entries the erasures appended; with and without payloads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { buildPayloadLine, encodeLine } from '../verifier/bundle/index.ts';
import { erasePayloadOf, makeDescriptor, makeItems, removeDir, tempDir, TEST_LOG } from '../testkit/logstore.ts';
import { entriesWithPayloads } from './entries-with-payloads.ts';
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

async function served(from: number, to: number, withPayloads: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of entryLines(store, TEST_LOG, from, to, withPayloads)) chunks.push(c);
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
      fc.asyncProperty(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.boolean(), async (from, to, p) => {
        expect(await served(from, to, p)).toBe(await oracle(from, to, p));
      }),
      { numRuns: 60 },
    );
  });
});
