import { generateLog } from '/work/main/testkit/log-generator.ts';
import { createBundleVerifier } from '/work/main/verifier/bundle/verifier.ts';
import { defaultBackend } from '/work/main/verifier/crypto/default.ts';
const n = +process.argv[2];
const g = generateLog({ events: 4, checkpointEvery: 4 , witnesses: 1, quorum: 1});
const lines = [...g.lines()].join('').split('\n'); lines.pop();
const last = lines[lines.length-1];
const all = [...lines, ...Array(n).fill(last)];
const base = defaultBackend(); const seen = new Map();
const memo = { ...base, ed25519Verify(pk, msg, sig) { const k = Buffer.concat([pk, msg, sig]).toString('base64'); let v = seen.get(k); if (v === undefined) seen.set(k, (v = base.ed25519Verify(pk, msg, sig))); return v; } };
const t = Date.now();
const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys, backend: memo });
for (const l of all) { const p = v.line(l); if (p) await p; }
const r = await v.end();
console.log(n, Date.now()-t, 'ms', r.failuresTotal, r.failureCounts);
