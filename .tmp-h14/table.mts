import { readFileSync, writeFileSync } from 'node:fs';
import { reasonTable } from '/work/main/bin/reason-table.ts';
const p = '/work/main/README.md';
const s = readFileSync(p, 'utf8');
const start = s.indexOf('| code | HTTP | meaning |');
let end = start;
const lines = s.slice(start).split('\n');
let n = 0;
for (const l of lines) { if (!l.startsWith('|')) break; n += l.length + 1; }
const table = reasonTable();
writeFileSync(p, s.slice(0, start) + table.replace(/\n$/, '') + '\n' + s.slice(start + n));
