import { generateLog } from '/work/main/testkit/log-generator.ts';
import { writeFileSync } from 'node:fs';
const n = +process.argv[2]; const fixHeader = process.argv[3] === 'fix';
const g = generateLog({ events: 4, checkpointEvery: 4 });
const lines = [...g.lines()].join('').split('\n'); lines.pop();
const last = lines[lines.length-1];
if (fixHeader) { const h = JSON.parse(lines[0]); h.checkpoints += n; lines[0] = JSON.stringify(h); }
writeFileSync('/tmp/h14/b.ndjson', [...lines, ...Array(n).fill(last)].join('\n') + '\n');
writeFileSync('/tmp/h14/policy.json', JSON.stringify(g.policy));
writeFileSync('/tmp/h14/keys.json', JSON.stringify({kind:'KeyCache', keys: g.deviceKeys}));
