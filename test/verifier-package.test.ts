// The verifier as a library user gets it (package.json `exports`, bin/build-verifier.ts,
// docs/auditors.md "The verifier as a library"): in a temp folder outside the clone, with the clone
// linked in as node_modules/cookwala-log (what `npm install file:<clone>` makes), a plain Node
// (no tsx) imports `cookwala-log/verifier` and verifies a small generated bundle against its policy
// and key cache: VALID, and INVALID naming the seq of a tampered payload; an unusable policy is a
// Failure with its code. Then real Chromium loads a page from a static server over that folder
// that imports the same specifier through an import map (the browser build, @noble by default)
// and reaches the same verdicts.
import { spawn } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVerifierLib, ROOT } from '../bin/build-verifier.ts';
import { generateLog } from '../testkit/log-generator.ts';
import { fromLines, payloadLine, toLines } from '../testkit/audit.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { launchChromium, type TestBrowser } from './web-fixture.ts';

let dir: string;
let tb: TestBrowser | undefined;
let server: Server | undefined;

const EVENTS = 40;

beforeAll(async () => {
  await buildVerifierLib();
  dir = await makeTempDir('cookwala-verifier-user-');
  expect(dir.startsWith(tmpdir())).toBe(true);
  expect(dir.startsWith(ROOT)).toBe(false);
  await mkdir(join(dir, 'node_modules'));
  await symlink(ROOT, join(dir, 'node_modules', 'cookwala-log'), 'dir');
  const g = generateLog({ events: EVENTS, devices: 2, checkpointEvery: 10, witnesses: 2, quorum: 2, startMs: Date.now() - 3_600_000 });
  const text = [...g.lines()].join(''); // each line ends in its newline
  await writeFile(join(dir, 'bundle.ndjson'), text);
  await writeFile(join(dir, 'policy.json'), JSON.stringify(g.policy));
  await writeFile(join(dir, 'keys.json'), JSON.stringify({ kind: 'KeyCache', keys: g.deviceKeys }));
  // One payload changed by a character: its hash is no longer the entry's eventHash.
  const parsed = toLines(text);
  const i = payloadLine(parsed, 7);
  parsed[i] = parsed[i].replace(/"data":\{"/, '"data":{"x');
  await writeFile(join(dir, 'tampered.ndjson'), fromLines(parsed));
}, 120_000);

afterAll(async () => {
  await tb?.close();
  if (server) await new Promise((r) => server!.close(r));
  if (dir) await removeDir(dir);
});

const USER_SCRIPT = `
import { readFile } from 'node:fs/promises';
import { verifyBundle } from 'cookwala-log/verifier';
const policy = await readFile('policy.json', 'utf8');
const keys = await readFile('keys.json', 'utf8');
const out = {};
for (const name of ['bundle.ndjson', 'tampered.ndjson']) {
  const r = await verifyBundle(await readFile(name), { policy, keys });
  out[name] = r.ok ? { valid: r.value.valid, entries: r.value.entries, failures: r.value.failures.map((f) => [f.kind, f.seq]) } : r;
}
const bad = await verifyBundle(await readFile('bundle.ndjson'), { policy: '{"kind":"WitnessPolicy"' });
out.badPolicy = bad.ok ? 'ok' : bad.code;
console.log(JSON.stringify(out));
`;

function runNode(file: string, cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    // A plain node: no tsx loader, no polyfill, nothing of the clone's but the package.
    const p = spawn(process.execPath, [file], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

function expectVerdicts(o: Record<string, unknown>): void {
  expect(o['bundle.ndjson']).toEqual({ valid: true, entries: expect.any(Number), failures: [] });
  expect((o['bundle.ndjson'] as { entries: number }).entries).toBeGreaterThanOrEqual(EVENTS);
  const t = o['tampered.ndjson'] as { valid: boolean; failures: Array<[string, number]> };
  expect(t.valid).toBe(false);
  expect(t.failures).toContainEqual(['payload_hash_mismatch', 7]);
  expect(o.badPolicy).toBe('bad_json');
}

describe('cookwala-log/verifier from outside the tree', () => {
  it('Node: import { verifyBundle } from "cookwala-log/verifier" verifies a bundle', async () => {
    await writeFile(join(dir, 'check.mjs'), USER_SCRIPT);
    const r = await runNode('check.mjs', dir);
    expect(r.code, r.err).toBe(0);
    expectVerdicts(JSON.parse(r.out) as Record<string, unknown>);
  });

  it('Chromium: the browser build, through an import map, reaches the same verdicts', async () => {
    const page = `<!doctype html><meta charset="utf-8"><title>verifier user</title>
<script type="importmap">{"imports":{"cookwala-log/verifier":"./node_modules/cookwala-log/dist/verifier.browser.js"}}</script>
<script type="module">
import { verifyBundle } from 'cookwala-log/verifier';
const text = async (u) => (await fetch(u)).text();
const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
const policy = await text('policy.json');
const keys = await text('keys.json');
const out = {};
out['bundle.ndjson'] = await verifyBundle((await fetch('bundle.ndjson')).body, { policy, keys });
out['tampered.ndjson'] = await verifyBundle(await bytes('tampered.ndjson'), { policy, keys });
for (const k of Object.keys(out)) { const r = out[k]; out[k] = r.ok ? { valid: r.value.valid, entries: r.value.entries, failures: r.value.failures.map((f) => [f.kind, f.seq]) } : r; }
const bad = await verifyBundle(await text('bundle.ndjson'), { policy: '{"kind":"WitnessPolicy"' });
out.badPolicy = bad.ok ? 'ok' : bad.code;
window.__result = out;
</script>`;
    await writeFile(join(dir, 'index.html'), page);
    const types: Record<string, string> = {
      '.html': 'text/html',
      '.js': 'text/javascript',
      '.json': 'application/json',
      '.ndjson': 'application/x-ndjson',
    };
    server = createServer((req, res) => {
      const url = decodeURIComponent((req.url ?? '/').split('?')[0]);
      const path = url === '/' ? '/index.html' : url;
      if (path.includes('..')) return void res.writeHead(400).end();
      readFile(join(dir, path)).then(
        (b) => res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(b),
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    tb = await launchChromium();
    const p = await tb.browser.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(`http://127.0.0.1:${port}/`);
    await p.waitForFunction(() => (globalThis as unknown as { __result?: unknown }).__result !== undefined, undefined, {
      timeout: 60_000,
    });
    expect(errors).toEqual([]);
    expectVerdicts(
      (await p.evaluate(() => (globalThis as unknown as { __result: Record<string, unknown> }).__result)) as Record<string, unknown>,
    );
  });
});
