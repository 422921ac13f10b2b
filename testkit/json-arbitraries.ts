// testkit/json-arbitraries.ts: fast-check arbitraries of JSON documents for the I-JSON and JCS property
// tests (docs/design.md §3: no member may be dropped, renamed or reordered on the way to a hash). Test
// support only: no product module imports it. A document is a tree whose objects list their
// members in written order, so tests can render it as text in several spellings (escaped names,
// whitespace), inject a duplicate member at a known JSON Pointer, and build the value JSON.parse
// makes. Every top-level document ALWAYS carries the names that break naive copies: `__proto__`,
// `constructor`, `toString`, `hasOwnProperty`, integer-like and numeric-looking names, non-BMP and
// empty names; nested objects draw their names from the same set and from random strings.

import fc from 'fast-check';

export const SPECIAL_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'toJSON',
  '0',
  '1',
  '10',
  '01',
  '-1',
  '1e3',
  '4294967295',
  '',
  '\u{1F600}',
  '\u{10FFFF}',
  'a\u{1D11E}b',
  '\u20ac',
  'é',
  '\u007f',
  '\u2028',
];

export type JsonTree = null | boolean | number | string | JsonTree[] | { members: Array<[string, JsonTree]> };

function isMembers(t: JsonTree): t is { members: Array<[string, JsonTree]> } {
  return t !== null && typeof t === 'object' && !Array.isArray(t);
}

/** A string the fast path of verifier/encoding/jcs.ts writes unescaped: no control character. */
const plainString = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength }).filter((x) => !/[\u0000-\u001f]/.test(x));

/** Trees whose member names come from `names` and random strings (`plain`: as the JCS fast path takes them). */
export function jsonTreeWith(names: readonly string[], plain = false): fc.Arbitrary<JsonTree> {
  const str = (n: number) => (plain ? plainString(n).filter((x) => !/^[0-9]/.test(x)) : fc.string({ unit: 'grapheme', maxLength: n }));
  const scalar: fc.Arbitrary<JsonTree> = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    str(8),
    fc.constantFrom(...names),
  );
  const name = fc.oneof(fc.constantFrom(...names), str(6));
  return fc.letrec<{ value: JsonTree; array: JsonTree[]; object: { members: Array<[string, JsonTree]> } }>((tie) => ({
    value: fc.oneof({ maxDepth: 3, depthIdentifier: 'json' }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.uniqueArray(fc.tuple(name, tie('value')), { selector: (m) => m[0], maxLength: 5 }).map((members) => ({ members })),
  })).value;
}

/** Trees whose names are SPECIAL_KEYS and random strings. */
export const jsonTree: fc.Arbitrary<JsonTree> = jsonTreeWith(SPECIAL_KEYS);

/**
 * The special names that do not start with a digit. verifier/encoding/jcs.ts hands any object with an
 * integer-like name to the `canonicalize` package; documents with only these names take its fast
 * path, so both paths meet every special name that each can meet.
 */
export const FAST_PATH_KEYS: readonly string[] = SPECIAL_KEYS.filter((k) => !/^[0-9]/.test(k));

/** A top-level object holding every one of `names` (in a random order) and some random names. */
export function jsonDocumentWith(names: readonly string[], plain = false): fc.Arbitrary<{ members: Array<[string, JsonTree]> }> {
  const tree = plain ? jsonTreeWith(names, true) : jsonTree;
  const extraName = plain ? plainString(6).filter((x) => !/^[0-9]/.test(x)) : fc.string({ unit: 'grapheme', maxLength: 6 });
  return fc
    .tuple(fc.tuple(...names.map(() => tree)), fc.uniqueArray(fc.tuple(extraName, tree), { selector: (m) => m[0], maxLength: 4 }))
    .chain(([values, extra]) => {
      const members: Array<[string, JsonTree]> = names.map((k, i) => [k, values[i]]);
      for (const m of extra) if (!names.includes(m[0])) members.push(m);
      return fc.shuffledSubarray(members, { minLength: members.length, maxLength: members.length }).map((ms) => ({ members: ms }));
    });
}

/** A top-level object holding every SPECIAL_KEYS name (in a random order) and some random ones. */
export const jsonDocument = jsonDocumentWith(SPECIAL_KEYS);

/** `\uXXXX` for every UTF-16 code unit of s: JSON.parse reads it back as s. */
export function escapeAll(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += '\\u' + s.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}

export interface RenderStyle {
  /** Written between tokens: '' or whitespace. */
  space?: string;
  /** Spell member names with \u escapes throughout. */
  escapeNames?: boolean;
}

/** The tree as JSON text; object members in their written order. */
export function renderJson(t: JsonTree, style: RenderStyle = {}): string {
  const sp = style.space ?? '';
  if (Array.isArray(t)) return '[' + sp + t.map((x) => renderJson(x, style)).join(sp + ',' + sp) + sp + ']';
  if (isMembers(t)) {
    const name = (k: string) => (style.escapeNames ? '"' + escapeAll(k) + '"' : JSON.stringify(k));
    return '{' + sp + t.members.map(([k, v]) => name(k) + sp + ':' + sp + renderJson(v, style)).join(sp + ',' + sp) + sp + '}';
  }
  return JSON.stringify(t);
}

/** The objects of a tree in document order, with the JSON Pointer of each. */
export function objectsOf(t: JsonTree, at = ''): Array<{ node: { members: Array<[string, JsonTree]> }; path: string }> {
  const tok = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  if (Array.isArray(t)) return t.flatMap((x, i) => objectsOf(x, `${at}/${i}`));
  if (!isMembers(t)) return [];
  return [{ node: t, path: at }, ...t.members.flatMap(([k, v]) => objectsOf(v, `${at}/${tok(k)}`))];
}

/**
 * A copy of the tree in which the `which`-th non-empty object (mod their number) gets one of its
 * names once more, as its last member, spelled `\u`-escaped when `escaped`: the text then holds
 * exactly one duplicate, and its JSON Pointer is returned. Undefined when no object has a member.
 */
export function injectDuplicate(
  t: JsonTree,
  which: number,
  value: JsonTree,
  escaped: boolean,
): { text: string; path: string; name: string } | undefined {
  const copy = structuredClone(t) as JsonTree;
  const objs = objectsOf(copy).filter((o) => o.node.members.length > 0);
  if (objs.length === 0) return undefined;
  const o = objs[which % objs.length];
  const name = o.node.members[which % o.node.members.length][0];
  const marker = `\u0000dup${which}\u0000`;
  o.node.members.push([marker, value]);
  const spelled = escaped ? '"' + escapeAll(name) + '"' : JSON.stringify(name);
  const text = renderJson(copy).replace(JSON.stringify(marker), spelled);
  return { text, path: `${o.path}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, name };
}

/** The value JSON.parse makes of the tree, built without parsing (own members, `__proto__` too). */
export function valueOf(t: JsonTree): unknown {
  if (Array.isArray(t)) return t.map(valueOf);
  if (isMembers(t)) return Object.fromEntries(t.members.map(([k, v]) => [k, valueOf(v)]));
  return t;
}

/**
 * Deep equality of JSON values by own members only (never the prototype chain), so an object with
 * a `__proto__` member equals only another with the same member.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b) || (a === 0 && b === 0);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.getOwnPropertyNames(a);
  const kb = Object.getOwnPropertyNames(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    const da = Object.getOwnPropertyDescriptor(a, k)!;
    const db = Object.getOwnPropertyDescriptor(b, k)!;
    if (!sameJson(da.value, db.value)) return false;
  }
  return true;
}
