// kill -9 of a process appending (and erasing) under load, several times on one store: after each
// crash the store opens, holds every acknowledged entry and erasure, the chain and the tree agree
// with a reference rebuilt from the entries, and no erasure is left half done.
import { describe, expect, it } from 'vitest';
import { createMemoryTree, hashLeaf } from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash } from '../verifier/encoding/wire.ts';
import { openLogStore } from '../logstore/index.ts';
import { familyRange, P } from '../logstore/keys.ts';
import { removeDir, spawnChild, tempDir } from '../testkit/logstore.ts';

const ROUNDS = Math.min(50, Number(process.env.COOKWALA_CRASH_ROUNDS ?? 3));

describe('crash consistency (kill -9)', () => {
  it(`survives ${ROUNDS} kills mid-append with every acknowledged write present`, async () => {
    const dir = tempDir();
    try {
      let acked = 0;
      const erased = new Set<number>();
      for (let round = 0; round < ROUNDS; round++) {
        const { child, lines, exited } = spawnChild(['append', dir, '100000']);
        const killAfter = 5 + Math.floor(Math.random() * 40);
        let seen = 0;
        for (;;) {
          const r = await lines.next();
          if (r.done) throw new Error('child ended before it was killed');
          const [what, n] = r.value.split(' ');
          if (what === 'acked') {
            acked = Math.max(acked, Number(n));
            if (++seen >= killAfter) break;
          } else if (what === 'erased') erased.add(Number(n));
        }
        child.kill('SIGKILL');
        expect(await exited).toBe(null); // killed by the signal, not exited

        const s = await openLogStore(dir);
        try {
          const head = s.head();
          expect(head.seq).toBeGreaterThanOrEqual(acked);
          expect(head.seq).toBeLessThanOrEqual(acked + 60); // at most the appends in flight
          const mem = createMemoryTree();
          let prev = s.descriptor()!.hash;
          let n = 0;
          for await (const e of s.entries(1, head.seq)) {
            expect(e.seq).toBe(++n);
            expect(e.prev).toBe(prev);
            prev = e.hash;
            mem.append(hashLeaf(entryLeaf(e)));
          }
          expect(n).toBe(head.seq);
          expect(head.hash).toBe(prev);
          expect(head.root).toBe(formatHash(mem.root()));
          const last = (await s.getEntry(head.seq))!;
          if (last.ce.type !== 'cookwala.log.erased')
            expect(await s.lookupId(last.ce.source, last.ce.id)).toEqual({ seq: head.seq, eventHash: last.eventHash });
          for (const seq of erased) expect(await s.getPayload(seq)).toMatchObject({ erased: { seq } });
          // no erasure left half done: open finished every interrupted wipe
          const pending = await (s as unknown as { db: { keys(o: object): { all(): Promise<unknown[]> } } }).db
            .keys(familyRange(P.wipe))
            .all();
          expect(pending).toEqual([]);
          acked = head.seq;
        } finally {
          await s.close();
        }
      }
      expect(acked).toBeGreaterThan(0);
      expect(erased.size).toBeGreaterThan(0); // the erasure path ran under the kills too
    } finally {
      removeDir(dir);
    }
  });
});
