// The report as the CLI prints it and as the verifier page shows it (docs/design.md §8, §12b), on a real
// log of 107 entries (web-fixture.ts) with one entry line deleted (seq 50): both lead with the one
// cause, `chain_broken` at seq 50 ("entry 50 missing: line …"), with what follows from it (the
// stranded payload line, the shifted subject order, every disagreeing witnessed checkpoint)
// grouped under it — collapsed in the page — and no rewrite labelled with an intact seq; nothing is
// called "not yet witnessed" since witnesses cosigned every seq. The page shows every line the CLI
// prints (cosigners with the C2SP log note, time bounds, erased payloads) and the same policy
// fingerprint. The CLI runs as a child process; the page is opened from disk in Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureWebBuilt, DIST } from '../web/build.ts';
import { cookwala, entryLine, fromLines, toLines } from '../testkit/audit.ts';
import { buildWebLog, launchChromium, type TestBrowser, type WebLog } from './web-fixture.ts';
import { makeTempDir } from '../testkit/tmp.ts';

let log: WebLog;
let tb: TestBrowser;
let work: string;
let bundle: string;
let keysPath: string;
let deletedAt: number;

beforeAll(async () => {
  await ensureWebBuilt();
  work = await makeTempDir('cookwala-web-report-');
  log = await buildWebLog();
  for (let i = 0; i < 5; i++) await log.round(10); // 100 entries, checkpoints every 20
  await log.erase(5); // 101
  await log.round(3); // 102..107
  const lines = toLines(await log.bundle());
  deletedAt = entryLine(lines, 50);
  bundle = join(work, 'deleted-line.ndjson');
  await writeFile(bundle, fromLines(lines.filter((_, i) => i !== deletedAt)));
  keysPath = join(work, 'keys.json');
  await writeFile(keysPath, await log.keyCache());
  tb = await launchChromium();
}, 90_000);

afterAll(async () => {
  await tb?.close();
  await log?.close();
  process.stdout.write(`web-verifier-report screenshots in ${work}\n`);
});

describe('one entry line deleted', () => {
  it('the CLI text and the page lead with chain_broken at seq 50, the rest grouped under it', async () => {
    const cli = await cookwala(['verify', bundle, '--policy', log.policyPath, '--keys', keysPath]);
    expect(cli.code).toBe(1);
    const text = cli.stdout;
    const failureLines = text.split('\n').filter((l) => /^\s+(✗|↳) /.test(l));
    // The line that held entry 50 (1-based) now holds its stranded payload.
    expect(failureLines[0]).toBe(
      `  ✗ chain_broken (seq 50, line ${deletedAt + 2}): entry 50 missing: line ${deletedAt + 1}; entry seq 51 where seq 50 should follow seq 49`,
    );
    expect(failureLines.filter((l) => l.includes('✗'))).toHaveLength(1);
    expect(text).toContain('      7 following from it: misplaced_line 1, out_of_order 1, rewrite_detected 5');
    expect(failureLines[1]).toMatch(/^ {6}↳ misplaced_line \(seq 50, line \d+\)/);
    expect(failureLines.slice(3).every((l) => /↳ rewrite_detected \(checkpoint \d+, line \d+\)/.test(l))).toBe(true);
    expect(text).not.toMatch(/rewrite_detected \(seq/);
    expect(text).not.toContain('not yet witnessed');
    expect(text).toMatch(/^ {2}cosigned by {4}.* C2SP log note verified$/m);
    expect(text).toMatch(/^ {2}time bounds {4}signedAt within /m);
    const fingerprint = /^ {2}policy {9}[0-9a-f ]+ \((sha256:[0-9a-f]{64})\)/m.exec(text)?.[1];
    expect(fingerprint).toBeDefined();

    const page = await tb.browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(join(DIST, 'verifier.html')).href);
    await page.setInputFiles('#evidence-file', bundle);
    await page.setInputFiles('#policy-file', log.policyPath);
    await page.setInputFiles('#keys-file', keysPath);
    await page.waitForFunction("!document.getElementById('verify').disabled");
    await page.click('#verify');
    await page.waitForSelector('#result[data-exit-code] #report-json', { state: 'attached', timeout: 60_000 });
    expect(await page.textContent('#verdict')).toBe('INVALID');
    const causes = await page.$$eval('#causes > li.cause', (lis) =>
      lis.map((li) => ({
        kind: li.querySelector('.cause-head')?.getAttribute('data-kind'),
        seq: li.querySelector('.cause-head')?.getAttribute('data-seq'),
        title: li.querySelector('.cause-head .title')?.textContent,
        open: li.querySelector('details')?.hasAttribute('open'),
        under: li.querySelectorAll('li.consequence').length,
        summary: li.querySelector('details summary')?.textContent,
      })),
    );
    expect(causes).toEqual([
      {
        kind: 'chain_broken',
        seq: '50',
        title: `entry 50 missing: line ${deletedAt + 1}; entry seq 51 where seq 50 should follow seq 49`,
        open: false,
        under: 7,
        summary: '7 following from it: misplaced_line 1, out_of_order 1, rewrite_detected 5',
      },
    ]);
    // Every fact line the CLI printed is on the page, as text.
    const facts = (await page.textContent('#facts')) ?? '';
    const cliFacts = text
      .split('\n')
      .slice(1)
      .filter((l) => /^ {2}[a-zA-Z]/.test(l))
      .map((l) => l.slice(17));
    expect(cliFacts.length).toBeGreaterThan(8);
    for (const f of cliFacts.filter((x) => !x.startsWith('…'))) expect(facts.replace(/\s+/g, ' ')).toContain(f.replace(/\s+/g, ' '));
    expect(await page.textContent('#policy-fingerprint')).toContain(fingerprint!);
    await page.click('#causes details summary');
    await page.click('#policy-fingerprint summary');
    await page.screenshot({ path: join(work, 'verifier-deleted-line.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
    expect(JSON.parse(await readFile(log.policyPath, 'utf8')).quorum).toBe(2);
  });
});
