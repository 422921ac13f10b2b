// The YAML reader of the conformance runner (yaml-read.ts): the shapes the cloudevents/conformance
// files use, read with every scalar a string (failsafe schema), and a refusal (not a wrong reading)
// of duplicate keys, aliases and malformed YAML. The v1_minimum events read from the
// cloudevents/conformance YAML equal the structured events cases.json derived from them, which
// ties the reader to an independent mapping.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readYamlDocuments, YamlReadError, type YamlMap } from './yaml-read.ts';
import { yamlEventToJson } from './cloudevents.ts';
import { topicDir } from '../vectors-dir.ts';

const CE = topicDir('cloudevents');

describe('readYamlDocuments', () => {
  it('reads documents, nested maps, quoted and plain scalars, and block scalars, all as strings', () => {
    const docs = readYamlDocuments(
      [
        '# a comment',
        'A: 1.0',
        'B :  "quoted \\u00e9"',
        "C: 'it''s'",
        'D:',
        "  e: '//host/path: with colon'",
        '  f: plain # trailing comment',
        'G: |',
        '    line one',
        '',
        '    line two',
        'H: |-',
        '  no newline',
        'I: true',
        'J: 0x10',
        '---',
        'K: |+',
        '  keep',
        '',
        '',
      ].join('\n'),
    );
    expect(docs).toEqual([
      {
        A: '1.0',
        B: 'quoted é',
        C: "it's",
        D: { e: '//host/path: with colon', f: 'plain' },
        G: 'line one\n\nline two\n',
        H: 'no newline',
        I: 'true',
        J: '0x10',
      },
      { K: 'keep\n\n' },
    ]);
  });

  it('an empty plain value is null, an empty quoted one the empty string; empty documents are dropped', () => {
    expect(readYamlDocuments('---\nA:\nB: x\nC: ""\n---\n# only a comment\n')).toEqual([{ A: null, B: 'x', C: '' }]);
  });

  it('a key __proto__ is an ordinary own member', () => {
    const [d] = readYamlDocuments('__proto__:\n  polluted: yes\n') as YamlMap[];
    expect(Object.getPrototypeOf(d)).toBe(Object.prototype);
    expect(Object.keys(d)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a duplicate key', 'A: 1\nA: 2\n'],
    ['a duplicate nested key', 'A:\n  b: 1\n  b: 2\n'],
    ['an alias', 'A: &x 1\nB: *x\n'],
    ['a tab indentation', 'A:\n\tb: 1\n'],
    ['an unterminated quote', 'A: "open\n'],
    ['bad indentation', 'A: 1\n   B: 2\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => readYamlDocuments(text)).toThrow(YamlReadError);
  });

  it('maps the v1_minimum YAML events exactly as cases.json does', () => {
    const cases = (JSON.parse(readFileSync(path.join(CE, 'cases.json'), 'utf8')) as { cases: Array<{ id: string; event: unknown }> }).cases;
    let compared = 0;
    for (const f of readdirSync(path.join(CE, 'conformance')).filter((n) => n.endsWith('.yaml'))) {
      for (const d of readYamlDocuments(readFileSync(path.join(CE, 'conformance', f), 'utf8'))) {
        const ev = yamlEventToJson(d as YamlMap);
        const c = cases.find((x) => x.id === ev.id);
        if (!c) continue;
        expect(ev).toEqual(c.event);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(6);
  });
});
