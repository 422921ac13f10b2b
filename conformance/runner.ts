// conformance/runner.ts: runs every topic folder found in each vectors DIR (the layout of
// conformance/vectors/README.md) and totals the cases. A DIR may also be a single topic folder (its
// name is a topic). A DIR that is absent is reported as absent and counts as a failure; nothing
// pretends to have run. Invariant: the run is ok only when every DIR was there, at least one case
// ran and none failed. Printing is report.ts's job; exit codes are cli.ts's.

import path from 'node:path';
import { isDirectory, listDirs } from './files.ts';
import { createTally, type TopicReport } from './tally.ts';
import { TOPICS, type TopicEntry, type TopicRunner } from './topic.ts';

export interface VectorsDir {
  dir: string;
}

export interface DirReport {
  dir: string;
  present: boolean;
  topics: TopicReport[];
  /** Sub-folders that are not topics of this layout. */
  unknownFolders: string[];
}

export interface ConformanceReport {
  dirs: DirReport[];
  passed: number;
  failed: number;
  skipped: number;
  /** No case ran at all (an empty or absent DIR): this is a failed run. */
  noCaseRan: boolean;
  /** Some DIR was not there: this is a failed run too. */
  missingDir: boolean;
  ok: boolean;
}

function isModuleMissing(e: unknown): boolean {
  const code = (e as { code?: string })?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module/.test(String((e as Error)?.message));
}

async function runTopic(entry: TopicEntry, dir: string): Promise<TopicReport> {
  const tally = createTally(entry.name, dir);
  let runner: TopicRunner;
  try {
    runner = await entry.load();
  } catch (e) {
    const why = isModuleMissing(e)
      ? `the implementation is missing from this build (${(e as Error).message.split('\n')[0]})`
      : `the topic could not load: ${(e as Error).message}`;
    tally.fail('.', '(topic)', `${entry.uses.join(', ')} to run these vectors`, why);
    return tally.report;
  }
  try {
    await runner.run(dir, tally);
  } catch (e) {
    tally.fail('.', '(topic)', 'the topic to finish', `threw ${(e as Error)?.message ?? String(e)}`);
  }
  return tally.report;
}

/** Which topic folders a DIR holds: its known sub-folders, or itself when its name is a topic. */
async function topicFolders(
  dir: string,
  table: readonly TopicEntry[],
): Promise<{ folders: Array<{ entry: TopicEntry; dir: string }>; unknown: string[] }> {
  const topicByName = (name: string) => table.find((t) => t.name === name);
  const subs = await listDirs(dir);
  const folders: Array<{ entry: TopicEntry; dir: string }> = [];
  const unknown: string[] = [];
  for (const s of subs) {
    const entry = topicByName(s);
    if (entry) folders.push({ entry, dir: path.join(dir, s) });
    else unknown.push(s);
  }
  if (folders.length === 0) {
    const self = topicByName(path.basename(path.resolve(dir)));
    if (self) return { folders: [{ entry: self, dir }], unknown: [] };
  }
  // Run topics in the table's order, whatever the folder listing order.
  folders.sort((a, b) => table.indexOf(a.entry) - table.indexOf(b.entry));
  return { folders, unknown };
}

export interface RunOptions {
  /** The topic table (default: all topics of topic.ts); tests pass their own. */
  topics?: readonly TopicEntry[];
}

export async function runConformance(dirs: VectorsDir[], opts: RunOptions = {}): Promise<ConformanceReport> {
  const table = opts.topics ?? TOPICS;
  const out: DirReport[] = [];
  for (const d of dirs) {
    const dir = path.resolve(d.dir);
    if (!(await isDirectory(dir))) {
      out.push({ dir, present: false, topics: [], unknownFolders: [] });
      continue;
    }
    const { folders, unknown } = await topicFolders(dir, table);
    const topics: TopicReport[] = [];
    for (const f of folders) topics.push(await runTopic(f.entry, f.dir));
    out.push({ dir, present: true, topics, unknownFolders: unknown });
  }
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const d of out) {
    for (const t of d.topics) {
      passed += t.passed;
      failed += t.failed;
      skipped += t.skipped;
    }
  }
  const noCaseRan = passed + failed === 0;
  const missingDir = out.some((d) => !d.present);
  return { dirs: out, passed, failed, skipped, noCaseRan, missingDir, ok: failed === 0 && !noCaseRan && !missingDir };
}
