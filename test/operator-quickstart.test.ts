// The README's "Quick start: operator", run as written (docs/design.md §4, §7, §7a): its ```sh lines,
// in order, as child processes (`npx cookwala` is `node bin/cookwala.js`, `curl -s URL` an HTTP GET,
// `… > f.log &` a process left running), in an empty folder, with free ports in place of the
// `${NAME:-default}` ports. A sequencer, one libp2p and one C2SP-HTTP witness added by commands at
// quorum 2, devices posting, then: the checkpoint names both witnesses, the C2SP checkpoint has
// both cosignature/v1 lines, the tlog-proof is PROVED with the policy and with the policy after
// to-tlog/from-tlog, the tlog-policy round trip is byte-identical, and export + verify are VALID
// with either policy. The README and the test cannot drift: the commands are read from it.
import { afterAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, spawnCookwala, stopChild, tempDirs, waitFor, type Child } from '../testkit/index.ts';
import { PROJECT_ROOT } from '../testkit/witness-procs.ts';

const tmp = tempDirs('cookwala-quickstart-');
const running: Child[] = [];
afterAll(async () => {
  for (const c of running.reverse()) await stopChild(c);
  await tmp.cleanup();
});

/** The ```sh lines under `## Quick start: operator` (up to the next `## ` heading). */
async function quickStartLines(): Promise<string[]> {
  const readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Quick start: operator\n');
  if (start < 0) throw new Error('README.md has no "## Quick start: operator" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const lines: string[] = [];
  for (const m of section.matchAll(/```sh\n([\s\S]*?)```/g))
    lines.push(...m[1].split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')));
  return lines;
}

/** Split a line into words (no quoting is used in the section; the test says so if that changes). */
function words(line: string): string[] {
  if (/["'`|;]/.test(line)) throw new Error(`the quick start line needs a shell: ${line}`);
  return line.trim().split(/\s+/);
}

describe('README: Quick start: operator', () => {
  it('runs as written: quorum 2 with a libp2p and an HTTP witness, both named, proved and verified', { timeout: 600_000 }, async () => {
    const dir = await tmp.make();
    const ports: Record<string, string> = {};
    for (const n of ['SEQ_PORT', 'W1_HTTP', 'W1_P2P', 'W2_HTTP', 'W2_P2P']) ports[n] = String(await freePort());
    const lines = await quickStartLines();
    expect(lines.length).toBeGreaterThan(10);
    const outputs: Array<{ line: string; out: string }> = [];
    const expand = (l: string) =>
      l.replace(/\$\{([A-Z0-9_]+):-[^}]*\}/g, (_m, name: string) => {
        if (!(name in ports)) throw new Error(`the quick start uses \${${name}}, which the test does not set`);
        return ports[name];
      });
    for (const raw of lines) {
      const line = expand(raw);
      const bg = /\s&\s*$/.test(line);
      const cmd = line.replace(/\s*>\s*\S+\s*&\s*$/, '').replace(/\s*&\s*$/, '');
      const w = words(cmd);
      if (w[0] === 'curl') {
        const url = w[w.length - 1];
        const res = await fetch(url);
        const out = await res.text();
        expect(res.status, `${line}\n${out}`).toBe(200);
        outputs.push({ line, out });
        continue;
      }
      expect(w.slice(0, 2), line).toEqual(['npx', 'cookwala']);
      const child = spawnCookwala(w.slice(2), { COOKWALA_LOG_LEVEL: 'info' }, dir);
      if (bg) {
        running.push(child);
        // A service is ready when it says it listens (one JSON line with event "listening").
        await waitFor(() => child.logs.events('listening')[0] ?? (child.proc.exitCode !== null ? false : undefined), {
          timeoutMs: 120_000,
          what: `${line} to listen`,
          detail: () => child.err() + child.out().slice(-2000),
        });
        continue;
      }
      const { code } = await child.exited;
      expect(code, `${line}\nstdout:\n${child.out()}\nstderr:\n${child.err()}`).toBe(0);
      outputs.push({ line, out: child.out() });
    }
    const outOf = (re: RegExp) => outputs.filter((o) => re.test(o.line)).map((o) => o.out);

    // Both witnesses by name, once each, with their transports.
    const policy = JSON.parse(await readFile(join(dir, 'seq', 'policy.json'), 'utf8'));
    expect(policy.quorum).toBe(2);
    expect(policy.witnesses).toHaveLength(2);
    for (const w of policy.witnesses) expect(w.vkey).toMatch(/\+[0-9a-f]{8}\+/);
    const [show] = outOf(/policy show/);
    expect(show).toMatch(/libp2p +\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\//);
    expect(show).toMatch(/http +http:\/\/127\.0\.0\.1:\d+/);
    // The checkpoint names both cosigners; never "met" with one.
    const [cp] = outOf(/cookwala checkpoint/);
    expect(cp).toMatch(/2 cosignatures \(quorum 2 of 2 witnesses\): met/);
    expect(cp.match(/cosigned by {3}\S/g)).toHaveLength(2);
    expect(cp).toMatch(/cosigned by {3}w1 \(wit-/);
    expect(cp).toMatch(/cosigned by {3}w2 \(wit-/);
    // The C2SP view: the log's line and a cosignature/v1 line from each witness, libp2p one included.
    const [note] = outOf(/^curl .*\/tlog\/.*\/checkpoint/);
    const sigLines = note.split('\n').filter((l) => l.startsWith('\u2014 '));
    expect(sigLines.map((l) => l.split(' ')[1]).sort()).toEqual(['kitchen.example.org/missions/m-0042', 'w1', 'w2']);
    // PROVED with either policy; to-tlog -> from-tlog -> to-tlog is lossless.
    for (const out of outOf(/verify-event/)) expect(out).toMatch(/^PROVED \(c2sp\.org\/tlog-proof@v1\)/);
    expect(await readFile(join(dir, 'policy.again.tlog'), 'utf8')).toBe(await readFile(join(dir, 'policy.tlog'), 'utf8'));
    for (const out of outOf(/cookwala verify log/)) expect(out).toMatch(/VALID/);
    // GET …/witnesses: one row per witness with its transport and live state.
    const seqUrl = `http://127.0.0.1:${ports.SEQ_PORT}`;
    const wit = (await (await fetch(`${seqUrl}/v1/logs/${encodeURIComponent(policy.log)}/witnesses`)).json()) as {
      witnesses: Array<{ name: string; state: string; transports: Array<{ transport: string }> }>;
    };
    expect(wit.witnesses.map((r) => [r.name.split(' ')[0], r.transports.map((t) => t.transport), r.state])).toEqual([
      ['w1', ['libp2p'], 'cosigned'],
      ['w2', ['http'], 'cosigned'],
    ]);
    const metrics = await (await fetch(`${seqUrl}/metrics`)).text();
    expect(metrics).toMatch(/cookwala_witness_up\{[^}]*transport="libp2p"[^}]*\} 1/);
    expect(metrics).toMatch(/cookwala_witness_up\{[^}]*transport="http"[^}]*\} 1/);
  });
});
