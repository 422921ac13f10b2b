// conformance/cli.ts: `cookwala conformance [--vectors DIR]... [--json]`. Without --vectors it runs
// the vectors folder of vectors-dir.ts: the project's own conformance/vectors (the public
// collections copied in, and our cookwala/ vectors), or $COOKWALA_VECTORS when set.
// Exit 0 when every case passed, 1 when one failed or none ran, 2 on bad usage (including a
// --vectors DIR or a $COOKWALA_VECTORS that is not a directory).

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { isDirectory } from './files.ts';
import { formatReport } from './report.ts';
import { runConformance, type VectorsDir } from './runner.ts';
import { vectorsDir } from './vectors-dir.ts';

export { projectRoot } from './vectors-dir.ts';

const USAGE = `usage: cookwala conformance [--vectors DIR]... [--json]

Runs every topic folder (jcs, ed25519, ecdsa-p256, merkle, signed-note, cloudevents, cookwala)
found in each DIR with the project's own code, and prints counts per topic, every failure, and
a last line "N passed, M failed[, K skipped]".

  --vectors DIR  a vectors folder (repeatable); default: $COOKWALA_VECTORS when set, else the
                 project's conformance/vectors
  --json         print the whole report as JSON
Exit: 0 all passed, 1 a failure or no case ran, 2 bad usage.`;

/** The default vectors DIR ($COOKWALA_VECTORS or conformance/vectors). */
export function defaultVectorDirs(env: NodeJS.ProcessEnv = process.env): VectorsDir[] {
  return [{ dir: vectorsDir(env) }];
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
    if (!given.length && process.env.COOKWALA_VECTORS && !(await isDirectory(vectorsDir()))) {
      throw new UsageError(`COOKWALA_VECTORS=${process.env.COOKWALA_VECTORS}: not a directory`);
    }
    const dirs = given.length ? given.map((dir) => ({ dir })) : defaultVectorDirs();
    const report = await runConformance(dirs);
    if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    else process.stdout.write(formatReport(report));
    return report.ok ? 0 : 1;
  });
}
