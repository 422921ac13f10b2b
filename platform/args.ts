// platform/args.ts: flag parsing shared by every part's CLI, over node:util parseArgs in
// strict mode. Bad flags become a UsageError, which each cli maps to its usage text and exit 2.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' }, ...options }, strict: true, allowPositionals });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Run a CLI body: usage errors print `usage` and exit 2; --help prints it and exits 0. */
export async function runCli(argv: string[], usage: string, body: () => Promise<number>): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage.trimEnd() + '\n');
    return 0;
  }
  try {
    return await body();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\n${usage.trimEnd()}\n`);
      return 2;
    }
    throw e;
  }
}
