// The append plan's refusals on the fast path (docs/design.md §4, §6): the checks the encoder now does in
// one pass (hash shapes, chaining) still refuse what the store's contract names, with the same
// codes, and a refused plan adds nothing to a shared batch; the ops of an accepted plan decode back
// to the entry, its Merkle leaf and its dedup value.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createFrontier, createMemoryTree, hashLeaf } from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash, isHashString } from '../verifier/encoding/wire.ts';
import { planAppend, type Op } from './append-plan.ts';
import { decodeEntry } from './entry-codec.ts';
import { decodeDedup } from './values.ts';
import { BANDED, P, dedupKey } from './keys.ts';
import { TEST_LOG, makeDescriptor, makeItems } from '../testkit/logstore.ts';
import type { AppendItem, Head } from './types.ts';

const desc = makeDescriptor('full');
const head0: Head = { seq: 0, hash: desc.hash, root: formatHash(createMemoryTree().root()) };
const items = makeItems(TEST_LOG, head0, 3);
const frontier0 = () => createFrontier(0, []);
const withEntry = (it: AppendItem, over: Record<string, unknown>): AppendItem => ({
  ...it,
  entry: { ...it.entry, ...over } as AppendItem['entry'],
});
const code = (r: ReturnType<typeof planAppend>) => (r.ok ? 'ok' : r.code);

describe('planAppend refusals', () => {
  const H = items[0].entry.hash;
  const malformed: unknown[] = [
    H.toUpperCase(),
    'sha256:' + H.slice(7).toUpperCase(),
    H.slice(0, 70) + 'A',
    H.slice(0, 70) + 'g',
    H.slice(0, 70),
    H + '0',
    'sha512:' + H.slice(7),
    ' ' + H.slice(1),
    42,
    undefined,
  ];

  it('a malformed hash or eventHash is invalid_hash, whichever form the entry would take', () => {
    for (const bad of malformed) {
      expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { hash: bad })]))).toBe('invalid_hash');
      expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { eventHash: bad })]))).toBe('invalid_hash');
      // an extra member sends the entry to the JSON form; the hash is still checked
      expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { hash: bad, 'x-note': 1 })]))).toBe(
        'invalid_hash',
      );
    }
    // a malformed hash comes before "no JSON form", as before the fast path
    expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { hash: 'x', big: 1n })]))).toBe('invalid_hash');
    expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { big: 1n })]))).toBe('invalid_document');
  });

  it('chain, log and dedup refusals keep their codes; a refused plan leaves a shared batch as it was', () => {
    const shared: Op[] = [{ type: 'put', key: Buffer.from('k'), value: Buffer.from('v') }];
    const cases: Array<[AppendItem[], string]> = [
      [[items[0], withEntry(items[1], { prev: items[0].entry.prev })], 'chain_broken'],
      [[items[1]], 'chain_broken'],
      [[withEntry(items[0], { log: 'other.example/log' })], 'log_mismatch'],
      [[items[0], { ...items[1], dedup: items[0].dedup }], 'duplicate_id'],
      [[items[0], { ...items[1], dedup: { source: 1 as unknown as string, id: 'x' } }], 'bad_request'],
      [[items[0], { ...items[1], payload: { big: 1n } as unknown as AppendItem['payload'] }], 'invalid_event'],
    ];
    for (const [batch, want] of cases) {
      expect(code(planAppend(BANDED, TEST_LOG, head0, frontier0(), batch, undefined, shared))).toBe(want);
      expect(shared.length).toBe(1);
    }
  });

  it('an accepted plan: entry, leaf and dedup value agree with the entry', () => {
    const r = planAppend(BANDED, TEST_LOG, head0, frontier0(), items);
    if (!r.ok) throw new Error(r.detail);
    const tree = createMemoryTree();
    for (const it of items) tree.append(hashLeaf(entryLeaf(it.entry)));
    expect(r.value.head).toEqual({ seq: 3, hash: items[2].entry.hash, root: formatHash(tree.root()) });
    for (const it of items) {
      const e = r.value.ops.find((o) => o.type === 'put' && o.key.equals(BANDED.key(P.entry, it.entry.seq))) as { value: Buffer };
      expect(decodeEntry(e.value, TEST_LOG, it.entry.seq)).toEqual(it.entry);
      const d = r.value.ops.find((o) => o.key.equals(dedupKey(it.dedup!.source, it.dedup!.id))) as { value: Buffer };
      expect(decodeDedup(d.value)).toEqual({ seq: it.entry.seq, eventHash: it.entry.eventHash });
    }
    expect(r.value.ops.filter((o) => o.key[0] === P.record && o.key[9] === P.node).length).toBe(3);
  });

  it('hash strings near the shape: refused exactly when isHashString says so (fast-check)', () => {
    const hex = '0123456789abcdefABCDEFgz';
    const near = fc.oneof(
      fc.constant(H),
      fc.tuple(fc.nat({ max: 63 }), fc.constantFrom(...hex)).map(([i, c]) => H.slice(0, 7 + i) + c + H.slice(8 + i)),
      fc.string({ maxLength: 80 }),
      fc.nat({ max: 70 }).map((n) => H.slice(0, n)),
    );
    fc.assert(
      fc.property(near, near, (hash, eventHash) => {
        const r = planAppend(BANDED, TEST_LOG, head0, frontier0(), [withEntry(items[0], { hash, eventHash })]);
        expect(r.ok).toBe(isHashString(hash) && isHashString(eventHash));
        if (!r.ok) expect(r.code).toBe('invalid_hash');
      }),
      { numRuns: 500 },
    );
  });
});
