// bench/ab.ts: `npm run bench:ab -- --section S --a REV|DIR [--b REV|DIR] [--rounds N] [--quick]
// [--key PATH [--lower-is-better]] [--also PATH,PATH…] [--a-env K=V]… [--b-env K=V]… [--threshold 0.03]
// [--cores 0,1] [--out FILE]`.
// Judges a change by measuring two builds AT THE SAME TIME, each pinned to a core of its own with
// taskset (Linux), cores swapped every round, so both see the same noise from the host: the same
// build on both sides reads far closer to 1 than two whole-machine runs one after the other
// (docs/benchmarks.md, `npm run bench:ab`).
// Each side runs the section exactly as `npm run bench -- --only S --out FILE` does in its own
// checkout (a revision gets a temporary git worktree with this checkout's node_modules linked and
// its own web pages built, which the browser section opens),
// on one core, so the figure is the one-core form of the section (its workers sized by
// os.availableParallelism(), which honours the affinity). The compared figure is the section's
// headline ratio (ab-summary.ts HEADLINE) or --key; --also names more figures printed and recorded
// beside it each round (such as the CPU per request), with no verdict. Prints each round and the verdict, writes
// an untracked file beside this one (AB_RECORD below) or --out. Leaves out: the two-core
// figures (npm run bench), so it cannot judge worker counts.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADLINE, roundOf, summariseAb, valueAt, type AbRound } from './ab-summary.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the last comparison's record goes without --out (listed in .gitignore). */
const AB_RECORD = join(ROOT, 'bench', 'ab.last.json');

interface Side {
  label: 'a' | 'b';
  spec: string;
  dir: string;
  env: Record<string, string>;
  cleanup?: () => void;
}

function args(argv: string[]) {
  const one = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const many = (name: string) => argv.flatMap((a, i) => (a === name && argv[i + 1] !== undefined ? [argv[i + 1]] : []));
  const envOf = (list: string[]) =>
    Object.fromEntries(
      list.map((kv) => {
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new Error(`an environment setting is K=V, not ${JSON.stringify(kv)}`);
        return [kv.slice(0, eq), kv.slice(eq + 1)];
      }),
    );
  return {
    section: one('--section'),
    a: one('--a'),
    b: one('--b') ?? '.',
    rounds: Number(one('--rounds') ?? 4),
    quick: argv.includes('--quick'),
    key: one('--key'),
    also: (one('--also') ?? '').split(',').filter((k) => k !== ''),
    lowerIsBetter: argv.includes('--lower-is-better'),
    threshold: Number(one('--threshold') ?? 0.03),
    cores: (one('--cores') ?? '0,1').split(',').map(Number),
    out: one('--out') ?? AB_RECORD,
    envA: envOf(many('--a-env')),
    envB: envOf(many('--b-env')),
  };
}

/** A checkout for a side: a directory as given, or a temporary worktree of a revision. */
function checkout(label: 'a' | 'b', spec: string, env: Record<string, string>): Side {
  const asDir = resolve(spec);
  if (existsSync(join(asDir, 'bench', 'run.ts'))) return { label, spec, dir: asDir, env };
  const rev = spawnSync('git', ['rev-parse', '--verify', `${spec}^{commit}`], { cwd: ROOT, encoding: 'utf8' });
  if (rev.status !== 0) throw new Error(`--${label} ${spec}: neither a checkout directory nor a revision of this repository`);
  const dir = mkdtempSync(join(tmpdir(), `cookwala-ab-${label}-`));
  const add = spawnSync('git', ['worktree', 'add', '--detach', '--force', dir, rev.stdout.trim()], { cwd: ROOT, encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`git worktree add ${spec}: ${add.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // The revision's own web pages (the browser section opens web/dist of its checkout).
  if (existsSync(join(dir, 'web', 'build.ts'))) {
    const web = spawnSync(process.execPath, ['--import', 'tsx', 'web/build.ts'], { cwd: dir, encoding: 'utf8' });
    if (web.status !== 0) throw new Error(`npm run build:web in ${spec}: ${web.stderr}`);
  }
  return {
    label,
    spec: `${spec} (${rev.stdout.trim().slice(0, 12)})`,
    dir,
    env,
    cleanup: () => {
      spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One side's section run on one core; resolves to its results (or an error record). */
function runPinned(side: Side, core: number, section: string, quick: boolean, out: string): Promise<unknown> {
  const log = `${out}.log`;
  return new Promise((done) => {
    const child = spawn(
      'taskset',
      [
        '-c',
        String(core),
        process.execPath,
        '--import',
        'tsx',
        '--import',
        './bin/polyfill.ts',
        'bench/run.ts',
        '--only',
        section,
        '--out',
        out,
        ...(quick ? ['--quick'] : []),
      ],
      { cwd: side.dir, env: { ...process.env, ...side.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('exit', (code) => {
      writeFileSync(log, text);
      try {
        done(JSON.parse(readFileSync(out, 'utf8')));
      } catch {
        done({ [section]: { error: `exit ${code}; see ${log}` } });
      }
    });
  });
}

export async function main(argv: string[]): Promise<number> {
  const o = args(argv);
  if (!o.section || !o.a) {
    process.stderr.write('usage: npm run bench:ab -- --section S --a REV|DIR [--b REV|DIR] [--rounds N] [--quick] [--key PATH]\n');
    return 2;
  }
  const headline = HEADLINE[o.section];
  const key = o.key ?? headline?.key;
  if (!key) throw new Error(`section ${o.section} has no headline figure: name one with --key`);
  // A named key is a figure where higher is better unless the caller says it is a cost.
  const higherIsBetter = o.key ? !o.lowerIsBetter : headline!.higherIsBetter;
  if (process.platform !== 'linux' || spawnSync('taskset', ['-V']).status !== 0)
    throw new Error('bench:ab pins with taskset (Linux util-linux)');
  if (o.cores.length !== 2 || o.cores.some((c) => !Number.isInteger(c) || c < 0) || availableParallelism() < 2)
    throw new Error('bench:ab needs two cores to pin the sides to (--cores C1,C2)');
  if (!Number.isInteger(o.rounds) || o.rounds < 2 || o.rounds > 20) throw new Error('--rounds is 2..20');
  if (!(o.threshold >= 0 && o.threshold < 1)) throw new Error('--threshold is a fraction in [0, 1)');
  const sides: Side[] = [];
  try {
    // one at a time, so a worktree made for a is removed even when b's checkout fails
    sides.push(checkout('a', o.a, o.envA));
    sides.push(checkout('b', o.b, o.envB));
    const [a, b] = sides;
    const tmp = mkdtempSync(join(tmpdir(), 'cookwala-ab-results-'));
    const rounds: AbRound[] = [];
    const also: Array<Record<string, { a?: number; b?: number }>> = [];
    process.stdout.write(`bench:ab ${o.section} (${key}${o.quick ? ', quick' : ''}): a = ${a.spec}, b = ${b.spec}\n`);
    try {
      for (let i = 0; i < o.rounds; i++) {
        // odd rounds a on the first core, even rounds swapped, so neither build keeps a better core
        const [coreA, coreB] = i % 2 === 0 ? o.cores : [o.cores[1], o.cores[0]];
        const [ra, rb] = await Promise.all([
          runPinned(a, coreA, o.section, o.quick, join(tmp, `a-${i}.json`)),
          runPinned(b, coreB, o.section, o.quick, join(tmp, `b-${i}.json`)),
        ]);
        const r = roundOf(ra, rb, key, coreA, coreB);
        if (!r)
          throw new Error(
            `round ${i + 1}: a figure is missing: a ${JSON.stringify(ra).slice(0, 300)} b ${JSON.stringify(rb).slice(0, 300)}`,
          );
        rounds.push(r);
        process.stdout.write(`round ${i + 1}: a ${r.a} (core ${coreA})  b ${r.b} (core ${coreB})  b/a ${r.ratio}\n`);
        const more = Object.fromEntries(o.also.map((k) => [k, { a: valueAt(ra, k), b: valueAt(rb, k) }]));
        also.push(more);
        for (const [k, v] of Object.entries(more)) process.stdout.write(`  ${k}: a ${v.a ?? '-'}  b ${v.b ?? '-'}\n`);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    const s = summariseAb(rounds, higherIsBetter, o.threshold);
    process.stdout.write(`b/a median ${s.medianRatio}, spread ${s.ratioSpread.join('-')}: ${s.verdict}\n`);
    const record = {
      section: o.section,
      key,
      quick: o.quick,
      a: a.spec,
      b: b.spec,
      envA: o.envA,
      envB: o.envB,
      ...s,
      ...(o.also.length > 0 ? { also } : {}),
      measuredAt: new Date().toISOString(),
    };
    writeFileSync(o.out, `${JSON.stringify(record, null, 2)}\n`);
    return 0;
  } finally {
    for (const s of sides) s.cleanup?.();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
