// ML-DSA-44 in the browser verifier page (docs/design.md §7a, §12b; docs/post-quantum.md): a real
// sequencer (LevelDB in a temp dir, fastify on 127.0.0.1) that signs its checkpoints with Ed25519 and
// its own ML-DSA-44 key, whose policy names ONE witness known only by its ML-DSA-44 key: a real
// `cookwala witness` child made with `witness init --mldsa44`, reached over C2SP HTTP. So every
// cosignature in the evidence is ML-DSA-44 (subtree/v1). In Debian's Chromium (playwright-core,
// the flags of test/web-fixture.ts) the page opened from disk says VALID for the exported bundle and
// PROVED for a c2sp.org/tlog-proof@v1 file, with the policy naming the log's ML-DSA-44 key too; with
// one byte of a witness's ML-DSA-44 signature flipped it says INVALID / NOT PROVED and names the
// checkpoint's seq, as `cookwala verify` / `verify-event` do. Its footer and its report name every
// signature backend it used: WebCrypto for Ed25519, @noble/post-quantum for ML-DSA-44. Screenshots go
// to the temp folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { ensureWebBuilt, DIST } from '../web/build.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import { logPath } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala } from '../testkit/witness-procs.ts';
import { flipB64, startPqLog, type PqLog } from '../testkit/pq-log.ts';
import { launchChromium, type TestBrowser } from './web-fixture.ts';

const LOG = 'pq-web.example/missions/m-45';
const tmp = tempDirs('cookwala-pq-web-');
let pq: PqLog | undefined;
let dir: string;
let base: string;
let policyPath: string;
let tb: TestBrowser;

beforeAll(async () => {
  await ensureWebBuilt();
  pq = await startPqLog({ log: LOG, dir: await tmp.make(), witnessDir: await tmp.make(), device: 45, logMldsa: true });
  ({ dir, base, policyPath } = pq);
  for (const n of [5, 20, 7]) {
    const cp = await pq.round(n);
    // Only ML-DSA-44 from the witness; the log's own two signatures last.
    expect(cp?.signature.map((s) => s.alg)).toEqual(['EdDSA', 'subtree/v1', 'note-ed25519', 'note-mldsa44']);
  }
  tb = await launchChromium();
}, 300_000);

afterAll(async () => {
  await tb?.close();
  await pq?.close();
  process.stdout.write(`pq-web-verifier screenshots in ${dir}\n`);
});

async function verifyInPage(evidence: string, shot: string): Promise<{ verdict: string; text: string; exitCode: number; footer: string }> {
  const page: Page = await tb.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(join(DIST, 'verifier.html')).href);
  await page.setInputFiles('#evidence-file', evidence);
  await page.setInputFiles('#policy-file', policyPath);
  await page.waitForFunction("!document.getElementById('verify').disabled");
  await page.click('#verify');
  await page.waitForSelector('#result[data-exit-code]', { state: 'attached', timeout: 120_000 });
  const verdict = (await page.textContent('#verdict')) ?? '';
  const text = (await page.textContent('#result')) ?? '';
  const exitCode = Number(await page.getAttribute('#result', 'data-exit-code'));
  const footer = (await page.textContent('#crypto')) ?? '';
  await page.screenshot({ path: join(dir, shot), fullPage: true });
  expect(errors).toEqual([]);
  await page.close();
  return { verdict, text, exitCode, footer };
}

describe('the verifier page on ML-DSA-44-only cosignatures', () => {
  it('a bundle: VALID; one byte of a witness ML-DSA-44 signature flipped: INVALID at that seq', { timeout: 300_000 }, async () => {
    const bundle = await (await fetch(`${base}${logPath(LOG, '/bundle')}`)).text();
    const file = join(dir, 'audit.ndjson');
    await writeFile(file, bundle);
    const cli = await runCookwala(['verify', file, '--policy', policyPath]);
    expect(cli.code, cli.out + cli.err).toBe(0);
    const good = await verifyInPage(file, 'pq-bundle-valid.png');
    expect(good.verdict).toBe('VALID');
    expect(good.exitCode).toBe(0);
    // The page names every backend it checks with: ML-DSA-44 is @noble/post-quantum's, beside WebCrypto.
    expect(good.footer).toBe(
      'Signatures: WebCrypto Ed25519 and ECDSA P-256 (native), ML-DSA-44 with @noble/post-quantum, after the same key and signature rules as the CLI.',
    );
    expect(good.text).toContain('(signatures: WebCrypto; ML-DSA-44: @noble/post-quantum)');
    const lines = bundle.split('\n');
    const i = lines.findIndex((l) => l.includes('"kind":"Checkpoint"') && (JSON.parse(l) as Checkpoint).seq === 25);
    const cp = JSON.parse(lines[i]) as Checkpoint;
    cp.signature = cp.signature.map((s) => (s.alg === 'subtree/v1' ? { ...s, sig: flipB64(s.sig, true) } : s));
    lines[i] = JSON.stringify(cp);
    const badFile = join(dir, 'audit-flipped.ndjson');
    await writeFile(badFile, lines.join('\n'));
    const cliBad = await runCookwala(['verify', badFile, '--policy', policyPath]);
    expect(cliBad.code).toBe(1);
    const bad = await verifyInPage(badFile, 'pq-bundle-invalid.png');
    expect(bad.verdict).toBe('INVALID');
    expect(bad.exitCode).toBe(1);
    expect(bad.text).toMatch(/\b25\b/);
  });

  it('a tlog-proof: PROVED; one byte of the witness ML-DSA-44 line flipped: NOT PROVED at that seq', { timeout: 300_000 }, async () => {
    const out = join(dir, 'e9.tlog-proof');
    const made = await runCookwala(['proof', '--url', base, '--log', LOG, '--seq', '9', '--out', out, '--format', 'tlog-proof']);
    expect(made.code, made.err).toBe(0);
    const text = await readFile(out, 'utf8');
    const good = await verifyInPage(out, 'pq-proof-proved.png');
    expect(good.verdict).toBe('PROVED');
    expect(good.exitCode).toBe(0);
    expect(good.text).toMatch(/pq-w/);
    const edited = text
      .split('\n')
      .map((l) => (l.startsWith('\u2014 pq-w ') ? `\u2014 pq-w ${flipB64(l.slice('\u2014 pq-w '.length), false)}` : l))
      .join('\n');
    expect(edited).not.toBe(text);
    const badFile = join(dir, 'e9-flipped.tlog-proof');
    await writeFile(badFile, edited);
    const cli = await runCookwala(['verify-event', badFile, '--policy', policyPath]);
    expect(cli.code).toBe(1);
    const bad = await verifyInPage(badFile, 'pq-proof-not-proved.png');
    expect(bad.verdict).toBe('NOT PROVED');
    expect(bad.exitCode).toBe(1);
    expect(bad.text).toMatch(/seq 32\b/);
    expect(bad.text).toMatch(/bad_signature/);
  });
});
