// conformance/topics/cloudevents.ts: CloudEvents 1.0 JSON-format vectors through
// verifier/cloudevent/read.ts readCloudEvent(): cases.json (`expected` valid/invalid under the spec),
// spec-examples/*.json (each valid; *batch* files are JSON arrays of events, read one by one, and the
// empty batch is a valid batch), and conformance/*.yaml, the cloudevents/conformance events read with
// yaml-read.ts (failsafe schema: scalars are strings) and mapped to structured JSON as json-format §3.1.1 says (context attributes and
// extensions as members; Data parsed as JSON for a JSON datacontenttype, else a string); all valid.
// A spec example whose data_base64 holds characters outside base64 (the spec's "... base64 encoded
// string ..." placeholder) is skipped with that reason, never passed.

import path from 'node:path';
import { readCloudEvent } from '../../verifier/cloudevent/index.ts';
import { isJsonMediaType } from '../../verifier/cloudevent/index.ts';
import { classify, isDocumentation, listFiles, readJson, readText } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';
import { readYamlDocuments, YamlReadError, type YamlMap, type YamlValue } from './yaml-read.ts';

const PATTERNS = {
  cases: /^cases[^/]*\.json$/,
  examples: /^spec-examples\/[^/]+\.json$/,
  yaml: /^conformance\/[^/]+\.ya?ml$/,
  // The JSON Schema is reference material: cases.json records its verdicts (jsonSchemaValid), but the
  // spec verdict `expected` is what is scored, since the schema misses two spec rules.
  schema: /^schema\//,
};

const PLACEHOLDER = 'placeholder base64 in the spec example';

function verdictOf(json: unknown): { verdict: 'valid' | 'invalid'; why: string } {
  const r = readCloudEvent(json);
  return r.ok ? { verdict: 'valid', why: 'valid' } : { verdict: 'invalid', why: `invalid (${r.code}: ${r.detail})` };
}

function score(t: Tally, file: string, id: string, expected: string, json: unknown): void {
  const v = verdictOf(json);
  if (v.verdict === expected) t.pass(file, id);
  else t.fail(file, id, expected, v.why);
}

function isPlaceholder(ev: unknown): boolean {
  const b = (ev as { data_base64?: unknown } | null)?.data_base64;
  return typeof b === 'string' && /[^A-Za-z0-9+/=]/.test(b);
}

function runCases(file: string, doc: unknown, t: Tally): void {
  const cases = (doc as { cases?: Array<{ id?: string; event: unknown; expected: string }> })?.cases;
  if (!Array.isArray(cases)) throw new Error('no cases[]');
  for (const [i, c] of cases.entries()) {
    const id = c.id ?? `#${i}`;
    if (c.expected !== 'valid' && c.expected !== 'invalid') t.fail(file, id, 'expected "valid" or "invalid"', String(c.expected));
    else score(t, file, id, c.expected, c.event);
  }
}

function runExample(file: string, doc: unknown, t: Tally): void {
  if (/batch/i.test(path.basename(file)) && !Array.isArray(doc)) {
    t.fail(file, 'batch', 'a batch: a JSON array of events', `a JSON ${doc === null ? 'null' : typeof doc}`);
    return;
  }
  const events = Array.isArray(doc) ? doc : [doc];
  if (Array.isArray(doc) && doc.length === 0) {
    // json-format §4: a batch is a JSON array of events; zero events is a valid (empty) batch.
    t.pass(file, 'empty batch');
    return;
  }
  for (const [i, ev] of events.entries()) {
    const id = Array.isArray(doc)
      ? `[${i}] ${(ev as { id?: string })?.id ?? ''}`
      : String((ev as { id?: string })?.id ?? path.basename(file));
    if (isPlaceholder(ev)) t.skip(file, id, PLACEHOLDER);
    else score(t, file, id, 'valid', ev);
  }
}

/** A cloudevents/conformance YAML event as a JSON-format (structured) event. */
export function yamlEventToJson(doc: YamlMap): Record<string, unknown> {
  const attrs = doc.ContextAttributes;
  if (!attrs || typeof attrs !== 'object' || Array.isArray(attrs)) throw new Error('no ContextAttributes mapping');
  const ev: Record<string, unknown> = {};
  // Members are defined, not assigned, so a key `__proto__` stays an ordinary member.
  const put = (k: string, v: unknown) => Object.defineProperty(ev, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'Extensions') {
      if (v === null) continue;
      if (typeof v !== 'object' || Array.isArray(v)) throw new Error('Extensions is not a mapping');
      for (const [ek, evv] of Object.entries(v)) put(ek, evv);
    } else put(k, v);
  }
  const data = doc.Data;
  if (typeof data === 'string') {
    const ct = ev.datacontenttype;
    ev.data = typeof ct === 'string' && isJsonMediaType(ct) ? JSON.parse(data) : data;
  } else if (data !== undefined && data !== null) throw new Error('Data is not a string');
  return ev;
}

function runYaml(file: string, text: string, t: Tally): void {
  let docs: YamlValue[];
  try {
    docs = readYamlDocuments(text);
  } catch (e) {
    if (e instanceof YamlReadError) {
      t.fail(file, '(file)', 'a YAML stream of event documents', e.message);
      return;
    }
    throw e;
  }
  for (const [i, v] of docs.entries()) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      t.fail(file, `doc ${i + 1}`, 'a mapping', Array.isArray(v) ? 'a sequence' : 'a scalar');
      continue;
    }
    const d: YamlMap = v;
    const attrs = d.ContextAttributes as YamlMap | undefined;
    const id = `doc ${i + 1} ${typeof attrs?.id === 'string' ? attrs.id : ''}${typeof d.Mode === 'string' ? ` (${d.Mode})` : ''}`.trim();
    let ev: Record<string, unknown>;
    try {
      ev = yamlEventToJson(d);
    } catch (e) {
      t.fail(file, id, 'a conformance event', (e as Error).message);
      continue;
    }
    score(t, file, id, 'valid', ev);
  }
}

export const cloudeventsTopic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f)) t.ignore(f);
    const jobs: Array<[string, () => Promise<void>]> = [
      ...byPattern.cases.map((f) => [f, async () => runCases(f, await readJson(path.join(dir, f)), t)] as [string, () => Promise<void>]),
      ...byPattern.examples.map(
        (f) => [f, async () => runExample(f, await readJson(path.join(dir, f)), t)] as [string, () => Promise<void>],
      ),
      ...byPattern.yaml.map((f) => [f, async () => runYaml(f, await readText(path.join(dir, f)), t)] as [string, () => Promise<void>]),
    ];
    for (const [f, job] of jobs) {
      try {
        await job();
      } catch (e) {
        t.fileError(f, (e as Error).message);
      }
    }
  },
};
