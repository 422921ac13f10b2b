// The YAML-subset reader: the shapes the cloudevents/conformance files use, read as strings, and
// a refusal (not a wrong reading) for anything outside the subset. The v1_minimum events read from
// the cloudevents/conformance YAML (conformance/vectors or $COOKWALA_VECTORS) equal the structured
// events cases.json derived from them, which ties the reader to an independent mapping.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYamlSubset, YamlSubsetError } from './yaml-lite.ts';
import { yamlEventToJson } from './cloudevents.ts';
import { topicDir } from '../vectors-dir.ts';

const CE = topicDir('cloudevents');

describe('parseYamlSubset', () => {
  it('reads documents, nested maps, quoted and plain scalars, and block scalars', () => {
    const docs = parseYamlSubset([
      '# a comment',
      'A: 1.0',
      'B :  "quoted \\u00e9"',
      "C: 'it''s'",
      'D:',
      '  e: //host/path: with colon',
      '  f: plain # trailing comment',
      'G: |',
      '    line one',
      '',
      '    line two',
      'H: |-',
      '  no newline',
      '---',
      'K: |+',
      '  keep',
      '',
      '',
    ].join('\n'));
    expect(docs).toEqual([
      { A: '1.0', B: 'quoted é', C: "it's", D: { e: '//host/path: with colon', f: 'plain' }, G: 'line one\n\nline two\n', H: 'no newline' },
      { K: 'keep\n\n\n' },
    ]);
  });

  it('an empty key value is null; empty documents are dropped', () => {
    expect(parseYamlSubset('---\nA:\nB: x\n---\n# only a comment\n')).toEqual([{ A: null, B: 'x' }]);
  });

  it.each([
    ['a sequence', 'A:\n  - one\n'],
    ['a flow mapping', 'A: {b: 1}\n'],
    ['a folded scalar', 'A: >\n  text\n'],
    ['an anchor', 'A: &x 1\n'],
    ['a tab indentation', 'A:\n\tb: 1\n'],
    ['a duplicate key', 'A: 1\nA: 2\n'],
    ['a line that is not key: value', 'just text\n'],
    ['bad indentation', 'A: 1\n   B: 2\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parseYamlSubset(text)).toThrow(YamlSubsetError);
  });

  it('maps the v1_minimum YAML events exactly as cases.json does', () => {
    const cases = (JSON.parse(readFileSync(path.join(CE, 'cases.json'), 'utf8')) as { cases: Array<{ id: string; event: unknown }> }).cases;
    let compared = 0;
    for (const f of readdirSync(path.join(CE, 'conformance')).filter((n) => n.endsWith('.yaml'))) {
      for (const d of parseYamlSubset(readFileSync(path.join(CE, 'conformance', f), 'utf8'))) {
        const ev = yamlEventToJson(d);
        const c = cases.find((x) => x.id === ev.id);
        if (!c) continue;
        expect(ev).toEqual(c.event);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(6);
  });
});
