// The README is the newcomer's entry point: it carries the two commands near the top and one quick
// start per role under fixed headings. docs/reference.md mirrors the reason-code table of
// verifier/errors.ts exactly (regenerate with `npx tsx bin/reason-table.ts`). docs/walkthrough.md
// runs top to bottom as written: every ```sh block, in order, in one bash in an empty temp folder,
// with only the substitutions the page itself names (`npx cookwala` -> `node <clone>/bin/cookwala.js`,
// the example ports -> free ones). Real processes on 127.0.0.1; the page's own last block stops them,
// and the test kills the process group of the shell whatever happens. What it proves: a sequencer,
// two witnesses and the simulator set up from commands alone (no JSON edited or read by hand), a
// checkpoint cosigned by both, an exported bundle that verifies with both witnesses named, an event
// proof, a fork list.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { reasonTable } from '../bin/reason-table.ts';
import { freePort } from '../testkit/net.ts';
import { tempDirs } from '../testkit/tmp.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const reference = readFileSync(new URL('../docs/reference.md', import.meta.url), 'utf8');
const walkthrough = readFileSync(new URL('../docs/walkthrough.md', import.meta.url), 'utf8');
const tmp = tempDirs('cookwala-readme-');
afterAll(() => tmp.cleanup());

/** The ```sh blocks of a page, in order, each with the `## ` heading it sits under. */
export function shellBlocks(text: string): Array<{ heading: string; code: string }> {
  const out: Array<{ heading: string; code: string }> = [];
  let heading = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) heading = lines[i].slice(3);
    if (lines[i] === '```sh') {
      const code: string[] = [];
      for (i++; i < lines.length && lines[i] !== '```'; i++) code.push(lines[i]);
      out.push({ heading, code: code.join('\n') });
    }
  }
  return out;
}

/** The example ports the walkthrough names, in the sentence that says they may be changed. */
function examplePorts(text: string): number[] {
  const m = /The\s+ports in them \(([\d, ]+)\) are examples/.exec(text.replace(/\n/g, ' '));
  return m ? m[1].split(',').map((x) => Number(x.trim())) : [];
}

function runShell(script: string, cwd: string, timeoutMs: number): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    // Its own process group, so everything the blocks start can be stopped at once.
    const p = spawn('bash', ['-c', script], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, COOKWALA_OPERATOR_TOKEN: '' },
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    let code: number | null = null;
    // The shell is gone (done, failed under set -e, or killed): whatever it started goes too, so
    // its children, which hold our pipes, let 'close' come.
    p.on('exit', (c) => {
      code = c;
      clearTimeout(timer);
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* the group is empty: good */
      }
    });
    p.on('close', () => resolve({ code, out, timedOut }));
  });
}

describe('README', () => {
  it('has the set-up-and-run and set-up-and-test commands near the top', () => {
    const head = readme.split('\n').slice(0, 20).join('\n');
    expect(head).toContain('npm install && npm start');
    expect(head).toContain('npm install && npm test');
  });

  it('has one quick start per role, under these headings, in this order', () => {
    const headings = readme.split('\n').filter((l) => l.startsWith('## Quick start: '));
    expect(headings).toEqual([
      '## Quick start: operator',
      '## Quick start: witness operator',
      '## Quick start: auditor',
      '## Quick start: device maker',
    ]);
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('docs/reference.md mirrors the reason-code table', () => {
    expect(reference).toContain(reasonTable());
  });

  it('npx cookwala inside the clone runs this checkout (no registry)', async () => {
    const r = await runShell('npx --offline cookwala --help', ROOT, 60_000);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/usage: cookwala <command>/);
    expect(r.out).toMatch(/policy +witness policy: add-witness, show/);
  });

  it('runs docs/walkthrough.md top to bottom as written: two witnesses cosign, the bundle verifies', async () => {
    const blocks = shellBlocks(walkthrough);
    expect(blocks.map((b) => b.heading)).toEqual(
      expect.arrayContaining([
        '1. The operator starts a sequencer',
        '2. Two witness operators start witnesses',
        '3. An auditor verifies offline',
      ]),
    );
    const all = blocks.map((b) => b.code).join('\n');
    // Nothing read or edited by hand: no JSON file opened by a script, no editor, no jq.
    expect(all).not.toMatch(/require\(|JSON\.parse|\bjq\b|\bsed -i\b|\$EDITOR/);
    const ports = examplePorts(walkthrough);
    expect(ports).toEqual([8700, 8801, 8802, 4001, 4002, 8710]);
    const fresh = new Map<number, number>();
    for (const p of ports) {
      let q = await freePort();
      while ([...fresh.values()].includes(q)) q = await freePort();
      fresh.set(p, q);
    }
    const substitute = (code: string) => {
      let c = code.replace(/npx cookwala/g, `node ${ROOT}bin/cookwala.js`);
      for (const [from, to] of fresh) c = c.replace(new RegExp(`(?<![0-9])${from}(?![0-9])`, 'g'), String(to));
      return c;
    };
    // The page's blocks, plus a safety net that is not the page's: on any exit the shell stops
    // its background jobs, and a watchdog stops the whole group if this test process dies.
    const guard = [
      `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT`,
      `( while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; kill -9 0 ) &`,
    ];
    const script = [
      'set -e -o pipefail',
      ...guard,
      ...blocks.map((b, i) => `echo "=== block ${i + 1}: ${b.heading}"\n${substitute(b.code)}`),
    ].join('\n');
    const dir = await tmp.make();
    const r = await runShell(script, dir, 240_000);
    expect(r.timedOut, r.out.slice(-4000)).toBe(false);
    expect(r.code, r.out.slice(-4000)).toBe(0);
    // the operator's set-up said the log was unwitnessed until witnesses came
    expect(r.out).toMatch(/UNWITNESSED until you add some/);
    expect(r.out).toMatch(/^ {2}UNWITNESSED: the policy asks for no witness \(quorum 0\); only the sequencer signed it$/m);
    // both witnesses added from their witness-info.json, quorum 2, and a checkpoint both cosigned
    expect(r.out).toMatch(/added witness wit-\S+ \(cookwala:witness\/w1\).*quorum 1 of 1/);
    expect(r.out).toMatch(/added witness wit-\S+ \(cookwala:witness\/w2\).*quorum 2 of 2/);
    expect(r.out).toMatch(/^ {2}2 cosignatures \(quorum 2 of 2 witnesses\): met$/m);
    expect(r.out).toMatch(/^ {2}cosigned by {3}w1 \(wit-\S+\)$/m);
    expect(r.out).toMatch(/^ {2}cosigned by {3}w2 \(wit-\S+\)$/m);
    // the exported bundle verifies, its latest checkpoint cosigned by two witnesses
    expect(r.out).toMatch(/^VALID: kitchen\.example\.org\/missions\/m-0042 \(hash_only\)$/m);
    expect(r.out).toMatch(/latest seq \d+, root sha256:[0-9a-f]{64}, witnesses wit-\S+, wit-\S+$/m);
    expect(r.out).toMatch(/^PROVED: kitchen\.example\.org\/missions\/m-0042 seq 17/m);
    expect(r.out).toMatch(/w1 holds no fork proof/);
    expect(r.out).toMatch(/simulation: 5 missions on 5 devices/);
    // the witness's card outlives it: still there after the page's `kill`, with its /p2p/ address
    const card = JSON.parse(readFileSync(`${dir}/w1/witness-info.json`, 'utf8')) as { peerId: string; multiaddrs: string[] };
    expect(card.multiaddrs[0]).toBe(`/ip4/127.0.0.1/tcp/${fresh.get(4001)}/p2p/${card.peerId}`);
  }, 300_000);
});
