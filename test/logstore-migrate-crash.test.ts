// kill -9 of a process moving a LevelDB store from the FAMILY_FIRST key layout to BANDED at open
// (logstore/migrate.ts): each round copies one old-layout store, starts a child that opens it
// (test/logstore-child.ts migrate), kills it once it has reported a chosen number of durable steps
// (from the first step to after the version flip), then opens the copy here: the move completes,
// the store serves exactly what it served before it was rewritten, and no old key is left.
import { cpSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openLogStore } from '../logstore/index.ts';
import { BANDED } from '../logstore/keys.ts';
import { MIGRATE_CHUNK } from '../logstore/migrate.ts';
import { TEST_LOG, makeCheckpoint, makeDescriptor, makeItems, removeDir, spawnChild, tempDir } from '../testkit/logstore.ts';
import { countLayouts, storeView, toFamilyFirst } from '../testkit/logstore-layout.ts';

const ENTRIES = 3 * MIGRATE_CHUNK - 100; // three steps a family: nine, then the flip
const ROUNDS = 4;

describe('migration under kill -9', () => {
  it(`${ROUNDS} kills at chosen steps: the next open completes the move and the store serves the same`, async () => {
    const src = tempDir();
    const dirs = [src];
    try {
      const s = await openLogStore(src);
      await s.init(makeDescriptor('full'));
      for (let n = 0; n < ENTRIES; n += 1000) await s.append(makeItems(TEST_LOG, s.head(), Math.min(1000, ENTRIES - n)));
      const h = s.head();
      await s.putCheckpoint(makeCheckpoint(TEST_LOG, h.seq, h.hash, h.root));
      const view = await storeView(s);
      await s.close();
      const records = await toFamilyFirst(src);

      // the steps to kill after: the first, the flip (10), and seeded choices among 2..9, the
      // seed printed for a rerun (FC_SEED, as every property of the run)
      const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
      const [some] = fc.sample(fc.array(fc.integer({ min: 2, max: 9 }), { minLength: ROUNDS - 2, maxLength: ROUNDS - 2 }), {
        seed,
        numRuns: 1,
      });
      const killAfter = [1, 10, ...some];
      console.log(`migrate crash: seed ${seed}, kill after steps ${killAfter.join(', ')}`);
      for (const k of killAfter) {
        const dir = tempDir();
        dirs.push(dir);
        cpSync(src, dir, { recursive: true });
        const { child, lines, exited } = spawnChild(['migrate', dir]);
        let steps = 0;
        while (steps < k) {
          const r = await lines.next();
          if (r.done) throw new Error(`child ended after ${steps} steps, before step ${k}`);
          if (r.value.startsWith('step ')) steps++;
        }
        child.kill('SIGKILL');
        expect(await exited).toBe(null); // killed by the signal, not exited

        const t = await openLogStore(dir, { createIfMissing: false });
        try {
          expect(await storeView(t)).toEqual(view);
        } finally {
          await t.close();
        }
        expect(await countLayouts(dir)).toEqual({ banded: records, familyFirst: 0, version: BANDED.format });
      }
    } finally {
      for (const d of dirs) removeDir(d);
    }
  });
});
