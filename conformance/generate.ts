// conformance/generate.ts: regenerates the project's own vectors, conformance/vectors/cookwala/*.json,
// DETERMINISTICALLY (fixed key seeds, fixed times, deterministic EdDSA and RFC 6979 ES256 through
// the @noble backend): running it twice gives identical bytes, and runner.test.ts checks that the
// committed files equal a fresh generation. Usage: `npx tsx conformance/generate.ts [OUTDIR]`.
// It writes only; whether the project passes the vectors is the runner's job.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKeys, type VectorFile } from './gen/fixtures.ts';
import { coreVectorFiles } from './gen/core-vectors.ts';
import { eventsFile, strictReadingFile } from './gen/document-vectors.ts';
import { checkpointFile, forkProofFile, hashChainFile } from './gen/log-vectors.ts';

/** Every vector file by name, in a fixed order. */
export async function generateVectors(): Promise<Record<string, VectorFile>> {
  const keys = createKeys();
  return {
    ...coreVectorFiles(keys),
    'strict-reading.json': strictReadingFile(keys),
    'events.json': eventsFile(keys),
    'hash-chain.json': hashChainFile(keys),
    'checkpoints.json': checkpointFile(keys),
    'fork-proofs.json': forkProofFile(keys),
  };
}

/** The exact bytes written for a vector file. */
export function serialize(v: VectorFile): string {
  return JSON.stringify(v, null, 2) + '\n';
}

export function defaultOutDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'vectors', 'cookwala');
}

export async function writeVectors(outDir = defaultOutDir()): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const files = await generateVectors();
  const written: string[] = [];
  for (const [name, v] of Object.entries(files)) {
    await writeFile(path.join(outDir, name), serialize(v));
    written.push(name);
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? path.resolve(process.argv[2]) : defaultOutDir();
  const names = await writeVectors(out);
  const files = await generateVectors();
  const cases = Object.values(files).reduce((n, f) => n + f.cases.length, 0);
  process.stdout.write(`wrote ${names.length} files, ${cases} cases, to ${out}\n`);
}
