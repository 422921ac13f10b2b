// conformance/vectors-dir.ts: where the conformance runner and the tests find vectors. The default
// is the project's own conformance/vectors (the public collections copied in, each with its
// SOURCES.md, beside our own cookwala/), so a bare clone runs everything; $COOKWALA_VECTORS names
// any other folder laid out the same way (vectors README). It leaves out reading the files
// (files.ts). Invariant: the location never depends on what sits beside the project, and a test
// that needs a topic folder gets its path whether or not it exists, so a missing folder fails
// that test loudly instead of skipping it.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the folder holding conformance/. */
export function projectRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** The project's own vectors folder (what generate.ts writes into and the default). */
export function ownVectorsDir(): string {
  return path.join(projectRoot(), 'conformance', 'vectors');
}

/** The vectors folder to read: $COOKWALA_VECTORS when set (resolved from the cwd), else our own. */
export function vectorsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.COOKWALA_VECTORS ? path.resolve(env.COOKWALA_VECTORS) : ownVectorsDir();
}

/** One topic folder (jcs, ed25519, merkle, signed-note, cloudevents, …) of vectorsDir(). */
export function topicDir(topic: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(vectorsDir(env), topic);
}
