// The offline verifier page (web/pages/verifier.html, docs/design.md §12b), in Debian's
// Chromium driven by playwright-core: on a real log exported by a real sequencer (LevelDB, signed
// device events, checkpoints cosigned at quorum 2, an erased payload) the page opened from disk
// says VALID with the very report `cookwala verify --json` prints (the CLI as a child process);
// each of several tampered copies says INVALID with the same report, so the same first failure;
// an unusable policy says UNUSABLE (exit 2) as the CLI does; an event proof and a ForkProof get the
// verdicts of verify-event and verify-fork. Served from a static host, the page makes no request
// after it has loaded while it verifies, and its CSP refuses a fetch from the page and from the
// worker. WebCrypto (BoringSSL) and node:crypto give the same verdict on every Wycheproof Ed25519
// and ECDSA P-256 vector and on the adversarial Ed25519 inputs (small- and mixed-order keys,
// torsion in R, S + L, the identity-key forgery), all behind the one Ed25519 rule.
// Screenshots (desktop VALID, INVALID, phone width) are written to the test's temp folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { ensureWebBuilt, DIST, WEB_ROOT, browserOnly } from '../web/build.ts';
import { verifyBundleFile } from '../auditor/verify.ts';
import { checkForkFile } from '../auditor/verify-fork.ts';
import { verifyEventProof, buildEventProof } from '../verifier/bundle/event-proof.ts';
import { buildCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { buildForkProof } from '../verifier/documents/fork-proof.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';
import { verifyRaw } from '../verifier/signing/signature.ts';
import { createNodeBackend } from '../verifier/crypto/node.ts';
import type { BundleReport } from '../verifier/bundle/report.ts';
import { keyOf, signScalar, identityForgery, withSPlusL, SMALL_ORDER, T8, L } from '../testkit/ed25519-adversarial.ts';
import { cookwala, checkpointLine, edit, entryLine, flipChar, fromLines, payloadLine, rechain, rehash, toLines } from '../testkit/audit.ts';
import { buildWebLog, launchChromium, WEB_LOG, type TestBrowser, type WebLog } from './web-fixture.ts';
import { logPath } from '../testkit/sequencer.ts';
import { makeTempDir } from '../testkit/tmp.ts';

let log: WebLog;
let tb: TestBrowser;
let work: string;
let lines: string[];
let keysPath: string;
let policyText: string;
let server: Server;
let staticUrl: string;
const staticHits: string[] = [];

beforeAll(async () => {
  await ensureWebBuilt();
  work = await makeTempDir('cookwala-web-verifier-');
  log = await buildWebLog();
  await log.round(6); // seq 1..12, checkpoint 12
  await log.round(6); // 13..24, checkpoint 24
  await log.erase(5); // 25 erases the payload of 5, checkpoint 25
  await log.round(4); // 26..33, checkpoint 33
  lines = toLines(await log.bundle());
  keysPath = join(work, 'keys.json');
  await writeFile(keysPath, await log.keyCache());
  policyText = await readFile(log.policyPath, 'utf8');
  tb = await launchChromium();
  // "Any static host": a plain file server that serves the built page and logs every request.
  server = createServer(async (req, res) => {
    staticHits.push(req.url ?? '');
    if (req.url === '/verifier.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(await readFile(join(DIST, 'verifier.html')));
    } else if (req.url === '/blank') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>blank</title>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  staticUrl = `http://127.0.0.1:${addr.port}`;
}, 60_000);

afterAll(async () => {
  await tb?.close();
  // When the setup failed before the server existed (no Chromium), there is nothing to close: a
  // promise on `server?.close(r)` would never settle and hold the hook to its timeout.
  if (server) await new Promise((r) => server.close(r));
  await log?.close();
  // The screenshots stay in `work` for a person to look at; only the bundles go.
  process.stdout.write(`web-verifier screenshots in ${work}\n`);
});

async function write(name: string, text: string | Buffer): Promise<string> {
  const p = join(work, name);
  await writeFile(p, text);
  return p;
}

interface PageResult {
  verdict: string;
  json: unknown;
  exitCode: number;
  crypto: string;
}

async function openVerifier(url = pathToFileURL(join(DIST, 'verifier.html')).href, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await tb.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  (page as unknown as { errors: string[] }).errors = errors;
  return page;
}

/** Give the page its files the way an auditor does (the file pickers), press Verify, read the report. */
async function verifyInPage(page: Page, evidence: string, policy: string, keys?: string): Promise<PageResult> {
  await page.click('#clear');
  await page.setInputFiles('#evidence-file', evidence);
  await page.setInputFiles('#policy-file', policy);
  if (keys) await page.setInputFiles('#keys-file', keys);
  await page.waitForFunction("!document.getElementById('verify').disabled");
  await page.click('#verify');
  await page.waitForSelector('#result[data-exit-code] #report-json', { state: 'attached', timeout: 30_000 });
  const json = JSON.parse((await page.textContent('#report-json')) ?? 'null');
  const verdict = (await page.textContent('#verdict')) ?? '';
  const exitCode = Number(await page.getAttribute('#result', 'data-exit-code'));
  const crypto = (await page.getAttribute('#result', 'data-crypto')) ?? '';
  expect((page as unknown as { errors: string[] }).errors).toEqual([]);
  return { verdict, json, exitCode, crypto };
}

/** The CLI's own verifier on a file (what `cookwala verify --json` prints), in this process. */
const cliReport = (bundle: string, keys?: string) => verifyBundleFile(bundle, { policyPath: log.policyPath, keysPath: keys, workers: 0 });

/** The report minus what depends on the run (the random salt of the id set changes nothing here). */
const comparable = (r: unknown) => JSON.parse(JSON.stringify(r)) as BundleReport;

describe('the offline verifier page', () => {
  it('is one self-contained file whose CSP allows no network at all', async () => {
    const html = await readFile(join(DIST, 'verifier.html'), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(meta).toContain("connect-src 'none'");
    expect(meta).toContain("default-src 'none'");
    expect(meta).toContain('worker-src blob:');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|url\(http/i);
    expect(html.match(/<script>/g)?.length).toBe(1);
  });

  it('opened from disk: the real bundle is VALID with exactly the report of `cookwala verify --json`', async () => {
    const bundle = await write('bundle.ndjson', fromLines(lines));
    const cli = await cookwala(['verify', bundle, '--policy', log.policyPath, '--keys', keysPath, '--json']);
    expect(cli.code).toBe(0);
    const page = await openVerifier();
    const r = await verifyInPage(page, bundle, log.policyPath, keysPath);
    expect(r.verdict).toBe('VALID');
    expect(r.exitCode).toBe(0);
    expect(r.crypto).toBe('webcrypto');
    const want = comparable(JSON.parse(cli.stdout));
    expect(comparable(r.json)).toEqual(want);
    expect(want).toMatchObject({
      valid: true,
      entries: 33,
      payloads: { present: 32, erased: 1, missing: 0 },
      checkpoints: { count: 4, verified: 4 },
    });
    // The counts are on the screen too, not only in the JSON.
    expect(await page.textContent('#count-entries')).toBe('33');
    expect(await page.textContent('#count-payloads')).toBe('32 present, 1 erased, 0 missing');
    expect(await page.textContent('#count-checkpoints')).toBe('4 (4 met the policy)');
    await page.screenshot({ path: join(work, 'verifier-valid.png'), fullPage: true });
    await page.close();
  });

  const tampered: Array<{ name: string; make: () => string[] | string | Buffer; first: string }> = [
    {
      name: 'payload data altered',
      make: () => edit(lines, payloadLine(lines, 17), (d) => (d.event.data.step = 99)),
      first: 'payload_hash_mismatch@17',
    },
    { name: 'entry ce.id changed', make: () => edit(lines, entryLine(lines, 8), (d) => (d.ce.id = 'forged')), first: 'rewrite_detected@1' },
    {
      name: 'history rewritten with a consistent chain',
      make: () =>
        rechain(
          edit(lines, entryLine(lines, 27), (d) => (d.sequencedAt = JSON.parse(lines[entryLine(lines, 24)]).sequencedAt)),
          entryLine(lines, 27),
        ),
      first: 'rewrite_detected@26',
    },
    {
      name: 'device signature altered',
      make: () => {
        const i = entryLine(lines, 20);
        return rechain(
          edit(lines, i, (d) => {
            d.eventSignature.sig = flipChar(d.eventSignature.sig);
            rehash(d);
          }),
          i,
        );
      },
      first: 'rewrite_detected@13',
    },
    {
      name: 'cosignatures stripped below quorum',
      make: () => edit(lines, checkpointLine(lines, 24), (d) => d.signature.splice(1)),
      first: 'quorum_not_met@24',
    },
    {
      name: 'payload dropped without erasure',
      make: () => lines.filter((_, i) => i !== payloadLine(lines, 18)),
      first: 'payload_missing@18',
    },
    {
      name: 'file cut mid-line',
      make: () => {
        const t = fromLines(lines);
        return t.slice(0, t.length - 300);
      },
      first: 'truncated@-',
    },
    {
      name: 'a line that is not UTF-8',
      make: () =>
        Buffer.concat([
          Buffer.from(fromLines(lines.slice(0, 6))),
          Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
          Buffer.from(fromLines(lines.slice(6))),
        ]),
      first: 'bad_json@-',
    },
    { name: 'header type changed (unusable)', make: () => edit(lines, 0, (d) => (d.type = 'some-bundle')), first: 'bad_bundle_type@-' },
  ];

  it(`each of ${tampered.length} tampered bundles gets the CLI's verdict, report and first failure`, async () => {
    const page = await openVerifier();
    const problems: string[] = [];
    let shot = false;
    for (const c of tampered) {
      const m = c.make();
      const file = await write(`${c.name.replace(/[^a-z0-9]+/gi, '-')}.ndjson`, Array.isArray(m) ? fromLines(m) : m);
      const [cli, r] = [await cliReport(file, keysPath), await verifyInPage(page, file, log.policyPath, keysPath)];
      const want = comparable(cli);
      const f = want.failures[0];
      const first = `${f?.kind}@${f?.seq ?? '-'}`;
      if (first !== c.first) problems.push(`${c.name}: the CLI's first failure is ${first}, the test expects ${c.first}`);
      if (r.exitCode !== want.exitCode) problems.push(`${c.name}: page exit ${r.exitCode}, CLI ${want.exitCode}`);
      if (r.verdict !== (want.exitCode === 2 ? 'UNUSABLE' : 'INVALID')) problems.push(`${c.name}: page says ${r.verdict}`);
      try {
        expect(comparable(r.json)).toEqual(want);
      } catch {
        problems.push(
          `${c.name}: the page's report differs from the CLI's:\n${JSON.stringify(r.json).slice(0, 800)}\n${JSON.stringify(want).slice(0, 800)}`,
        );
      }
      if (!shot && c.name === 'history rewritten with a consistent chain') {
        shot = true;
        await page.screenshot({ path: join(work, 'verifier-invalid.png'), fullPage: true });
      }
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it("an unusable policy is UNUSABLE (exit 2) with the CLI's reason", async () => {
    const bad = await write('not-a-policy.json', '{"kind":"WitnessPolicy","log":');
    const bundle = await write('bundle-2.ndjson', fromLines(lines));
    const cli = await cookwala(['verify', bundle, '--policy', bad, '--json']);
    expect(cli.code).toBe(2);
    const page = await openVerifier();
    const r = await verifyInPage(page, bundle, bad);
    expect(r.verdict).toBe('UNUSABLE');
    expect(r.exitCode).toBe(2);
    const cliJson = JSON.parse(cli.stdout) as { error: string };
    // Same message; the CLI names the path, the page the file name.
    expect((r.json as { error: string }).error).toBe(cliJson.error.replace(bad, 'not-a-policy.json'));
    await page.close();
  });

  it('an event proof is PROVED, a tampered one NOT PROVED, as verify-event says; a ForkProof is FORK PROVEN as verify-fork says', async () => {
    const get = async (p: string) => (await log.seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, p) })).json();
    const cp = (await get('/checkpoint')) as Checkpoint;
    const entry = JSON.parse(lines[entryLine(lines, 9)]);
    const event = await get('/events/9');
    const inc = await get(`/proof/inclusion?seq=9&size=${cp.seq}`);
    const keys = JSON.parse(await log.keyCache()).keys;
    const proof = buildEventProof({ entry, event, proof: inc.proof, checkpoint: cp, keys });
    const policy = readWitnessPolicy(JSON.parse(policyText));
    if (!policy.ok) throw new Error(policy.detail);
    const page = await openVerifier();
    for (const [name, doc, verdict] of [
      ['event-proof.json', proof, 'PROVED'],
      ['event-proof-tampered.json', { ...proof, event: { ...event, data: { step: 1234 } } }, 'NOT PROVED'],
    ] as const) {
      const file = await write(name, JSON.stringify(doc));
      const r = await verifyInPage(page, file, log.policyPath);
      const { ok: valid, ...rest } = verifyEventProof(doc, policy.value);
      expect(r.verdict).toBe(verdict);
      expect(r.json).toEqual(JSON.parse(JSON.stringify({ valid, ...rest })));
    }
    const fork = buildForkProof(
      cp,
      buildCheckpoint(
        { log: WEB_LOG, seq: cp.seq, head: cp.head, root: JSON.parse(lines[checkpointLine(lines, 12)]).root },
        log.sequencer,
        cp.signature[0].signedAt,
      ),
    );
    const forkFile = await write('fork-proof.json', JSON.stringify(fork));
    const r = await verifyInPage(page, forkFile, log.policyPath);
    expect(r.verdict).toBe('FORK PROVEN');
    expect(r.json).toEqual(JSON.parse(JSON.stringify(await checkForkFile(forkFile, { policy: log.policyPath }))));
    // The sequencer's KeyRecord alone is trust enough for a fork proof (verify-fork --key).
    const keyFile = await write('sequencer.keyrecord.json', JSON.stringify(log.sequencerKey));
    expect((await verifyInPage(page, forkFile, keyFile)).verdict).toBe('FORK PROVEN');
    await page.close();
  });

  it('from a static host: no request after load while it verifies, and the CSP refuses fetches from the page and its workers', async () => {
    const page = await openVerifier(`${staticUrl}/verifier.html`);
    await page.waitForLoadState('load');
    const after: string[] = [];
    page.on('request', (q) => {
      if (!/^(blob|data):/.test(q.url())) after.push(q.url());
    });
    const hitsBefore = staticHits.length;
    const bundle = await write('bundle-3.ndjson', fromLines(lines));
    const r = await verifyInPage(page, bundle, log.policyPath, keysPath);
    expect(r.verdict).toBe('VALID');
    const probe = `${staticUrl}/leak?x=1`;
    const fromPage = await page.evaluate(
      async (u) =>
        fetch(u).then(
          () => 'sent',
          () => 'refused',
        ),
      probe,
    );
    expect(fromPage).toBe('refused');
    // The verifier's worker and its signature workers: each is bound by the page's CSP.
    const workers = page.workers();
    expect(workers.length).toBeGreaterThanOrEqual(2);
    for (const worker of workers) {
      const fromWorker = await worker.evaluate(
        async (u) =>
          fetch(u).then(
            () => 'sent',
            () => 'refused',
          ),
        probe,
      );
      expect(fromWorker).toBe('refused');
    }
    expect(after).toEqual([]);
    expect(staticHits.slice(hitsBefore)).toEqual([]);
    await page.close();
  });

  it('at phone width the report stacks into rows that fit', async () => {
    const page = await openVerifier(undefined, { width: 390, height: 844 });
    const i = entryLine(lines, 11);
    const file = await write(
      'phone.ndjson',
      fromLines(
        rechain(
          edit(lines, i, (d) => {
            d.eventSignature.sig = flipChar(d.eventSignature.sig);
            rehash(d);
          }),
          i,
        ),
      ),
    );
    await page.screenshot({ path: join(work, 'verifier-phone-top.png') });
    const r = await verifyInPage(page, file, log.policyPath, keysPath);
    expect(r.verdict).toBe('INVALID');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.locator('#result').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(work, 'verifier-phone.png') });
    await page.close();
  });
});

/** A public vector file: the copy in conformance/vectors, else the shared folder beside the clone (never skipped). */
function vectorFile(topic: string, name: string): string {
  const candidates = [
    join(WEB_ROOT, '..', 'conformance', 'vectors', topic, name),
    join(WEB_ROOT, '..', '..', 'shared', 'vectors', topic, name),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`vector file ${topic}/${name} not found in ${candidates.join(' or ')}`);
  return found;
}

describe('browser crypto: WebCrypto in Chromium and node:crypto agree', () => {
  it('on every Wycheproof Ed25519 and ECDSA P-256 vector and on the adversarial Ed25519 inputs', async () => {
    const node = createNodeBackend();
    type Item = { alg: 'EdDSA' | 'ES256'; pub: string; msg: string; sig: string; id: string };
    const items: Item[] = [];
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const ed = JSON.parse(await readFile(vectorFile('ed25519', 'wycheproof-ed25519_test.json'), 'utf8'));
    for (const g of ed.testGroups)
      for (const t of g.tests)
        items.push({ alg: 'EdDSA', pub: g.publicKey?.pk ?? g.key.pk, msg: t.msg, sig: t.sig, id: `ed25519 #${t.tcId}` });
    const ec = JSON.parse(await readFile(vectorFile('ecdsa-p256', 'wycheproof-ecdsa_secp256r1_sha256_p1363_test.json'), 'utf8'));
    for (const g of ec.testGroups)
      for (const t of g.tests)
        items.push({ alg: 'ES256', pub: g.publicKey?.uncompressed ?? g.key.uncompressed, msg: t.msg, sig: t.sig, id: `p256 #${t.tcId}` });
    // Adversarial Ed25519: where verifiers are known to split.
    const msg = new TextEncoder().encode('cookwala adversarial');
    const x = 0x1234567890abcdefn;
    const honest = keyOf(x);
    const good = signScalar(x, honest, msg, 7n);
    const adversarial: Array<[string, Uint8Array, Uint8Array]> = [
      ['honest', honest, good],
      ['S + L', honest, withSPlusL(good)],
      ['R with torsion', honest, signScalar(x, honest, msg, 7n, T8)],
      ['mixed-order key', keyOf(x, T8), signScalar(x, keyOf(x, T8), msg, 9n)],
      ['identity-key forgery', identityForgery(5n).pub, identityForgery(5n).sig],
      ...SMALL_ORDER.map((p, i): [string, Uint8Array, Uint8Array] => [`small-order key ${i}`, p.toBytes(), good]),
    ];
    for (const [id, pub, sig] of adversarial) items.push({ alg: 'EdDSA', pub: hex(pub), msg: hex(msg), sig: hex(sig), id });
    expect(L > 0n).toBe(true);
    // The page's batch verifier, bundled alone for the test (the same source the worker runs).
    const js = (
      await build({
        entryPoints: [join(WEB_ROOT, 'src/lib/webcrypto-batch.ts')],
        bundle: true,
        write: false,
        format: 'iife',
        globalName: 'cookwalaBatch',
        platform: 'browser',
        plugins: [browserOnly],
        logLevel: 'silent',
      })
    ).outputFiles[0].text;
    const page = await tb.browser.newPage();
    await page.goto(`${staticUrl}/blank`);
    await page.addScriptTag({ content: js });
    const got = await page.evaluate(async (its) => {
      const g = globalThis as unknown as {
        crypto: { subtle: unknown };
        cookwalaBatch: {
          createWebCryptoBatch(s: unknown): (x: unknown[]) => Promise<boolean[]>;
          probeWebCrypto(s: unknown): Promise<boolean>;
        };
      };
      const subtle = g.crypto.subtle;
      const un = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
      const probe = await g.cookwalaBatch.probeWebCrypto(subtle);
      const batch = g.cookwalaBatch.createWebCryptoBatch(subtle);
      return { probe, verdicts: await batch(its.map((i) => ({ alg: i.alg, publicKey: un(i.pub), msg: un(i.msg), sig: un(i.sig) }))) };
    }, items);
    expect(got.probe).toBe(true);
    const disagree = items
      .filter(
        (it, i) =>
          verifyRaw(it.alg, Buffer.from(it.pub, 'hex'), Buffer.from(it.msg, 'hex'), Buffer.from(it.sig, 'hex'), node) !== got.verdicts[i],
      )
      .map((it) => it.id);
    expect(disagree).toEqual([]);
    expect(items.length).toBeGreaterThan(400);
    // Not vacuous: both verdicts occur, and the honest adversarial case is the only one accepted there.
    expect(got.verdicts.filter(Boolean).length).toBeGreaterThan(50);
    expect(got.verdicts.filter((v) => !v).length).toBeGreaterThan(50);
    const adv = got.verdicts.slice(items.length - adversarial.length);
    expect(adv.map((v, i) => (v ? adversarial[i][0] : '')).filter(Boolean)).toEqual(['honest']);
    await page.close();
  });
});
