// conformance/report.ts: the text form of a conformance run. One line per topic with its counts
// and the reason for every skip, each failure listed under its topic (file, case id, expected vs
// got), and a last line `N passed, M failed[, K skipped]` alone on its line, so scripts can read the
// verdict. The JSON form (--json) is the ConformanceReport itself.

import path from 'node:path';
import type { ConformanceReport } from './runner.ts';

const MAX_FAILURES_SHOWN = 200;

export function totalsLine(r: Pick<ConformanceReport, 'passed' | 'failed' | 'skipped'>): string {
  return `${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`;
}

export function formatReport(r: ConformanceReport): string {
  const lines: string[] = [];
  const width = Math.max(12, ...r.dirs.flatMap((d) => d.topics.map((t) => t.topic.length)));
  let shown = 0;
  for (const d of r.dirs) {
    if (!d.present) {
      lines.push(`${d.dir}: not found; its vectors did NOT run`);
      continue;
    }
    lines.push(`${d.dir}:`);
    if (d.topics.length === 0) lines.push('  no topic folders here');
    for (const f of d.unknownFolders) lines.push(`  ${f}/: not a topic of this layout, ignored`);
    for (const t of d.topics) {
      let line = `  ${t.topic.padEnd(width)} ${t.passed} passed, ${t.failed} failed`;
      if (t.skipped) line += `, ${t.skipped} skipped (${t.skips.map((s) => `${s.count}: ${s.reason}`).join('; ')})`;
      if (t.passed + t.failed + t.skipped === 0) line += ' (no cases found)';
      lines.push(line);
      for (const n of t.notes) lines.push(`    note: ${n}`);
      if (t.ignored.length) lines.push(`    ignored (matches no pattern of this topic): ${t.ignored.join(', ')}`);
      for (const f of t.failures) {
        if (shown++ >= MAX_FAILURES_SHOWN) continue;
        const where = path.relative(d.dir, path.join(t.dir, f.file)) || f.file;
        lines.push(`    FAIL ${where} [${f.id}]: expected ${f.expected}; got ${f.got}`);
      }
    }
  }
  if (shown > MAX_FAILURES_SHOWN) lines.push(`  (${shown - MAX_FAILURES_SHOWN} more failures not shown; use --json for all)`);
  if (r.noCaseRan) lines.push('no case ran');
  lines.push(totalsLine(r));
  return lines.join('\n') + '\n';
}
