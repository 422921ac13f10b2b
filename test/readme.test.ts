// The README is the newcomer's entry point: it carries the two commands near the top and mirrors
// the reason-code table of verifier/errors.ts exactly (regenerate with `npx tsx bin/reason-table.ts`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reasonTable } from '../bin/reason-table.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has the set-up-and-run and set-up-and-test commands near the top', () => {
    const head = readme.split('\n').slice(0, 20).join('\n');
    expect(head).toContain('npm install && npm start');
    expect(head).toContain('npm install && npm test');
  });
  it('mirrors the reason-code table', () => {
    expect(readme).toContain(reasonTable());
  });
});
