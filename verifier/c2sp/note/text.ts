// verifier/c2sp/note/text.ts: the character rules of C2SP signed-note (text and key names) shared by
// notes, vkeys and checkpoint bodies: valid UTF-8 (in a JS string: no lone surrogates), no ASCII
// control character other than newline, key names non-empty without Unicode spaces or '+', and the
// size limits this implementation applies. It leaves out the line structure (signed.ts).
// Invariant: "Unicode space" means the Unicode White_Space property (what Go's unicode.IsSpace,
// used by the reference implementation, tests), spelled out here rather than JS `\s`, which differs.

/** Accept at most this many signature lines (x/mod's limit; C2SP requires at least 16). */
export const MAX_SIGNATURES = 100;
/** Largest note accepted, in bytes: room for 100 post-quantum signatures (~5 kB each) and text. */
export const MAX_NOTE_BYTES = 1_048_576;

const CONTROL_RE = /[\u0000-\u0009\u000B-\u001F]/;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const WHITE_SPACE_RE = /[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/;

/** Why `s` cannot appear in a note, or undefined when it can. */
export function textProblem(s: string): string | undefined {
  if (LONE_SURROGATE_RE.test(s)) return 'not valid UTF-8 (a lone surrogate)';
  const m = CONTROL_RE.exec(s);
  if (m) return `control character U+${m[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()} at offset ${m.index}`;
  return undefined;
}

export function isValidKeyName(name: string): boolean {
  return (
    typeof name === 'string' && name.length > 0 && !name.includes('+') && !WHITE_SPACE_RE.test(name) && textProblem(name) === undefined
  );
}
