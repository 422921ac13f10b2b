// platform/data-dir-kind.ts: what a data directory holds (docs/design.md §12). Every command
// that takes `--data DIR` says which kind of directory it works on and calls `claimDataDir` first:
//   demo       `cookwala demo`                 marker file demo.json (demo/data-dir.ts)
//   sequencer  `cookwala init`, `sequencer`, `export --data`, `policy add-witness`
//   witness    `cookwala witness …`
//   executor   `cookwala executor` (one device)
//   simulator  `cookwala executor --simulate N` (devices under DIR/devices/)
// The marker is DIR/cookwala-dir.json `{"kind":"CookwalaDataDir","holds":KIND}`, written when a
// command first takes an empty or new DIR. Folders made before the marker are recognised by the
// files only their kind writes (below). A DIR of another kind is refused with one line naming the
// kind it holds and the flag to change (the caller exits 2); so `cookwala init` never puts a
// sequencer key into a demo's folder, and the demo (which clears its own folder) never sees one.
// A folder directly inside a demo's is refused too (the next demo clears it), except to the
// commands the demo itself runs (DEMO_CHILD_ENV). Default folders per kind cannot collide: DEFAULT_DIRS. Left out: locking (each part's LevelDB
// lock already refuses two processes on one store). Invariant: nothing here deletes anything.

import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';

export type DirKind = 'demo' | 'sequencer' | 'witness' | 'executor' | 'simulator';

export const DIR_MARKER = 'cookwala-dir.json';

/** Set by `cookwala demo` for the commands it runs: only they may use folders inside a demo's. */
export const DEMO_CHILD_ENV = 'COOKWALA_DEMO_CHILD';

/** Where each kind lives when no --data is given (witness and executor always need --data). */
export const DEFAULT_DIRS = { demo: './data/demo', sequencer: './data/sequencer' } as const;

/** Files only one kind writes at the top of its folder: how a folder without a marker is known. */
const SIGNATURE_FILES: Record<DirKind, string[]> = {
  demo: ['demo.json'],
  sequencer: ['sequencer.key.json', 'operator.token', 'sequencer.keyrecord.json'],
  witness: ['witness.key.json', 'witness.json', 'witness.keyrecord.json'],
  executor: ['device.key.json', 'device.json'],
  simulator: [],
};

const DESCRIPTION: Record<DirKind, string> = {
  demo: 'a cookwala demo directory',
  sequencer: "a sequencer's data directory",
  witness: "a witness's data directory",
  executor: "a device executor's data directory",
  simulator: "a simulator's data directory",
};

/** Files in a folder that hold a secret key (never deleted by anyone who did not create them). */
export const KEY_FILES = ['sequencer.key.json', 'operator.token', 'witness.key.json', 'peer.key', 'device.key.json'];

export type DirState =
  | { state: 'missing' }
  | { state: 'not_a_directory' }
  | { state: 'empty' }
  | { state: 'holds'; kind: DirKind; marked: boolean; others: DirKind[] }
  | { state: 'unknown'; names: string[] };

/** What DIR holds: its marker's kind, or the kind its files show, or nothing we know. */
export async function inspectDataDir(dirArg: string): Promise<DirState> {
  const dir = resolve(dirArg);
  let st;
  try {
    st = await stat(dir);
  } catch {
    return { state: 'missing' };
  }
  if (!st.isDirectory()) return { state: 'not_a_directory' };
  const names = await readdir(dir);
  if (names.length === 0) return { state: 'empty' };
  const shown = (Object.keys(SIGNATURE_FILES) as DirKind[]).filter((k) => SIGNATURE_FILES[k].some((f) => names.includes(f)));
  if (names.includes(DIR_MARKER)) {
    const r = parseJson(await readFile(join(dir, DIR_MARKER), 'utf8').catch(() => ''));
    const j = r.ok ? (r.value as { kind?: unknown; holds?: unknown } | null) : null;
    if (j && j.kind === 'CookwalaDataDir' && typeof j.holds === 'string' && j.holds in SIGNATURE_FILES) {
      const kind = j.holds as DirKind;
      return { state: 'holds', kind, marked: true, others: shown.filter((k) => k !== kind) };
    }
  }
  if (shown.length > 0) return { state: 'holds', kind: shown[0], marked: false, others: shown.slice(1) };
  if (names.includes('devices') && names.every((n) => n === 'devices' || n === DIR_MARKER))
    return { state: 'holds', kind: 'simulator', marked: false, others: [] };
  return { state: 'unknown', names };
}

export type ClaimResult = { ok: true; dir: string; created: boolean } | { ok: false; reason: string };

export interface ClaimOptions {
  /** Create DIR (and its marker) when missing or empty; else a missing DIR is refused. */
  create: boolean;
  /** The flag that names DIR, for the message (default --data). */
  flag?: string;
  /** What to run to create one, for the message when DIR is missing. */
  createWith?: string;
  /** Take a non-empty folder of no known kind (default: refuse it). */
  takeUnknown?: boolean;
}

export function describeKind(k: DirKind): string {
  return DESCRIPTION[k];
}

/**
 * Take DIR for a command of `kind`: refuse another kind's folder (one line naming it), take a
 * folder of this kind (writing the marker if it had none), create a missing or empty one when
 * `create`. Pure in what it refuses: a refused DIR is left exactly as it was.
 */
export async function claimDataDir(dirArg: string, kind: DirKind, o: ClaimOptions): Promise<ClaimResult> {
  const dir = resolve(dirArg);
  const flag = o.flag ?? '--data';
  // A folder inside a demo's is the demo's to clear on its next run: nobody else's keys go there.
  if (kind !== 'demo' && process.env[DEMO_CHILD_ENV] !== '1') {
    const parent = await inspectDataDir(dirname(dir));
    if (parent.state === 'holds' && parent.kind === 'demo')
      return {
        ok: false,
        reason: `${dirArg} lies inside a cookwala demo directory (${dirname(dir)}), which the next demo clears: choose a ${flag} DIR outside it`,
      };
  }
  const s = await inspectDataDir(dir);
  if (s.state === 'not_a_directory') return { ok: false, reason: `${dirArg} is a file, not a directory: choose another ${flag} DIR` };
  if (s.state === 'holds') {
    if (s.kind !== kind)
      return { ok: false, reason: `${dirArg} is ${DESCRIPTION[s.kind]}, not ${DESCRIPTION[kind]}: choose another ${flag} DIR` };
    if (s.others.length > 0)
      return {
        ok: false,
        reason: `${dirArg} holds the files of ${[s.kind, ...s.others].map((k) => DESCRIPTION[k]).join(' and ')} at once: refusing to use it; move one of them to its own ${flag} DIR`,
      };
    if (!s.marked) await writeMarker(dir, kind);
    return { ok: true, dir, created: false };
  }
  if (s.state === 'unknown' && !o.takeUnknown) {
    return {
      ok: false,
      reason: `${dirArg} is not empty and holds no cookwala data (${s.names.slice(0, 3).join(', ')}${s.names.length > 3 ? ', …' : ''}): choose an empty or new ${flag} DIR`,
    };
  }
  if (!o.create) {
    if (s.state === 'missing' || s.state === 'empty')
      return {
        ok: false,
        reason: `${dirArg} is ${s.state === 'missing' ? 'missing' : 'empty'}${o.createWith ? `: create it with \`${o.createWith}\` first, or pass the right ${flag} DIR` : `: pass the right ${flag} DIR`}`,
      };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeMarker(dir, kind);
  return { ok: true, dir, created: s.state === 'missing' || s.state === 'empty' };
}

async function writeMarker(dir: string, kind: DirKind): Promise<void> {
  await writeFile(join(dir, DIR_MARKER), JSON.stringify({ kind: 'CookwalaDataDir', holds: kind }) + '\n');
}
