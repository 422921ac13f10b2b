// demo/data-dir.ts: the demo's data directory (docs/design.md §12). The demo owns DIR only when DIR holds
// its marker, DIR/demo.json (`{"kind":"CookwalaDemo", pid, startedAt}`), written first thing, so a
// demo that crashed half-way is still recognised and cleared by the next run. Rules: a missing or
// empty DIR is taken; a DIR with our marker is emptied first (unless the demo named in it is still
// running: refused); anything else (a file, a non-empty folder without the marker, a marker that
// is not ours) is refused, and the caller exits 2. Nothing outside DIR is ever touched.
// Invariant: no file is deleted unless DIR/demo.json parsed as our marker and no other kind's key
// or marker lies at the top of DIR (platform/data-dir-kind.ts: a sequencer's keys are never wiped).
// Layout after a run (what an auditor is handed, docs/design.md §12): bundle.ndjson, policy.json,
// keys.json, fork-proof.json (--fork); the parts' own folders: sequencer/, witness-{1,2,3}/,
// executors/; children's logs in logs/ (sequencer, witness-N, executors, the withdrawing device's
// name, export, keys, verify, verify-fork: one file each, runs appended under a `---` header).

import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';
import { describeKind, inspectDataDir } from '../platform/index.ts';

export const MARKER = 'demo.json';

export interface DemoMarker {
  kind: 'CookwalaDemo';
  pid: number;
  startedAt: string;
}

export type PrepareResult = { ok: true; dir: string; cleared: boolean } | { ok: false; reason: string };

function readMarker(text: string): DemoMarker | undefined {
  const r = parseJson(text); // anything that is not I-JSON is not ours
  const j = r.ok ? (r.value as Partial<DemoMarker> | null) : undefined;
  if (j && j.kind === 'CookwalaDemo' && Number.isSafeInteger(j.pid) && typeof j.startedAt === 'string') return j as DemoMarker;
  return undefined;
}

/** Whether `pid` is a running `cookwala demo` (not merely a live pid reused by something else). */
async function isDemoRunning(pid: number): Promise<boolean> {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmd.includes('demo');
  } catch {
    return true; // no /proc: a live pid is assumed to be the demo (refusing is the safe side)
  }
}

/** Take DIR for a new demo run: create it, or clear a previous demo's, or refuse. */
export async function prepareDemoDir(dirArg: string, now: () => number = Date.now): Promise<PrepareResult> {
  const dir = resolve(dirArg);
  let cleared = false;
  let st;
  try {
    st = await stat(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, reason: `cannot use ${dir}: ${(e as Error).message}` };
  }
  if (st && !st.isDirectory()) return { ok: false, reason: `${dir} exists and is not a directory` };
  if (st) {
    const names = await readdir(dir);
    if (names.length > 0) {
      if (!names.includes(MARKER))
        return {
          ok: false,
          reason: `${dir} is not empty and holds no ${MARKER} from an earlier demo; refusing to touch it (choose another --data DIR)`,
        };
      const marker = readMarker(await readFile(join(dir, MARKER), 'utf8').catch(() => ''));
      if (!marker) return { ok: false, reason: `${join(dir, MARKER)} is not a cookwala demo marker; refusing to touch ${dir}` };
      if (await isDemoRunning(marker.pid)) return { ok: false, reason: `another cookwala demo (pid ${marker.pid}) is using ${dir}` };
      // A key some other command put here (an operator's `cookwala init --data` into this folder)
      // is never the demo's to delete: refuse, and leave everything as it is.
      const held = await inspectDataDir(dir);
      if (held.state === 'holds' && (held.kind !== 'demo' || held.others.length > 0)) {
        const others = held.kind === 'demo' ? held.others : [held.kind];
        return {
          ok: false,
          reason: `${dir} holds ${others.map(describeKind).join(' and ')} beside an earlier demo's files; the demo clears only its own folder, so it refuses to touch this one: move those files out, or choose another --data DIR`,
        };
      }
      // The marker goes last, so a crash while clearing still leaves the folder ours.
      for (const n of names) if (n !== MARKER) await rm(join(dir, n), { recursive: true, force: true });
      cleared = true;
    }
  }
  await mkdir(dir, { recursive: true });
  const marker: DemoMarker = { kind: 'CookwalaDemo', pid: process.pid, startedAt: new Date(now()).toISOString() };
  await writeFile(join(dir, MARKER), JSON.stringify(marker, null, 2) + '\n');
  await mkdir(join(dir, 'logs'), { recursive: true });
  return { ok: true, dir, cleared };
}
