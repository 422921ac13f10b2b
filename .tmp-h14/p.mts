import { generateLog } from '/work/main/testkit/log-generator.ts';
import { writeFileSync } from 'node:fs';
const g = generateLog({ events: 30, checkpointEvery: 10 });
writeFileSync('/tmp/h14/p.ndjson', [...g.lines()].join(''));
writeFileSync('/tmp/h14/ppolicy.json', JSON.stringify(g.policy));
writeFileSync('/tmp/h14/pkeys.json', JSON.stringify({kind:'KeyCache', keys: g.deviceKeys}));
