// conformance/topics/yaml-lite.ts: a reader for the small YAML subset that the cloudevents/conformance
// event files use, so the runner needs no YAML dependency: `---` document separators, full-line
// `#` comments, block mappings by indentation (`key: value`, `key :` allowed), plain, 'single' and
// "double" quoted scalars, and literal block scalars (`|`, `|-`, `|+`). Every scalar stays a STRING
// (no YAML 1.1/1.2 typing: `1.0` is "1.0"), which is how those files mean their attribute values.
// Anything outside the subset (sequences, flow collections, folded scalars, anchors, tags) throws
// YamlSubsetError rather than being read wrongly.

export class YamlSubsetError extends Error {
  override readonly name = 'YamlSubsetError';
}

export type YamlValue = string | null | YamlMap;
export interface YamlMap {
  [k: string]: YamlValue;
}

interface Line {
  no: number;
  indent: number;
  text: string;
  raw: string;
}

const KEY_RE = /^([^\s:#'"\-?&*!|>%@`{}[\],][^:]*?)\s*:(?:[ \t]+(.*))?$/;

function indentOf(s: string): number {
  const m = /^ */.exec(s);
  return m ? m[0].length : 0;
}

function scalar(v: string, no: number): string {
  const s = v.trim();
  if (s.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(s);
      if (typeof parsed === 'string') return parsed;
    } catch {
      /* fall through */
    }
    throw new YamlSubsetError(`line ${no}: a double-quoted scalar this reader cannot read: ${s}`);
  }
  if (s.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(s)) throw new YamlSubsetError(`line ${no}: unterminated single-quoted scalar`);
    return s.slice(1, -1).replace(/''/g, "'");
  }
  if (/^[[{&*!>%@`]/.test(s) || s.startsWith('- ') || s === '-') throw new YamlSubsetError(`line ${no}: not in the subset (flow, sequence, anchor, tag or folded): ${s}`);
  return s.replace(/\s+#.*$/, '');
}

function blockScalar(lines: Line[], start: number, parentIndent: number, style: string): { value: string; next: number } {
  const chomp = style.slice(1);
  if (chomp !== '' && chomp !== '-' && chomp !== '+') throw new YamlSubsetError(`line ${lines[start - 1]?.no}: block indicator ${style} is not in the subset`);
  let i = start;
  let blockIndent = -1;
  const body: string[] = [];
  for (; i < lines.length; i++) {
    const l = lines[i];
    if (l.raw.trim() === '') {
      body.push('');
      continue;
    }
    if (l.indent <= parentIndent) break;
    if (blockIndent < 0) blockIndent = l.indent;
    if (l.indent < blockIndent) throw new YamlSubsetError(`line ${l.no}: block scalar line less indented than its first line`);
    body.push(l.raw.slice(blockIndent));
  }
  // Trailing blank lines belong to the chomping, not to the following content.
  let end = body.length;
  while (end > 0 && body[end - 1] === '') end--;
  const trailing = body.length - end;
  const content = body.slice(0, end).join('\n');
  const value = content === '' ? '' : chomp === '-' ? content : chomp === '+' ? content + '\n'.repeat(trailing + 1) : content + '\n';
  return { value, next: i };
}

function mapping(lines: Line[], start: number, indent: number): { value: YamlMap; next: number } {
  const out: YamlMap = {};
  let i = start;
  while (i < lines.length) {
    const l = lines[i];
    if (l.raw.trim() === '' || /^\s*#/.test(l.raw)) {
      i++;
      continue;
    }
    if (l.indent < indent) break;
    if (l.indent > indent) throw new YamlSubsetError(`line ${l.no}: unexpected indentation`);
    const m = KEY_RE.exec(l.text);
    if (!m) throw new YamlSubsetError(`line ${l.no}: not a "key: value" line in the subset: ${l.text}`);
    const key = m[1].trim();
    if (Object.prototype.hasOwnProperty.call(out, key)) throw new YamlSubsetError(`line ${l.no}: duplicate key ${key}`);
    const rest = (m[2] ?? '').trim();
    i++;
    if (/^[|]/.test(rest)) {
      const b = blockScalar(lines, i, indent, rest);
      out[key] = b.value;
      i = b.next;
    } else if (rest === '') {
      let j = i;
      while (j < lines.length && (lines[j].raw.trim() === '' || /^\s*#/.test(lines[j].raw))) j++;
      if (j < lines.length && lines[j].indent > indent) {
        const sub = mapping(lines, j, lines[j].indent);
        out[key] = sub.value;
        i = sub.next;
      } else out[key] = null;
    } else out[key] = scalar(rest, l.no);
  }
  return { value: out, next: i };
}

/** Every non-empty document of a YAML stream in the subset, as nested string maps. */
export function parseYamlSubset(text: string): YamlMap[] {
  if (text.includes('\t')) {
    for (const [n, raw] of text.split('\n').entries()) if (/^\s*\t/.test(raw)) throw new YamlSubsetError(`line ${n + 1}: tab indentation`);
  }
  const docs: Line[][] = [[]];
  for (const [n, raw0] of text.split('\n').entries()) {
    const raw = raw0.replace(/\r$/, '');
    if (/^---\s*$/.test(raw)) {
      docs.push([]);
      continue;
    }
    if (/^\.\.\.\s*$/.test(raw) || /^%/.test(raw)) throw new YamlSubsetError(`line ${n + 1}: directives and document ends are not in the subset`);
    docs[docs.length - 1].push({ no: n + 1, indent: indentOf(raw), text: raw.trim(), raw });
  }
  const out: YamlMap[] = [];
  for (const lines of docs) {
    const first = lines.findIndex((l) => l.raw.trim() !== '' && !/^\s*#/.test(l.raw));
    if (first < 0) continue;
    const m = mapping(lines, first, lines[first].indent);
    if (m.next < lines.length) throw new YamlSubsetError(`line ${lines[m.next].no}: content after the top-level mapping`);
    out.push(m.value);
  }
  return out;
}
