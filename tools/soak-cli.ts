// tools/soak-cli.ts: `npm run soak -- [--kills N] [--minutes M] [--seed S]`: runs the
// soak of tools/soak.ts (SIGKILLs of the sequencer, a witness and an executor under mixed load,
// every invariant checked after each restart) until N kills (default 100) or M minutes (default
// 30), printing progress every 10 kills and one summary line with the totals; exit 0 when no
// check failed, 1 otherwise. With `--postgres [--faults N]` it runs the PostgreSQL mode instead
// (tools/soak-pg.ts: two sequencers on a throwaway cluster, leader kills, stops and database
// restarts; default 30 faults). Not part of `npm test` (test/soak.test.ts runs a short one there).
import { parseArgs } from 'node:util';
import { runSoak, summaryLine } from './soak.ts';
import { pgSummaryLine, runPgSoak } from './soak-pg.ts';

const { values } = parseArgs({
  options: {
    kills: { type: 'string' },
    minutes: { type: 'string' },
    seed: { type: 'string' },
    postgres: { type: 'boolean' },
    faults: { type: 'string' },
  },
});
const kills = Number(values.kills ?? 100);
const minutes = Number(values.minutes ?? 30);
if (!Number.isSafeInteger(kills) || kills < 1 || !(minutes > 0)) {
  process.stderr.write('usage: npm run soak -- [--kills N] [--minutes M] [--seed S] | --postgres [--faults N] [--minutes M] [--seed S]\n');
  process.exit(2);
}
// Ctrl-C or a SIGTERM ends the run cleanly: no more kills, the final checks, every child process
// stopped and the temp dirs removed (a second signal exits at once).
const stopping = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    if (stopping.signal.aborted) process.exit(130);
    process.stderr.write(`soak: ${sig}: stopping after the current kill\n`);
    stopping.abort();
  });
if (values.postgres) {
  const faults = Number(values.faults ?? 30);
  const p = await runPgSoak({
    faults: Number.isSafeInteger(faults) && faults > 0 ? faults : 30,
    durationMs: minutes * 60_000,
    seed: values.seed === undefined ? undefined : Number(values.seed),
    signal: stopping.signal,
    say: (l) => process.stderr.write(l + '\n'),
  });
  for (const f of p.failures.slice(0, 20)) process.stdout.write(`FAILURE ${f}\n`);
  process.stdout.write(pgSummaryLine(p) + '\n');
  process.exit(p.failures.length === 0 ? 0 : 1);
}
const s = await runSoak({
  signal: stopping.signal,
  kills,
  durationMs: minutes * 60_000,
  seed: values.seed === undefined ? undefined : Number(values.seed),
  say: (l) => process.stderr.write(l + '\n'),
});
for (const f of s.failures.slice(0, 20)) process.stdout.write(`FAILURE ${f}\n`);
process.stdout.write(summaryLine(s) + '\n');
process.exitCode = s.failures.length === 0 ? 0 : 1;
