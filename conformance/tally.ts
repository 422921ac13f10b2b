// conformance/tally.ts: the per-topic score sheet of the conformance runner. Every case ends as
// exactly one of passed, failed (with file, case id, expected and got) or skipped (with a stated
// reason), so the totals always add up and nothing is dropped silently. A vector file that cannot
// be read at all counts as one failure: a broken file must never look like a passing one.
// It leaves out formatting (report.ts) and file discovery (files.ts).

export interface CaseFailure {
  file: string;
  id: string;
  expected: string;
  got: string;
}

export interface TopicReport {
  topic: string;
  dir: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Skip reasons with how many cases each covers, in first-seen order. */
  skips: Array<{ reason: string; count: number }>;
  failures: CaseFailure[];
  /** Facts worth printing that are not cases (e.g. a policy applied, a file read twice). */
  notes: string[];
  /** Files in the topic folder that match none of the topic's patterns. */
  ignored: string[];
}

export interface Tally {
  readonly report: TopicReport;
  pass(file: string, id: string): void;
  fail(file: string, id: string, expected: string, got: string): void;
  skip(file: string, id: string, reason: string): void;
  /** Pass when `got === expected`, else fail; returns whether it passed. */
  check(file: string, id: string, expected: string, got: string): boolean;
  /** Run one case body; a throw becomes a failure naming the exception. */
  guard(file: string, id: string, expected: string, body: () => void | Promise<void>): Promise<void>;
  fileError(file: string, problem: string): void;
  note(text: string): void;
  ignore(file: string): void;
}

const MAX_SHOWN = 240;

/** Shorten long values for display; the full values stay in the vector files. */
export function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}… (${s.length} chars)` : s;
}

export function createTally(topic: string, dir: string): Tally {
  const report: TopicReport = { topic, dir, passed: 0, failed: 0, skipped: 0, skips: [], failures: [], notes: [], ignored: [] };
  const tally: Tally = {
    report,
    pass() {
      report.passed++;
    },
    fail(file, id, expected, got) {
      report.failed++;
      report.failures.push({ file, id, expected: shown(expected), got: shown(got) });
    },
    skip(_file, _id, reason) {
      report.skipped++;
      const s = report.skips.find((x) => x.reason === reason);
      if (s) s.count++;
      else report.skips.push({ reason, count: 1 });
    },
    check(file, id, expected, got) {
      if (got === expected) {
        tally.pass(file, id);
        return true;
      }
      tally.fail(file, id, expected, got);
      return false;
    },
    async guard(file, id, expected, body) {
      try {
        await body();
      } catch (e) {
        tally.fail(file, id, expected, `threw ${(e as Error)?.name ?? 'error'}: ${(e as Error)?.message ?? String(e)}`);
      }
    },
    fileError(file, problem) {
      tally.fail(file, '(file)', 'a readable vector file', problem);
    },
    note(text) {
      if (!report.notes.includes(text)) report.notes.push(text);
    },
    ignore(file) {
      report.ignored.push(file);
    },
  };
  return tally;
}
