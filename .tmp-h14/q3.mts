import { generateLog } from '/work/main/testkit/log-generator.ts';
import { createBundleVerifier } from '/work/main/verifier/bundle/verifier.ts';
const g = generateLog({ events: 6, checkpointEvery: 3, mode: 'hash_only' });
const lines = [...g.lines()].join('').split('\n'); lines.pop();
const at = lines.findIndex((l) => l.includes('"kind":"Event"') && l.includes('"seq":4,'));
const cut = [...lines.slice(0, at + 1), lines[at]];
const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys });
for (const l of cut) { const p = v.line(l); if (p) await p; }
const r = await v.end();
console.log(r.failures.map(f=>[f.kind,f.seq,f.detail]));
