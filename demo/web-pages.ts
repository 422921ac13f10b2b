// demo/web-pages.ts: the demo's pointers to the web pages (docs/design.md §12b): before anything
// else it makes sure the pages are built (web/build.ts --if-stale in a child process: skipped when
// web/dist is newer than its sources; when it cannot build, the demo says how and goes on) and
// says where the offline verifier page is on disk, and as soon as the sequencer listens, the URL
// of the log explorer it serves at `/`. Left out: opening a browser (the demo runs headless too).

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DIST_DIR } from '../web/server/index.ts';

const BUILD = fileURLToPath(new URL('../web/build.ts', import.meta.url));

export interface WebPages {
  /** The built verifier page, or undefined when it could not be built. */
  verifierPath?: string;
  problem?: string;
}

export async function prepareWebPages(): Promise<WebPages> {
  const built = await new Promise<string | undefined>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', BUILD, '--if-stale'], { timeout: 60_000 }, (err, _out, stderr) =>
      resolve(err ? (stderr.trim().split('\n').pop() ?? err.message) : undefined),
    );
  });
  const page = join(DIST_DIR, 'verifier.html');
  if (!existsSync(page)) return { problem: `the web pages are not built (${built ?? 'no output'}); run \`npm run build:web\`` };
  return { verifierPath: page };
}

/** The line naming the verifier page: a file an auditor opens in any browser, with no server. */
export function verifierLine(w: WebPages, dir: string): string {
  if (!w.verifierPath) return `verifier page: not available: ${w.problem}`;
  return `verifier page: ${pathToFileURL(w.verifierPath).href}  (offline: open it from disk, drop ${join(dir, 'bundle.ndjson')}, policy.json and keys.json)`;
}

export function explorerLine(sequencerUrl: string): string {
  return `explorer:      ${sequencerUrl}/  (the log, its checkpoints, witnesses, entries and proofs, checked in the browser)`;
}
