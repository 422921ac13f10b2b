// conformance/topics/cookwala.ts: the project's own vectors (conformance/vectors/cookwala/*.json),
// each file `{topic, description, cases:[{id?, description, input:{op, …}, expected:{ok, code?}}]}`.
// Every case is EVALUATED: `input.op` names a check that runs the project's functions on the
// self-contained input (documents, keys, policies) and yields a Result, whose ok/code must equal
// `expected`. Nothing is compared against stored outputs alone. `expected.code` must be a code of
// verifier/errors.ts. Ops live in cookwala-ops*.ts, grouped by the verifier modules they need and
// loaded lazily, so a module that is not built yet fails only the cases that need it.

import path from 'node:path';
import { isReasonCode, type Result } from '../../verifier/index.ts';
import { classify, isDocumentation, listFiles, readJson } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';
import { findOp } from './cookwala-op-table.ts';

const PATTERNS = { vectors: /^[^/]+\.json$/ };

export interface CookwalaCase {
  id?: string;
  description?: string;
  input: { op: string; [k: string]: unknown };
  expected: { ok: boolean; code?: string };
}

export interface CookwalaFile {
  topic: string;
  description: string;
  cases: CookwalaCase[];
}

function describeResult(r: Result<unknown>): string {
  return r.ok ? 'ok' : `${r.code} (${r.detail})`;
}

export async function evaluateCase(c: CookwalaCase): Promise<Result<unknown>> {
  const op = findOp(c.input.op);
  if (!op) throw new Error(`unknown op ${JSON.stringify(c.input.op)}`);
  const fn = await op.load();
  return fn(c.input);
}

async function runCase(file: string, c: CookwalaCase, index: number, t: Tally): Promise<void> {
  const id = typeof c?.id === 'string' ? c.id : `#${index}`;
  const exp = c?.expected;
  if (!exp || typeof exp.ok !== 'boolean' || (!exp.ok && !isReasonCode(exp.code)) || (exp.ok && exp.code !== undefined)) {
    return t.fail(file, id, 'expected {ok:true} or {ok:false, code: a code of verifier/errors.ts}', JSON.stringify(exp));
  }
  if (!c.input || typeof c.input.op !== 'string')
    return t.fail(file, id, 'input.op naming a check', JSON.stringify(c.input)?.slice(0, 80) ?? 'none');
  const want = exp.ok ? 'ok' : String(exp.code);
  await t.guard(file, id, want, async () => {
    const r = await evaluateCase(c);
    const got = r.ok ? 'ok' : r.code;
    if (got === want) t.pass(file, id);
    else t.fail(file, id, want, describeResult(r));
  });
}

export const cookwalaTopic: TopicRunner = {
  async run(dir, t: Tally) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f)) t.ignore(f);
    for (const f of byPattern.vectors) {
      let doc: CookwalaFile;
      try {
        doc = (await readJson(path.join(dir, f))) as CookwalaFile;
        if (typeof doc?.topic !== 'string' || !Array.isArray(doc.cases)) throw new Error('not {topic, description, cases:[…]}');
      } catch (e) {
        t.fileError(f, (e as Error).message);
        continue;
      }
      for (const [i, c] of doc.cases.entries()) await runCase(f, c, i, t);
    }
  },
};
