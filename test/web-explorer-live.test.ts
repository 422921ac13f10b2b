// The log explorer as a user bookmarks and watches it (docs/design.md §12b), in Debian's Chromium driven
// by playwright-core against a real sequencer (web-fixture.ts): the entries API's search
// parameters over HTTP (event id, event hash, type, subject and source prefixes, their bounds, the
// cookwala-erased header); in the page the search box (a seq opens the entry, an event hash and
// an event id find it), the filters (type, subject prefix), an entry opened from its own URL
// (/logs/{log}/entries/{seq}) with its inclusion proof checked, its erasure badge linking the
// erasure entry and back, copy buttons; live state: a new checkpoint shown within one poll
// interval, head against witnessed, a proof pending until a checkpoint covers the entry and
// retried (through failed fetches) until it verifies, a witness that stops answering shown with
// its error and then cosigning again. Screenshots go to a temp dir (docs/web.md uses them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureWebBuilt } from '../web/build.ts';
import type { Entry } from '../verifier/documents/entry.ts';
import { buildWebLog, launchChromium, WEB_LOG, type TestBrowser, type WebLog } from './web-fixture.ts';
import { logPath } from '../testkit/sequencer.ts';
import { witnessDisplayName } from '../verifier/signing/witness-identity.ts';
import { makeTempDir } from '../testkit/tmp.ts';

let log: WebLog;
let tb: TestBrowser;
let shots: string;
let all: Entry[];
const POLL_MS = 1000;
const W2_ERROR = 'witness_unavailable: connection refused';

beforeAll(async () => {
  await ensureWebBuilt();
  shots = await makeTempDir('cookwala-web-live-');
  log = await buildWebLog();
  for (let r = 0; r < 3; r++) await log.round(8); // 48 entries, checkpoints at 16, 32, 48
  await log.erase(5); // 49, checkpoint 49
  all = await entries('from=1');
  tb = await launchChromium();
}, 60_000);

afterAll(async () => {
  await tb?.close();
  await log?.close();
  process.stdout.write(`web-explorer-live screenshots in ${shots}\n`);
});

async function api(q: string) {
  return log.seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, `/entries?${q}`) });
}
async function entries(q: string): Promise<Entry[]> {
  const r = await api(q);
  expect(r.statusCode, `${q}: ${r.body}`).toBe(200);
  return r.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);
}

const entryUrl = (seq: number) => `${log.url}/logs/${encodeURIComponent(WEB_LOG)}/entries/${seq}?poll=${POLL_MS}`;

async function open(url: string, viewport = { width: 1280, height: 1000 }): Promise<Page> {
  const page = await tb.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as unknown as { errors: string[] }).errors = errors;
  await page.goto(url);
  await page.waitForSelector('#cp-seq');
  await page.waitForSelector('#entries[aria-busy=false]');
  return page;
}
const errorsOf = (p: Page) => (p as unknown as { errors: string[] }).errors;

describe('the entries API searches', () => {
  it('by event id, event hash, type, subject and source prefix; bounded; names erased payloads', async () => {
    const e12 = all[11];
    expect((await entries(`id=${encodeURIComponent(e12.ce.id)}`)).map((e) => e.seq)).toEqual([12]);
    expect((await entries(`order=desc&eventHash=${encodeURIComponent(all[29].eventHash)}`)).map((e) => e.seq)).toEqual([30]);
    expect((await entries('order=desc&type=cookwala.log.erased')).map((e) => e.seq)).toEqual([49]);
    const ovens = await entries('order=desc&subjectPrefix=exec-oven&limit=1000');
    expect(ovens.length).toBe(all.filter((e) => e.ce.subject?.startsWith('exec-oven')).length);
    expect(new Set(ovens.map((e) => e.ce.subject))).toEqual(new Set(['exec-oven-1', 'exec-oven-2']));
    const src = log.devices[0].owner;
    const bySource = await entries(`sourcePrefix=${encodeURIComponent(src.slice(0, -1))}&limit=1000`);
    expect(bySource.map((e) => e.seq)).toEqual(all.filter((e) => e.ce.source.startsWith(src.slice(0, -1))).map((e) => e.seq));
    expect(await entries(`order=desc&type=cookwala.execution.running&subjectPrefix=exec-mixer&id=nothing`)).toEqual([]);
    const page = await api('order=desc&limit=50');
    expect(page.headers['cookwala-erased']).toBe('5:49');
    for (const bad of ['id=', `eventHash=${'a'.repeat(1025)}`, 'subjectPrefix=', 'colour=red']) {
      const r = await api(bad);
      expect(r.statusCode, bad).toBe(400);
    }
    // The explorer's own URLs are the page, for any log name and seq; a bad seq is refused.
    const p = await log.seq.app.inject({ method: 'GET', url: `/logs/${encodeURIComponent(WEB_LOG)}/entries/7` });
    expect(p.statusCode).toBe(200);
    expect(p.headers['content-type']).toMatch(/^text\/html/);
    expect((await log.seq.app.inject({ method: 'GET', url: `/logs/${encodeURIComponent(WEB_LOG)}/entries/0` })).statusCode).toBe(400);
  });
});

describe('the explorer, bookmarked and searched', () => {
  it('an entry URL opens that entry with its proof checked; its erasure badge links the erasure entry and back', async () => {
    const page = await open(entryUrl(5));
    await page.waitForSelector('#proof-verdict');
    expect(await page.textContent('#entry-title')).toBe('Entry 5');
    expect(await page.textContent('#proof-verdict')).toMatch(
      /^✓ inclusion proof verified in this page: entry 5 is in the checkpoint at seq 49 /,
    );
    expect(await page.textContent('#erased-by')).toBe('payload erased by entry 49');
    expect(await page.getAttribute('#erased-by', 'href')).toBe(`/logs/${encodeURIComponent(WEB_LOG)}/entries/49`);
    const ids = await page.$$eval('#entry-ids button.copy', (bs) => bs.map((b) => b.getAttribute('data-copy')));
    expect(ids).toEqual([entryUrl(5).replace(/\?.*$/, ''), '5', all[4].ce.id, all[4].eventHash, all[4].hash]);
    await page.screenshot({ path: join(shots, 'explorer-entry-url.png'), fullPage: false });
    await page.click('#erased-by');
    await page.waitForSelector('#erases');
    expect(new URL(page.url()).pathname).toBe(`/logs/${encodeURIComponent(WEB_LOG)}/entries/49`);
    expect(await page.textContent('#erases')).toBe('This entry erased the payload of entry 5.');
    await page.goBack();
    await page.waitForFunction(`document.getElementById('entry-title').textContent === 'Entry 5'`);
    // The copy button copies (the clipboard, or the selection fallback) and says so.
    await page.click('#entry-ids button.copy[aria-label="copy the event hash"]');
    await page.waitForFunction(
      `/^copied|copy failed$/.test(document.querySelector('#entry-ids button.copy[aria-label="copy the event hash"]').textContent)`,
    );
    // The erased badge in the list links the erasure entry too.
    await page.fill('#f-type', 'cookwala.execution.running');
    await page.fill('#f-source', log.devices[0].owner);
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#entries[aria-busy=false]');
    expect(await page.textContent('#entry-rows tr[data-seq="5"] a.badge.erased')).toBe('erased');
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('the search box: a seq (with separators) opens the entry; an event hash and an event id find it', async () => {
    const page = await open(`${log.url}/?poll=${POLL_MS}`);
    expect(new URL(page.url()).pathname).toBe(`/logs/${encodeURIComponent(WEB_LOG)}`);
    await page.fill('#q', '4,2');
    await page.press('#q', 'Enter');
    await page.waitForFunction(`document.getElementById('entry-title').textContent === 'Entry 42'`);
    expect(new URL(page.url()).pathname).toBe(`/logs/${encodeURIComponent(WEB_LOG)}/entries/42`);
    await page.waitForSelector('#proof-verdict');
    await page.fill('#q', all[29].eventHash);
    await page.click('#search button[type=submit]');
    await page.waitForFunction(`document.getElementById('entry-title').textContent === 'Entry 30'`);
    expect(await page.$$eval('#entry-rows tr', (t) => t.map((x) => x.getAttribute('data-seq')))).toEqual(['30']);
    await page.fill('#q', all[11].ce.id);
    await page.press('#q', 'Enter');
    await page.waitForFunction(`document.getElementById('entry-title').textContent === 'Entry 12'`);
    // Filters: subject prefix and type.
    await page.fill('#f-subject', 'exec-oven');
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#entries[aria-busy=false]');
    const subjects = await page.$$eval('#entry-rows td[data-label=subject]', (tds) => tds.map((t) => t.textContent));
    expect(subjects.length).toBe(all.filter((e) => e.ce.subject?.startsWith('exec-oven')).length);
    expect(new Set(subjects)).toEqual(new Set(['exec-oven-1', 'exec-oven-2']));
    await page.fill('#f-subject', '');
    await page.fill('#f-type', 'cookwala.log.erased');
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#entries[aria-busy=false]');
    expect(await page.$$eval('#entry-rows tr', (t) => t.map((x) => x.getAttribute('data-seq')))).toEqual(['49']);
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  });
});

describe('the explorer follows the log', () => {
  it('a new checkpoint within one interval; head against witnessed; a pending proof retried until it verifies', async () => {
    const page = await open(`${log.url}/?poll=${POLL_MS}`);
    await page.waitForSelector('#live-behind');
    expect(await page.textContent('#live-behind')).toBe('every entry witnessed');
    // Entries no checkpoint covers yet: the head moves ahead of the witnessed checkpoint.
    await log.post(2); // 50..53
    await page.waitForFunction(`document.getElementById('live-head')?.textContent === 'head 53'`, undefined, { timeout: POLL_MS * 3 });
    expect(await page.textContent('#live-behind')).toBe('4 entries not yet witnessed');
    expect(await page.textContent('#live-witnessed')).toBe('witnessed checkpoint 49');
    await page.waitForSelector('#entry-rows tr[data-seq="53"]');
    // The newest entry on its own: no proof yet, said so.
    await page.click('#entry-rows tr[data-seq="53"] a');
    await page.waitForSelector('#proof-pending');
    expect(await page.textContent('#proof-pending')).toContain('checked as soon as one covers entry 53');
    // The next two proof fetches fail; the page keeps asking until one verifies.
    let failed = 0;
    await page.route('**/proof/inclusion?*', async (route) => {
      if (failed < 2) {
        failed++;
        await route.fulfill({ status: 503, contentType: 'application/problem+json', body: '{"code":"unavailable","detail":"try again"}' });
      } else await route.continue();
    });
    await log.checkpoint(); // checkpoint 53
    const t0 = Date.now();
    await page.waitForFunction(`document.getElementById('cp-seq')?.textContent === 'seq 53'`, undefined, { timeout: POLL_MS * 2.5 });
    const seen = Date.now() - t0;
    expect(seen).toBeLessThan(POLL_MS * 2.5);
    await page.waitForSelector('#proof-verdict', { timeout: POLL_MS * 8 });
    expect(failed).toBe(2);
    expect(await page.textContent('#proof-verdict')).toMatch(
      /^✓ inclusion proof verified in this page: entry 53 is in the checkpoint at seq 53 /,
    );
    expect(await page.textContent('#live-behind')).toBe('every entry witnessed');
    await page.screenshot({ path: join(shots, 'explorer-live.png'), fullPage: false });
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('a witness that stops answering is shown unreachable with its error, then cosigning again', async () => {
    const page = await open(`${log.url}/?poll=${POLL_MS}`);
    // One row per witness, keyed by its display name (a witness is its key, not its kid).
    const sel = `#witnesses tr[data-witness=${JSON.stringify(witnessDisplayName(log.witnesses[1].record))}]`;
    const row = () => page.textContent(sel);
    expect(await row()).toContain('✓ cosigned');
    log.witnessDown(1, W2_ERROR);
    await log.round(1); // checkpoint 55 without it
    await page.waitForFunction(`document.getElementById('cp-seq')?.textContent === 'seq 55'`, undefined, { timeout: POLL_MS * 3 });
    await page.waitForFunction(
      `document.querySelector(${JSON.stringify(sel)})?.textContent.includes('unreachable: connection refused')`,
      undefined,
      { timeout: POLL_MS * 3 },
    );
    expect(await row()).toContain('no cosignature counted');
    await page.screenshot({ path: join(shots, 'explorer-witness-down.png'), fullPage: false });
    log.witnessUp(1);
    await log.round(1); // checkpoint 57 with it
    await page.waitForFunction(`document.getElementById('cp-seq')?.textContent === 'seq 57'`, undefined, { timeout: POLL_MS * 3 });
    await page.waitForFunction(`document.querySelector(${JSON.stringify(sel)})?.textContent.includes('✓ cosigned')`, undefined, {
      timeout: POLL_MS * 3,
    });
    expect(await row()).not.toContain('unreachable');
    expect(errorsOf(page)).toEqual([]);
    await page.close();
  });
});
