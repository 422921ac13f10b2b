// The log explorer and the witness status page (docs/design.md §12b), in Debian's
// Chromium driven by playwright-core. The explorer, served by a real sequencer at `/` (LevelDB,
// fastify on 127.0.0.1, checkpoints cosigned at quorum 2 by the fixture's witness stand-in, one
// witness down with its last error): it shows the latest checkpoint (seq, root) verified in the
// page, which witnesses cosigned and which did not with the error, the devices, the entries newest
// first, paged, filtered by subject and by source; a clicked entry shows its payload and an
// inclusion proof verified in the page, an erased one its erasure record; a proof the server
// falsifies (intercepted in the browser) is shown as failing, so the page really checks. The
// entries API's new parameters (order, subject, source, limit) are tested over HTTP, including
// their bounds. The witness page, served by a real witness (libp2p node and status HTTP API) that
// cosigned a log and caught a fork, lists the log, its last cosigned checkpoint with the
// witness's own cosignature checked in the page, and the ForkProof. Screenshots go to a temp dir.
import { witnessDisplayName } from '../verifier/signing/witness-identity.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Page } from 'playwright-core';
import { ensureWebBuilt } from '../web/build.ts';
import type { Entry } from '../verifier/documents/entry.ts';
import { createWitness, type Witness } from '../witness/server/service.ts';
import { openStateStore, type StateStore } from '../witness/server/state.ts';
import { encodeMessage } from '../witness/wire/messages.ts';
import { createFakeLog, testKey } from '../testkit/witness.ts';
import { buildWebLog, launchChromium, WEB_LOG, type TestBrowser, type WebLog } from './web-fixture.ts';
import { logPath } from '../testkit/sequencer.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

let log: WebLog;
let tb: TestBrowser;
let shots: string;
let head: number;
const W3_ERROR = 'witness_unavailable: no answer within 5000 ms';

beforeAll(async () => {
  await ensureWebBuilt();
  shots = await makeTempDir('cookwala-web-explorer-');
  log = await buildWebLog();
  for (let r = 0; r < 4; r++) await log.round(8); // 64 entries, checkpoints at 16, 32, 48, 64
  await log.erase(5); // 65, checkpoint 65
  log.witnessDown(2, W3_ERROR);
  await log.round(2); // 66..69, checkpoint 69 with two cosignatures
  head = log.seq.logs.get(WEB_LOG)!.store.head().seq;
  tb = await launchChromium();
}, 60_000);

afterAll(async () => {
  await tb?.close();
  await log?.close();
  process.stdout.write(`web-explorer screenshots in ${shots}\n`);
});

async function entriesApi(q: string): Promise<{ status: number; seqs: number[]; headers: Record<string, unknown>; body: string }> {
  const r = await log.seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, `/entries?${q}`) });
  const seqs =
    r.statusCode === 200
      ? r.body
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as Entry).seq)
      : [];
  return { status: r.statusCode, seqs, headers: r.headers, body: r.body };
}

describe('the entries API for the explorer', () => {
  it('answers newest first, paged, filtered by subject and by source, with the range examined and where to go on', async () => {
    expect(head).toBe(69);
    const page1 = await entriesApi('order=desc&limit=5');
    expect(page1.seqs).toEqual([69, 68, 67, 66, 65]);
    expect(page1.headers['cookwala-range']).toBe('65-69');
    expect(page1.headers['cookwala-next']).toBe('64');
    const page2 = await entriesApi('order=desc&limit=5&to=64');
    expect(page2.seqs).toEqual([64, 63, 62, 61, 60]);
    const subj = await entriesApi('order=desc&subject=exec-oven-1&limit=100');
    const all = (await entriesApi('from=1')).body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Entry);
    expect(subj.seqs).toEqual(
      all
        .filter((e) => e.ce.subject === 'exec-oven-1')
        .map((e) => e.seq)
        .reverse(),
    );
    expect(subj.seqs.length).toBeGreaterThan(5);
    expect(subj.headers['cookwala-next']).toBeUndefined(); // the whole log was examined
    const src = log.devices[1].owner;
    const bySource = await entriesApi(`source=${encodeURIComponent(src)}&limit=3`);
    expect(bySource.seqs).toEqual(
      all
        .filter((e) => e.ce.source === src)
        .map((e) => e.seq)
        .slice(0, 3),
    );
    const both = await entriesApi(`order=desc&source=${encodeURIComponent(src)}&subject=exec-oven-1`);
    expect(both.seqs).toEqual([]); // that device never cooks on that oven
    // The plain range read is unchanged (ascending, no next header).
    const plain = await entriesApi('from=3&to=5');
    expect(plain.seqs).toEqual([3, 4, 5]);
    expect(plain.headers['cookwala-next']).toBeUndefined();
    for (const bad of ['order=sideways', 'limit=0', 'limit=1001', 'subject=', 'order=desc&from=9&to=3', 'limit=ten']) {
      const r = await entriesApi(bad);
      expect(r.status, bad).toBe(400);
      expect(JSON.parse(r.body).code, bad).toBe('bad_request');
    }
  });
});

async function openExplorer(viewport = { width: 1280, height: 1000 }): Promise<Page> {
  const page = await tb.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as unknown as { errors: string[] }).errors = errors;
  await page.goto(`${log.url}/`);
  await page.waitForSelector('#cp-seq');
  await page.waitForSelector('#entries[aria-busy=false]');
  return page;
}

describe("the log explorer at the sequencer's /", () => {
  it('shows the latest checkpoint verified in the page, who cosigned it and who did not (with the error), the devices', async () => {
    const page = await openExplorer();
    const cp = (await log.seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, '/checkpoint') })).json();
    expect(cp.seq).toBe(69);
    expect(await page.textContent('#cp-seq')).toBe('seq 69');
    expect(await page.textContent('#cp-root')).toBe(cp.root);
    expect(await page.textContent('#checkpoint')).toContain('✓ verified in this page: sequencer signature and 2 cosignatures (quorum 2)');
    expect(await page.textContent('#checkpoint')).not.toMatch(/\d+ of \d+ required/);
    // One row per witness, by its one name (a witness is its key), with its live state.
    const [a, b, c] = log.witnesses.map((w) => witnessDisplayName(w.record));
    expect(await page.$$eval('#witnesses tbody tr', (trs) => trs.length)).toBe(3);
    expect(await page.textContent('#witnesses caption')).toContain('2 cosignatures (quorum 2)');
    const row = (name: string) => page.textContent(`#witnesses tr[data-witness="${name}"]`);
    expect(await row(a)).toContain('✓ cosigned');
    expect(await row(b)).toContain('✓ cosigned');
    expect(await row(c)).toContain('no cosignature counted');
    expect(await row(c)).toContain(`unreachable: ${W3_ERROR.replace(/^[a-z_]+: /, '')}, last tried`);
    expect(await page.textContent('#vkey')).toMatch(new RegExp(`^${WEB_LOG.replace(/[./]/g, '\\$&')}\\+[0-9a-f]{8}\\+`));
    const devices = await page.textContent('#device-table');
    for (const d of log.devices) expect(devices).toContain(d.owner);
    expect(devices).toContain('alive');
    await page.screenshot({ path: join(shots, 'explorer.png'), fullPage: true });
    expect((page as unknown as { errors: string[] }).errors).toEqual([]);
    await page.close();
  });

  it('lists entries newest first and pages; filters by subject and by source', async () => {
    const page = await openExplorer();
    const seqs = () =>
      page.$$eval('#entry-rows tr', (trs) => trs.map((t) => Number((t as unknown as { dataset: { seq: string } }).dataset.seq)));
    const first = await seqs();
    expect(first).toEqual(Array.from({ length: 25 }, (_, i) => head - i));
    await page.click('#older');
    await page.waitForFunction(`document.querySelector('#entry-rows tr')?.dataset.seq === '${head - 25}'`);
    expect(await seqs()).toEqual(Array.from({ length: 25 }, (_, i) => head - 25 - i));
    await page.click('#newer');
    await page.waitForFunction(`document.querySelector('#entry-rows tr')?.dataset.seq === '${head}'`);
    await page.fill('#f-subject', 'exec-mixer-7');
    await page.press('#f-subject', 'Enter'); // the keyboard path: the filter is a form
    await page.waitForSelector('#entries[aria-busy=false]');
    expect(await page.textContent('#entries-note')).toContain('matching the filter');
    const subjects = await page.$$eval('#entry-rows td[data-label=subject]', (tds) => tds.map((t) => t.textContent));
    expect(subjects.length).toBe(25);
    expect(new Set(subjects)).toEqual(new Set(['exec-mixer-7']));
    await page.fill('#f-subject', '');
    await page.fill('#f-source', log.devices[0].owner);
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#entries[aria-busy=false]');
    const sources = await page.$$eval('#entry-rows td[data-label=source]', (tds) => tds.map((t) => t.textContent));
    expect(sources.length).toBe(25);
    expect(new Set(sources)).toEqual(new Set([log.devices[0].owner]));
    expect((await seqs()).every((s, i, a) => i === 0 || s < a[i - 1])).toBe(true);
    await page.close();
  });

  it('a clicked entry shows its payload and an inclusion proof verified in the page; an erased one its erasure record', async () => {
    const page = await openExplorer();
    await page.click('#entry-rows tr[data-seq="49"] a');
    await page.waitForSelector('#proof-verdict');
    expect(await page.textContent('#proof-verdict')).toMatch(
      /^✓ inclusion proof verified in this page: entry 49 is in the checkpoint at seq 69 .* 7 hashes; device signature by dev-121 checked; payload matches the entry$/,
    );
    const payload = JSON.parse((await page.textContent('#payload')) ?? '{}');
    expect(payload.cookwalaseq).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'explorer-entry.png'), fullPage: true });
    // Entry 5 was erased: the record instead of the payload, and the entry is still proved.
    await page.fill('#f-source', log.devices[0].owner);
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#entries[aria-busy=false]');
    for (let pages = 0; !(await page.$('#entry-rows tr[data-seq="5"]')); pages++) {
      expect(pages).toBeLessThan(5);
      await page.click('#older');
      await page.waitForSelector('#entries[aria-busy=false]');
    }
    await page.focus('#entry-rows tr[data-seq="5"] a');
    await page.keyboard.press('Enter'); // keyboard: each row's seq is a link
    await page.waitForSelector('#erasure');
    expect(JSON.parse((await page.textContent('#erasure')) ?? '{}')).toMatchObject({ seq: 5, reason: 'consent withdrawn', erasureSeq: 65 });
    await page.waitForSelector('#proof-verdict');
    expect(await page.textContent('#proof-verdict')).toMatch(/^✓ inclusion proof verified in this page: entry 5 /);
    await page.close();
  });

  it('a proof the server falsifies is shown as failing: the page checks, it does not trust', async () => {
    const page = await openExplorer();
    await page.route('**/proof/inclusion?*', async (route) => {
      const res = await route.fetch();
      const j = await res.json();
      j.proof[0] = j.proof[1];
      await route.fulfill({ response: res, json: j });
    });
    await page.click('#entry-rows tr[data-seq="60"] a');
    await page.waitForSelector('#proof-verdict');
    expect(await page.textContent('#proof-verdict')).toMatch(/^✗ bad_proof: /);
    await page.close();
  });

  it('works at phone width without sideways scrolling', async () => {
    const page = await openExplorer({ width: 390, height: 844 });
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'explorer-phone.png') });
    await page.close();
  });
});

describe("the witness status page at a witness's /", () => {
  let dir: string;
  let state: StateStore;
  let w: Witness;

  afterAll(async () => {
    await w?.stop();
    await state?.close();
    if (dir) await removeDir(dir);
  });

  it('lists the logs it follows with its last cosigned checkpoint (its cosignature checked in the page) and its fork proofs', async () => {
    dir = await makeTempDir('cookwala-web-witness-');
    state = await openStateStore(join(dir, 'state'));
    const k = testKey('web-page-w', 'witness');
    const kitchen = createFakeLog('kitchen.example/missions/m-3');
    const bakery = createFakeLog('bakery.example/missions/m-9', 'bakery-seq');
    w = createWitness(
      { state, signer: k.signer, keyRecord: k.keyRecord },
      {
        peerKey: await generateKeyPair('Ed25519'),
        listen: ['/ip4/127.0.0.1/tcp/0'],
        httpPort: 0,
        logs: [
          { log: kitchen.origin, sequencer: kitchen.keyRecord },
          { log: bakery.origin, sequencer: bakery.keyRecord },
        ],
      },
    );
    const info = await w.start();
    kitchen.append(12);
    expect((await w.handleFrame(encodeMessage(await kitchen.request(0)))).ok).toBe(true);
    const split = kitchen.fork();
    kitchen.append(3);
    split.append(3);
    expect((await w.handleFrame(encodeMessage(await kitchen.request(12)))).ok).toBe(true);
    const forked = await w.handleFrame(encodeMessage(await split.request(12)));
    expect(forked.ok).toBe(false);
    bakery.append(4);
    expect((await w.handleFrame(encodeMessage(await bakery.request(0)))).ok).toBe(true);

    const page = await tb.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${info.http}/`);
    await page.waitForSelector('#log-table');
    expect(await page.textContent('#witness-kid')).toContain(k.keyRecord.kid);
    const row = (origin: string) => page.textContent(`#log-table tr[data-log="${origin}"]`);
    expect(await row(kitchen.origin)).toContain('seq 15');
    expect(await row(kitchen.origin)).toContain('✓ cosigned');
    expect(await row(bakery.origin)).toContain('seq 4');
    expect(await row(bakery.origin)).toContain('✓ cosigned');
    await page.waitForSelector('#fork-table');
    const forks = await page.textContent('#fork-table');
    expect(forks).toContain(kitchen.origin);
    expect(forks).toContain('15');
    await page.screenshot({ path: join(shots, 'witness-page.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
