// conformance/topics/yaml-read.ts: reads the YAML event files of the cloudevents/conformance
// vectors with the `yaml` library under the failsafe schema (YAML 1.2 §10.1): every scalar stays
// a STRING (no typing: `1.0` is "1.0", `true` is "true"), which is how those files mean their
// attribute values; an empty plain value (`key:`) is null, and a document with no content is
// dropped. Duplicate keys, anchors and aliases, and any parse error are refused with YamlReadError
// rather than read wrongly. Mapping members are own data properties, so a key `__proto__` is an
// ordinary member. Left out: YAML typing (the core and JSON schemas), custom tags.

import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';

export class YamlReadError extends Error {
  override readonly name = 'YamlReadError';
}

export type YamlValue = string | null | YamlMap | YamlValue[];
export interface YamlMap {
  [k: string]: YamlValue;
}

function toValue(node: unknown): YamlValue {
  if (node === null || node === undefined) return null;
  if (isAlias(node)) throw new YamlReadError(`anchors and aliases are not read (*${node.source})`);
  if (isScalar(node)) {
    if (node.type === 'PLAIN' && node.source === '') return null;
    return String(node.value);
  }
  if (isSeq(node)) return node.items.map(toValue);
  if (isMap(node)) {
    const out: YamlMap = {};
    for (const pair of node.items) {
      const k = toValue(pair.key);
      if (typeof k !== 'string') throw new YamlReadError('a mapping key that is not a scalar');
      Object.defineProperty(out, k, { value: toValue(pair.value), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  throw new YamlReadError('a YAML node of an unknown kind');
}

/** Every non-empty document of a YAML stream, scalars as strings. Throws YamlReadError. */
export function readYamlDocuments(text: string): YamlValue[] {
  const out: YamlValue[] = [];
  for (const doc of parseAllDocuments(text, { schema: 'failsafe', uniqueKeys: true, prettyErrors: false })) {
    const err = doc.errors[0];
    if (err) throw new YamlReadError(`${err.code}: ${err.message}`);
    if ((doc.contents as Node | null) === null) continue;
    const v = toValue(doc.contents);
    if (v !== null) out.push(v);
  }
  return out;
}
