// verifier/encoding/strict-json.ts: the one reader of untrusted JSON text (docs/design.md §3, I-JSON: RFC 7493 §2.3,
// which RFC 8785 assumes). It refuses what JSON.parse would quietly accept and two parsers could
// read two ways: a member name twice in one object (duplicate_member, with the JSON Pointer of the
// second one in `path`; names are compared after unescaping, so "a" and "\u0061" are one name),
// nesting deeper than `maxDepth` (too_deep; 64 by default, one level per object or array), text
// longer than `maxLength` UTF-16 code units (body_too_large; 16 Mi by default, the longest bundle
// line), more than `maxValues` values or `maxContainers` objects and arrays (too_many_values; 2^20
// and 2^18 by default: JSON.parse spends about 100 bytes on each object or array, so 16 MB of
// `[{},{},…]` would build 5.5 million of them and take a gigabyte; these bounds keep the value
// built from any text under about 60 MB). Otherwise it returns exactly what JSON.parse returns, so `__proto__` stays an own ordinary
// member. Checks in order: length, depth and counts, syntax (bad_json), duplicates, so hostile nesting is
// refused before anything is built (JSON.parse of 16 MB of `[` takes seconds and 500 MB) and a
// duplicate is only named in text that is JSON. Cost, linear: one scan skips strings with indexOf
// and counts nesting and name separators (colons outside strings: one per member written); after
// JSON.parse, a walk counts the members the value holds; only text that wrote more members than
// its value holds (which in JSON means a repeated name) gets the slower scan that names it.
// Left out: the other I-JSON rules (lone surrogates are refused by canonicalization in
// verifier/encoding/jcs.ts; numbers beyond double range are JSON.parse's Infinity, which JCS refuses).

import { fail, ok, type Failure, type Result } from '../errors.ts';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays (a scalar at the top is depth 0, `{}` depth 1). */
  maxDepth?: number;
  /** Longest text in UTF-16 code units (string length). */
  maxLength?: number;
  /** Most values (scalars, objects and arrays, counted as separators + containers + 1). */
  maxValues?: number;
  /** Most objects and arrays. */
  maxContainers?: number;
}

/**
 * Depth of one document: far beyond any Core document or device payload. A reader of a document
 * wrapped once more (a batch array, a bundle's payload line, a witness request) passes one more.
 */
export const MAX_JSON_DEPTH = 64;
/** The longest text read by default: a bundle line (auditor/bundle-file.ts MAX_LINE_BYTES). */
export const MAX_JSON_LENGTH = 16 << 20;
/** Most values in one text: a 1 MiB event body holds at most about half a million. */
export const MAX_JSON_VALUES = 1 << 20;
/** Most objects and arrays in one text (each costs JSON.parse about 100 bytes). */
export const MAX_JSON_CONTAINERS = 1 << 18;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** One open object or array in findDuplicate's scan. */
interface Frame {
  object: boolean;
  /** Member names seen so far (objects). */
  names: Set<string>;
  /** The current member name (objects) or element index (arrays), for the path. */
  at: string | number;
}

function pointer(stack: Frame[], depth: number): string {
  let p = '';
  for (let d = 0; d < depth; d++) p += '/' + String(stack[d].at).replace(/~/g, '~0').replace(/\//g, '~1');
  return p;
}

/** The index of the quote that closes the string opened at `i`, or -1. */
function closingQuote(text: string, i: number): number {
  // The closing quote is the first one not preceded by an odd run of backslashes; the run stops
  // at the opening quote at the latest.
  let q = text.indexOf('"', i + 1);
  while (q > 0) {
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/**
 * The first pass, on any text (it never throws): too_deep, or the number of name separators
 * (colons outside strings), which in JSON text is the number of members written.
 */
function countMembers(text: string, maxDepth: number, maxValues: number, maxContainers: number, spans?: number[]): Failure | number {
  let depth = 0;
  let topArray = false;
  let colons = 0;
  let commas = 0;
  let containers = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const q = closingQuote(text, i);
      if (q < 0) return colons; // unterminated: JSON.parse names it
      i = q + 1;
      continue;
    }
    if (c === COLON) colons++;
    else if (c === COMMA) {
      if (++commas + containers >= maxValues)
        return fail('too_many_values', `JSON text with more than ${maxValues} values (at offset ${i})`, { offset: i, maxValues });
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 0) topArray = c === OPEN_ARRAY;
      else if (depth === 1 && topArray && c === OPEN_OBJECT && spans) spans.push(i);
      if (++depth > maxDepth)
        return fail('too_deep', `JSON nested deeper than ${maxDepth} levels (at offset ${i})`, { offset: i, maxDepth });
      if (++containers > maxContainers || commas + containers >= maxValues)
        return fail(
          'too_many_values',
          `JSON text with more than ${containers > maxContainers ? `${maxContainers} objects and arrays` : `${maxValues} values`} (at offset ${i})`,
          { offset: i, maxValues, maxContainers },
        );
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth === 1 && topArray && c === CLOSE_OBJECT && spans) spans.push(i + 1);
    }
    i++;
  }
  return colons;
}

/** Members of a parsed value (its depth is already bounded by countMembers). */
function membersOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += membersOf(v[i]);
    return n;
  }
  // Own members only (`__proto__` is one): for-in would also count enumerable members someone
  // added to Object.prototype, and one such could hide a repeated name from the count.
  const names = Object.keys(v);
  n += names.length;
  for (let i = 0; i < names.length; i++) n += membersOf((v as Record<string, unknown>)[names[i]]);
  return n;
}

/**
 * The second pass, only for JSON text whose member count disagrees with its value's: the first
 * member name that repeats one before it in the same object, with its JSON Pointer. This pass is
 * the judge; the count is only the fast filter in front of it.
 */
function findDuplicate(text: string): Failure | undefined {
  const stack: Frame[] = [];
  let depth = 0;
  let expectName = false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const q = closingQuote(text, i);
      if (q < 0) break;
      if (expectName && depth > 0) {
        expectName = false;
        const raw = text.slice(i + 1, q);
        const name = raw.indexOf('\\') >= 0 ? (JSON.parse(text.slice(i, q + 1)) as string) : raw;
        const f = stack[depth - 1];
        const again = f.names.has(name);
        f.names.add(name);
        f.at = name;
        if (again) {
          const path = pointer(stack, depth);
          return fail(
            'duplicate_member',
            `the member ${JSON.stringify(name.slice(0, 60))} appears twice in one object (at ${path.slice(0, 200)})`,
            { path, offset: i },
          );
        }
      }
      i = q + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const object = c === OPEN_OBJECT;
      stack[depth++] = { object, names: new Set(), at: object ? '' : 0 };
      expectName = object;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      expectName = false;
    } else if (c === COMMA) {
      const f = stack[depth - 1];
      if (f.object) expectName = true;
      else f.at = (f.at as number) + 1;
    }
    i++;
  }
  return undefined;
}

/** JSON text to a value under I-JSON's rules; bad_json, too_deep, too_many_values, body_too_large, duplicate_member. */
export function parseJson(text: string, limits: JsonLimits = {}): Result<unknown> {
  return parseJsonWith(text, limits);
}

/**
 * parseJson, and for a top-level array whose elements are all objects, where each element's text
 * lies: `[start, end)` offsets into `text` (UTF-16 code units), one pair per element, in order;
 * undefined for any other value. JSON.parse of `text.slice(start, end)` gives that element again
 * (strict-json.test.ts checks it), so a caller may keep an element's own text instead of writing
 * it again. The offsets come from the first pass, which runs anyway.
 */
export function parseJsonArrayElements(
  text: string,
  limits: JsonLimits = {},
): Result<{ value: unknown; spans: Array<[number, number]> | undefined }> {
  const flat: number[] = [];
  const r = parseJsonWith(text, limits, flat);
  if (!r.ok) return r;
  const v = r.value;
  let spans: Array<[number, number]> | undefined;
  if (Array.isArray(v) && flat.length === 2 * v.length) {
    spans = new Array<[number, number]>(v.length);
    for (let i = 0; i < v.length && spans; i++) {
      const e: unknown = v[i];
      if (e === null || typeof e !== 'object' || Array.isArray(e)) spans = undefined;
      else spans[i] = [flat[2 * i], flat[2 * i + 1]];
    }
  }
  return ok({ value: v, spans });
}

function parseJsonWith(text: string, limits: JsonLimits, spans?: number[]): Result<unknown> {
  if (typeof text !== 'string') return fail('bad_json', 'JSON text is a string');
  const maxLength = limits.maxLength ?? MAX_JSON_LENGTH;
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  if (text.length > maxLength)
    return fail('body_too_large', `JSON text of ${text.length} characters, more than ${maxLength}`, { maxLength });
  const written = countMembers(text, maxDepth, limits.maxValues ?? MAX_JSON_VALUES, limits.maxContainers ?? MAX_JSON_CONTAINERS, spans);
  if (typeof written !== 'number') return written;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return fail('bad_json', (e as Error).message.slice(0, 200));
  }
  // A repeated name is the only way JSON text can write more members than its value holds.
  if (membersOf(value) !== written) {
    const dup = findDuplicate(text);
    if (dup) return dup;
  }
  return ok(value);
}
