// conformance/files.ts: finding vector files by PATTERN (conformance/vectors/README.md), never by exact
// name or count, so a renamed file or a folder laid out the same way still runs. Listing is
// recursive with a depth bound, sorted, and gives paths relative to the topic folder with `/`
// separators. Each topic claims files with its patterns; the rest are reported as ignored.

import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const MAX_DEPTH = 8;
const MAX_FILES = 100_000;

export async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Every regular file under `dir`, relative, sorted; hidden files and folders are skipped. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string, depth: number): Promise<void> {
    if (depth > MAX_DEPTH || out.length >= MAX_FILES) return;
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r, depth + 1);
      else if (e.isFile()) out.push(r);
    }
  }
  await walk('', 0);
  return out;
}

/** Immediate sub-folders of `dir`, sorted. */
export async function listDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

export async function readText(file: string): Promise<string> {
  return readFile(file, 'utf8');
}

export async function readBytes(file: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(file));
}

/** Parse JSON, naming the file in the error. */
export async function readJson(file: string): Promise<unknown> {
  const text = await readText(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`, { cause: e });
  }
}

/** A file set split by patterns: which files each pattern claims, and the unclaimed rest. */
export function classify<K extends string>(
  files: string[],
  patterns: Record<K, RegExp>,
): { byPattern: Record<K, string[]>; unclaimed: string[] } {
  const byPattern = Object.fromEntries(Object.keys(patterns).map((k) => [k, [] as string[]])) as Record<K, string[]>;
  const unclaimed: string[] = [];
  for (const f of files) {
    let claimed = false;
    for (const k of Object.keys(patterns) as K[]) {
      if (patterns[k].test(f)) {
        byPattern[k].push(f);
        claimed = true;
        break;
      }
    }
    if (!claimed) unclaimed.push(f);
  }
  return { byPattern, unclaimed };
}

/** Files such as SOURCES.md, READMEs and JSON Schemas describe vectors; they are not unclaimed vectors. */
export function isDocumentation(rel: string): boolean {
  return /\.md$/i.test(rel) || /(^|\/)LICENSE[^/]*$/i.test(rel);
}
