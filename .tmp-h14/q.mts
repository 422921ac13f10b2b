import { generateLog } from '/work/main/testkit/log-generator.ts';
import { createBundleVerifier } from '/work/main/verifier/bundle/verifier.ts';
const n = +process.argv[2];
const g = generateLog({ events: 4, checkpointEvery: 4 });
const lines = [...g.lines()].join('').split('\n'); lines.pop();
const last = lines[lines.length-1];
const all = [...lines, ...Array(n).fill(last)];
const t = Date.now();
const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys });
for (const l of all) { const p = v.line(l); if (p) await p; }
const r = await v.end();
console.log(n, Date.now()-t, 'ms', r.failuresTotal);
