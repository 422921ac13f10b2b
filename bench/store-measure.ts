// bench/store-measure.ts: the small measures the store sections share (bench/append.ts,
// bench/append-layout.ts, bench/proof.ts): the bytes a store directory holds on disk, this
// process's CPU time (all threads: JS, LevelDB's, GC) and rounding for the results file. Leaves
// out: anything timed (each section times its own runs).

import fs from 'node:fs';
import path from 'node:path';

export function dirBytes(dir: string): number {
  let n = 0;
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

/** `x` rounded to `d` decimals. */
export const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

/** CPU microseconds of this process so far, every thread (process.cpuUsage). */
export const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
