// executor/request.ts: strict reading of the body of POST /v1/executions (Cookwala Core 0.2 §2, §7,
// §8): `{recipe:{id, steps:[{op, params?:{tempC?, durationS?}}…]}, consent?:{dataset}}`. Unknown
// members are refused with `unknown_field` naming the JSON path; `x-<vendor>-…` members are ignored
// and dropped from the value (they never reach the hardware or the log). A body that breaks these
// rules is not an execution at all (400); whether a well-formed recipe can be RUN is plan.ts's job
// (an execution refused with a reason). Leaves out agent mandates (§6.5): a request carrying one is
// refused as an unknown field rather than half-honoured.

import { fail, ok, type Result } from '../verifier/index.ts';

export const DATASETS = ['none', 'research_only', 'open'] as const;
export type Dataset = (typeof DATASETS)[number];

export interface Step {
  op: string;
  params: { tempC?: number; durationS?: number };
}
export interface ExecutionRequest {
  recipe: { id: string; steps: Step[] };
  consent?: { dataset: Dataset };
}

export const MAX_STEPS = 200;
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const OP_RE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

type Obj = Record<string, unknown>;
function isObj(x: unknown): x is Obj {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}
function unknownMember(o: Obj, allowed: readonly string[], path: string): Result<true> {
  for (const k of Object.keys(o)) if (!allowed.includes(k) && !k.startsWith('x-')) return fail('unknown_field', `${path}.${k}`);
  return ok(true);
}

/** Order of dataset strictness: none is the strictest. */
export function stricterDataset(a: Dataset, b: Dataset): Dataset {
  return DATASETS.indexOf(a) <= DATASETS.indexOf(b) ? a : b;
}

export function isDataset(x: unknown): x is Dataset {
  return typeof x === 'string' && (DATASETS as readonly string[]).includes(x);
}

function readStep(x: unknown, path: string): Result<Step> {
  if (!isObj(x)) return fail('invalid_document', `${path} is an object`);
  const u = unknownMember(x, ['op', 'params'], path);
  if (!u.ok) return u;
  if (typeof x.op !== 'string' || !OP_RE.test(x.op)) return fail('invalid_document', `${path}.op is an operation id like cw.op.simmer`);
  const params: Step['params'] = {};
  if (x.params !== undefined) {
    if (!isObj(x.params)) return fail('invalid_document', `${path}.params is an object`);
    const up = unknownMember(x.params, ['tempC', 'durationS'], `${path}.params`);
    if (!up.ok) return up;
    const { tempC, durationS } = x.params;
    if (tempC !== undefined) {
      if (typeof tempC !== 'number' || !Number.isFinite(tempC)) return fail('invalid_document', `${path}.params.tempC is a number (°C)`);
      params.tempC = tempC;
    }
    if (durationS !== undefined) {
      if (typeof durationS !== 'number' || !Number.isFinite(durationS) || durationS <= 0)
        return fail('invalid_document', `${path}.params.durationS is a positive number`);
      params.durationS = durationS;
    }
  }
  return ok({ op: x.op, params });
}

export function readExecutionRequest(json: unknown): Result<ExecutionRequest> {
  if (!isObj(json)) return fail('invalid_document', 'the body is a JSON object');
  const u = unknownMember(json, ['recipe', 'consent'], '$');
  if (!u.ok) return u;
  const r = json.recipe;
  if (!isObj(r)) return fail('invalid_document', '$.recipe is required and is an object');
  const ur = unknownMember(r, ['id', 'steps'], '$.recipe');
  if (!ur.ok) return ur;
  if (typeof r.id !== 'string' || !ID_RE.test(r.id)) return fail('invalid_document', '$.recipe.id is 1-128 characters of [A-Za-z0-9._:-]');
  if (!Array.isArray(r.steps) || r.steps.length === 0 || r.steps.length > MAX_STEPS)
    return fail('invalid_document', `$.recipe.steps is an array of 1-${MAX_STEPS} steps`);
  const steps: Step[] = [];
  for (let i = 0; i < r.steps.length; i++) {
    const s = readStep(r.steps[i], `$.recipe.steps[${i}]`);
    if (!s.ok) return s;
    steps.push(s.value);
  }
  const out: ExecutionRequest = { recipe: { id: r.id, steps } };
  if (json.consent !== undefined) {
    const c = json.consent;
    if (!isObj(c)) return fail('invalid_document', '$.consent is an object');
    const uc = unknownMember(c, ['dataset'], '$.consent');
    if (!uc.ok) return uc;
    if (!isDataset(c.dataset)) return fail('invalid_document', `$.consent.dataset is one of ${DATASETS.join(', ')}`);
    out.consent = { dataset: c.dataset };
  }
  return ok(out);
}
