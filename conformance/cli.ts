// conformance/cli.ts: `cookwala conformance [--vectors DIR]... [--json]`. Without --vectors it runs
// the public vectors at ../shared/vectors from the project root (or $COOKWALA_VECTORS) and the
// project's own conformance/vectors; an absent default is said plainly and the rest still run.
// Exit 0 when every case passed, 1 when one failed or none ran, 2 on bad usage (including an
// explicit --vectors DIR that does not exist).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags, runCli, UsageError } from '../verifier/cli/args.ts';
import { isDirectory } from './files.ts';
import { formatReport } from './report.ts';
import { runConformance, type VectorsDir } from './runner.ts';

const USAGE = `usage: cookwala conformance [--vectors DIR]... [--json]

Runs every topic folder (jcs, ed25519, ecdsa-p256, merkle, signed-note, cloudevents, cookwala)
found in each DIR with the project's own code, and prints counts per topic, every failure, and
a last line "N passed, M failed[, K skipped]".

  --vectors DIR  a vectors folder (repeatable); default: ../shared/vectors from the project root
                 (or $COOKWALA_VECTORS) and conformance/vectors
  --json         print the whole report as JSON
Exit: 0 all passed, 1 a failure or no case ran, 2 bad usage.`;

/** The project root: the folder holding conformance/. */
export function projectRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** The default vectors DIRs: the shared public vectors (optional) and our own. */
export function defaultVectorDirs(env: NodeJS.ProcessEnv = process.env): VectorsDir[] {
  const root = projectRoot();
  const shared = env.COOKWALA_VECTORS ? path.resolve(env.COOKWALA_VECTORS) : path.resolve(root, '../shared/vectors');
  return [
    { dir: shared, optional: true },
    { dir: path.join(root, 'conformance', 'vectors') },
  ];
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      vectors: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    });
    if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    const given = (values.vectors as string[] | undefined) ?? [];
    for (const d of given) {
      if (!(await isDirectory(d))) throw new UsageError(`--vectors ${d}: not a directory`);
    }
    const dirs = given.length ? given.map((dir) => ({ dir })) : defaultVectorDirs();
    const report = await runConformance(dirs);
    if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else process.stdout.write(formatReport(report));
    return report.ok ? 0 : 1;
  });
}
