// bench/verify-main-thread.ts: the offline verifier's main-thread CPU per event (docs/design.md §13),
// with the signatures left out: `node --import tsx bench/verify-main-thread.ts [--events N]
// [--rounds R] [--base DIR] [--json]` generates one bundle (testkit/log-generator.ts, the options of
// bench/verify.ts: checkpoints, erasures, 16 devices) in memory, then feeds its lines to
// createBundleVerifier with a verifyBatch that answers true for every check, and reads
// process.cpuUsage around each round (µs of CPU per event). With --base DIR, the verifier of
// another checkout (DIR/verifier/index.ts: `git archive main | tar -x -C DIR` with its
// node_modules linked) is loaded beside this one and the two are run alternately in the same
// process (base, ours, ours, base, …), so the host's load falls on both alike; each pair's ratio
// ours / base and the median are printed, and both reports must agree, or it exits 1. Run it on one
// core (`taskset -c 1`). --profile FILE writes a V8 CPU profile of the measured rounds of ours only
// (generation and warm-up left out), for `bench/cpu-profile.ts FILE --per EVENTS×ROUNDS`.
// Left out: the file stream, the worker pool and the (source, id) spill of `cookwala verify` (the
// bench's verify section measures those); what it measures is the reader's own work. Invariant: the
// bundle is valid, so a report with a failure means the harness measured the wrong thing (exit 1).

import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { generateLog } from '../testkit/log-generator.ts';
import { benchLogShape } from './verify.ts';
import { createBundleVerifier as oursFactory } from '../verifier/index.ts';
import type { BundleReport, BundleVerifierOptions, VerifyBatch } from '../verifier/index.ts';

type Factory = typeof oursFactory;

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '6' },
    base: { type: 'string' },
    json: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const events = Number(values.events);
const rounds = Number(values.rounds);

const g = generateLog(benchLogShape(events));
const lines: string[] = [];
const checkpointSeqs: number[] = [];
// The generator yields an entry and its payload line as one string: split every yield on newlines.
for (const chunk of g.lines())
  for (const text of chunk.split('\n')) {
    if (text === '') continue;
    lines.push(text);
    if (text.includes('"kind":"Checkpoint"')) {
      const v = JSON.parse(text) as { kind?: string; seq?: number };
      if (v.kind === 'Checkpoint' && typeof v.seq === 'number') checkpointSeqs.push(v.seq);
    }
  }

const profiler = values.profile ? new Session() : undefined;
const profiles: object[] = [];
const allTrue: VerifyBatch = async (items) => items.map(() => true);

async function round(create: Factory): Promise<{ usPerEvent: number; report: BundleReport }> {
  const opts: BundleVerifierOptions = {
    policy: g.policy,
    keys: g.deviceKeys,
    checkpointSeqs,
    verifyBatch: allTrue,
    idSalt: new Uint8Array(16),
  };
  if (profiler && create === oursFactory) await profiler.post('Profiler.start');
  const c0 = process.cpuUsage();
  const v = create(opts);
  for (const text of lines) {
    const p = v.line(text);
    if (p) await p;
  }
  const report = await v.end();
  const c = process.cpuUsage(c0);
  if (profiler && create === oursFactory) profiles.push(((await profiler.post('Profiler.stop')) as { profile: object }).profile);
  return { usPerEvent: (c.user + c.system) / report.entries, report };
}

/** The report without what may differ between two runs of one verdict (nothing today). */
const verdictOf = (r: BundleReport) => JSON.stringify(r);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const base: Factory | undefined = values.base
  ? ((await import(pathToFileURL(resolve(values.base, 'verifier/index.ts')).href)) as { createBundleVerifier: Factory })
      .createBundleVerifier
  : undefined;

if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
}
// One unmeasured round each, so both are compiled before the first measured one.
const warm = await round(oursFactory);
if (!warm.report.valid) {
  process.stderr.write(`the generated bundle did not verify: ${JSON.stringify(warm.report.failures.slice(0, 3))}\n`);
  process.exit(1);
}
if (base) await round(base);

profiles.length = 0;
const ours: number[] = [];
const theirs: number[] = [];
for (let i = 0; i < rounds; i++) {
  if (base) {
    // Base first in even pairs, ours first in odd ones: neither always pays for the other's garbage.
    const first = i % 2 === 0 ? base : oursFactory;
    const x = await round(first);
    const y = await round(first === base ? oursFactory : base);
    const [b, o] = first === base ? [x, y] : [y, x];
    theirs.push(b.usPerEvent);
    ours.push(o.usPerEvent);
    if (verdictOf(b.report) !== verdictOf(o.report)) {
      process.stderr.write('the two verifiers disagree on the report\n');
      process.exit(1);
    }
  } else ours.push((await round(oursFactory)).usPerEvent);
}

if (values.profile) await writeFile(values.profile, JSON.stringify(mergeProfiles(profiles)));

const r1 = (x: number) => Math.round(x * 10) / 10;
const ratios = theirs.map((t, i) => Math.round((ours[i] / t) * 1000) / 1000);
const out = {
  event: 'verify_main_thread',
  events: warm.report.entries,
  lines: lines.length,
  oursUsPerEvent: ours.map(r1),
  oursMedian: r1(median(ours)),
  ...(base ? { baseUsPerEvent: theirs.map(r1), baseMedian: r1(median(theirs)), ratios, medianRatio: median(ratios) } : {}),
};
if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
else {
  process.stdout.write(`${out.events} entries, ${out.lines} lines, main-thread CPU µs/event (signatures stubbed)\n`);
  if (base) process.stdout.write(`base: ${out.baseUsPerEvent?.join(' ')} (median ${out.baseMedian})\n`);
  process.stdout.write(`ours: ${out.oursUsPerEvent.join(' ')} (median ${out.oursMedian})\n`);
  if (base) process.stdout.write(`ours/base a pair: ${ratios.join(' ')} (median ${out.medianRatio})\n`);
}

/** One profile of the measured rounds: their samples laid end to end (nodes renumbered per round). */
function mergeProfiles(ps: object[]): object {
  type P = {
    nodes: Array<{ id: number; children?: number[] }>;
    samples: number[];
    timeDeltas: number[];
    startTime: number;
    endTime: number;
  };
  const out: P = { nodes: [], samples: [], timeDeltas: [], startTime: 0, endTime: 0 };
  let offset = 0;
  let t = 0;
  for (const raw of ps) {
    const p = raw as P;
    let most = 0;
    for (const n of p.nodes) {
      out.nodes.push({ ...n, id: n.id + offset, children: n.children?.map((c) => c + offset) });
      most = Math.max(most, n.id);
    }
    for (const s of p.samples) out.samples.push(s + offset);
    out.timeDeltas.push(...p.timeDeltas);
    t += p.endTime - p.startTime;
    offset += most;
  }
  out.endTime = t;
  return out;
}
