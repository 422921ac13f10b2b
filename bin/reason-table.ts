// bin/reason-table.ts: prints the reason-code table of verifier/errors.ts as Markdown, for
// docs/reference.md (`npx tsx bin/reason-table.ts`); test/readme.test.ts fails when that copy drifts.
import { REASONS } from '../verifier/errors.ts';

export function reasonTable(): string {
  const rows = Object.entries(REASONS).map(([code, r]) => `| \`${code}\` | ${r.status} | ${r.meaning} |`);
  return ['| code | HTTP | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(reasonTable());
