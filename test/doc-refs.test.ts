// Every citation resolves (docs/design.md, docs/core-0.2.md): a `docs/design.md §N` (and the lists
// that follow it, `§4, §7`, `§2 and §9`) anywhere in the tracked source, tests, vectors, README or
// docs names a heading of docs/design.md; a `Core 0.2 §N`, `Core §N` or `docs/core-0.2.md §N`
// names a section of the Core 0.2 text in docs/ (`§6.1`: item 1 of the numbered list of section 6);
// the bare `§N` inside docs/design.md are its own sections. (`§N` with a letter for the number is a
// placeholder in prose about citations, not a citation.) And every relative Markdown link in the
// README and docs/ points at a file that exists, and at a heading of it when it names an anchor.
// What it reads: the files git tracks (and new files beside them), never node_modules.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DESIGN = 'docs/design.md';
const CORE = 'docs/core-0.2.md';

/** The section numbers of a document: `## 7a. Title` gives `7a`; items `1.` under it give `7a.1`. */
export function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let section: string | undefined;
  for (const line of markdown.split('\n')) {
    const h = /^## (\d+[a-z]?)\. /.exec(line);
    if (h) {
      section = h[1];
      out.add(section);
      continue;
    }
    if (line.startsWith('#')) section = undefined;
    const item = /^(\d+)\. /.exec(line);
    if (item && section) out.add(`${section}.${item[1]}`);
  }
  return out;
}

type Target = typeof DESIGN | typeof CORE;

const CITATION =
  /(docs\/design\.md|\bdesign\.md(?:\]\([^)]*\))?|docs\/core-0\.2\.md|\b(?:Cookwala )?Core(?: 0\.2)?)\s*\(?(§\d+[a-z]?(?:\.\d+)*(?:(?:,\s*(?:and\s+)?|\s+and\s+)§\d+[a-z]?(?:\.\d+)*)*)/g;

/** The citations in a text: which document, which section, at which offset. */
export function citationsIn(text: string): Array<{ target: Target; section: string; at: number }> {
  const out: Array<{ target: Target; section: string; at: number }> = [];
  for (const m of text.matchAll(CITATION)) {
    const target: Target = m[1].includes('design.md') ? DESIGN : CORE;
    for (const s of m[2].matchAll(/§(\d+[a-z]?(?:\.\d+)*)/g)) out.push({ target, section: s[1], at: m.index + m[0].indexOf(s[0]) });
  }
  return out;
}

/** The bare `§N` of docs/design.md that cite its own sections (not another specification's). */
export function bareSelfCitations(text: string): Array<{ section: string; at: number }> {
  const named = new Set(citationsIn(text).map((c) => c.at));
  const out: Array<{ section: string; at: number }> = [];
  for (const m of text.matchAll(/§(\d+[a-z]?(?:\.\d+)*)/g)) {
    if (named.has(m.index)) continue;
    const before = text.slice(Math.max(0, m.index - 24), m.index);
    if (/RFC ?\d+\s*$|CloudEvents[\w. ]*$|Core[\w. ]*$|tlog-[\w]+\s*$/.test(before)) continue;
    out.push({ section: m[1], at: m.index });
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (h) out.add(anchorOf(h[1]));
  }
  return out;
}

/** Relative links of a Markdown file that resolve to nothing (or to no heading of their target). */
export function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  const bad: string[] = [];
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  for (const m of text.matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [path, anchor] = link.split('#', 2);
    const target = path === '' ? file : resolve(dirname(file), path);
    const body = read(target);
    if (body === undefined) {
      bad.push(link);
      continue;
    }
    if (anchor && target.endsWith('.md') && !anchorsOf(body).has(anchor)) bad.push(link);
  }
  return bad;
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter((p) => p !== '' && existsSync(join(ROOT, p)));
}

const readIfExists = (p: string): string | undefined => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);

describe('citations and links resolve', () => {
  const files = trackedFiles().filter((p) => /\.(?:ts|js|mjs|md|json|sh)$|^\.ci\//.test(p));
  const design = sectionsOf(readFileSync(join(ROOT, DESIGN), 'utf8'));
  const core = sectionsOf(readFileSync(join(ROOT, CORE), 'utf8'));
  const known = (t: Target, s: string) => (t === DESIGN ? design : core).has(s);

  it('the checker reads sections, lists, items and links, and finds what is missing', () => {
    expect([...sectionsOf('## 1. A\n## 7a. B\n1. x\n2. y\n### sub\n3. z')]).toEqual(['1', '7a', '7a.1', '7a.2']);
    const cites = citationsIn('see docs/design.md §4, §7 and §12b; Core 0.2 §6.1, Core §2 and §9; Cookwala Core 0.2 (§6, §7)');
    expect(cites.map((c) => `${c.target === DESIGN ? 'd' : 'c'}${c.section}`)).toEqual([
      'd4',
      'd7',
      'd12b',
      'c6.1',
      'c2',
      'c9',
      'c6',
      'c7',
    ]);
    expect(citationsIn('[design.md](design.md) §8 and §14.').map((c) => c.section)).toEqual(['8', '14']);
    expect(bareSelfCitations('(§4, §7); RFC 7493 §2.3, CloudEvents 1.0 §3.1.1, Core 0.2 §5').map((c) => c.section)).toEqual(['4', '7']);
    expect(known(DESIGN, '16')).toBe(false);
    expect(known(DESIGN, '7a')).toBe(true);
    expect(known(CORE, '6.6')).toBe(true);
    expect(known(CORE, '5.1')).toBe(false);
    const read = (p: string) => (p === '/d/a.md' ? '# A\n## Quick start: auditor\n' : undefined);
    expect(
      brokenLinks('/d/b.md', '[a](a.md) [b](a.md#quick-start-auditor) [c](a.md#nope) [d](gone.md) [e](https://x.org/y) `[f](no.md)`', read),
    ).toEqual(['a.md#nope', 'gone.md']);
    expect(anchorOf('The witness as a C2SP witness (tlog-witness over HTTP)')).toBe('the-witness-as-a-c2sp-witness-tlog-witness-over-http');
  });

  it('every docs/design.md §N and Core 0.2 §N in code, tests, vectors, README and docs names a section that exists', () => {
    const bad: string[] = [];
    let count = 0;
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const c of citationsIn(text)) {
        count++;
        if (!known(c.target, c.section)) bad.push(`${f}: ${c.target} §${c.section}`);
      }
    }
    expect(count).toBeGreaterThan(300);
    expect(bad).toEqual([]);
  });

  it('the bare § of docs/design.md are its own sections', () => {
    const text = readFileSync(join(ROOT, DESIGN), 'utf8');
    const bad = bareSelfCitations(text)
      .filter((c) => !design.has(c.section))
      .map((c) => `§${c.section}`);
    expect(bad).toEqual([]);
  });

  it('every relative link in the README and docs/ resolves to a file (and heading) that exists', () => {
    const md = files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));
    expect(md.length).toBeGreaterThan(5);
    const bad = md.flatMap((f) =>
      brokenLinks(join(ROOT, f), readFileSync(join(ROOT, f), 'utf8'), readIfExists).map((l) => `${relative(ROOT, join(ROOT, f))}: ${l}`),
    );
    expect(bad).toEqual([]);
  });
});
