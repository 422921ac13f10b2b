// The commands an operator meets in the first hour, as child
// processes (`node bin/cookwala.js`) on real folders and real sockets on 127.0.0.1, plus the pure
// parts they rest on. 1: data directories that say what they hold, refused across kinds (exit 2)
// and never cleared when another kind's key is there; 2: witness init's kept card, `policy
// add-witness`/`show`, the sequencer's policy watch, each witness subcommand's help and "did you
// mean"; 3: the operator token from a file or the environment; 4: one line and exit 2 for each
// environment fault (busy port, bad --bootstrap, a closed port, a witness where a sequencer
// should be, a proof given to `verify`, another log's policy); 5: an unwitnessed log said so.
// (6, the executor's refusals: executor/outbox.test.ts and executor/simulator-reasons.test.ts;
// 7-10: test/readme.test.ts.)
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cookwala } from '../testkit/audit.ts';
import { freePort } from '../testkit/net.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { testKey } from '../testkit/witness.ts';
import { claimDataDir, inspectDataDir, DIR_MARKER } from '../platform/data-dir-kind.ts';
import { prepareDemoDir } from '../demo/data-dir.ts';
import { readOperatorToken, TOKEN_ENV } from '../platform/operator-token.ts';
import { addWitness } from '../sequencer/cli-policy.ts';
import { watchPolicy } from '../sequencer/policy-watch.ts';
import { didYouMean, checkBootstrap } from '../witness/cli-usage.ts';
import { readWitnessInfo } from '../witness/wire/witness-info.ts';
import { wrongInput } from '../auditor/verify.ts';
import { initDataDir, writeFileDurable } from '../sequencer/data-dir.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';

const tmp = tempDirs('cookwala-setup-');
afterAll(() => tmp.cleanup());
const LOG = 'setup.example/missions/m-1';

describe('1. data directories say what they hold', () => {
  it('init refuses a demo folder, the demo refuses to clear a folder holding a sequencer key, nothing is deleted', async () => {
    const base = await tmp.make();
    const demo = join(base, 'data');
    expect((await prepareDemoDir(demo)).ok).toBe(true);
    await writeFile(join(demo, 'bundle.ndjson'), '{}\n');
    const r = await cookwala(['init', '--data', demo, '--log', LOG]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/is a cookwala demo directory, not a sequencer's data directory: choose another --data DIR/);
    expect((await readdir(demo)).sort()).toEqual(['bundle.ndjson', 'demo.json', 'logs']);
    // nor inside it (the old demo layout had DIR/sequencer/: the next demo clears that)
    const inside = await cookwala(['init', '--data', join(demo, 'sequencer'), '--log', LOG]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(
      /sequencer lies inside a cookwala demo directory \(.*data\), which the next demo clears: choose a --data DIR outside it/,
    );
    expect((await readdir(demo)).sort()).toEqual(['bundle.ndjson', 'demo.json', 'logs']);
    // An older version put keys there: the next demo must not wipe them.
    await writeFile(join(demo, 'sequencer.key.json'), '{"alg":"EdDSA","kid":"k","secretKey":"precious"}');
    await writeFile(
      join(demo, 'demo.json'),
      JSON.stringify({ kind: 'CookwalaDemo', pid: 2 ** 22 + 4321, startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const again = await prepareDemoDir(demo);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.reason).toMatch(/holds a sequencer's data directory beside an earlier demo's files/);
    expect(await readFile(join(demo, 'sequencer.key.json'), 'utf8')).toMatch(/precious/);
    expect(await readdir(demo)).toContain('bundle.ndjson');
  });

  it('each command refuses another kind of folder with one line and exit 2', async () => {
    const seq = join(await tmp.make(), 'seq');
    expect((await cookwala(['init', '--data', seq, '--log', LOG])).code).toBe(0);
    expect(JSON.parse(await readFile(join(seq, DIR_MARKER), 'utf8'))).toEqual({ kind: 'CookwalaDataDir', holds: 'sequencer' });
    const w = join(await tmp.make(), 'w');
    expect((await cookwala(['witness', 'init', '--data', w])).code).toBe(0);
    const cases: Array<[string[], RegExp]> = [
      [['sequencer', '--data', w], /is a witness's data directory, not a sequencer's/],
      [['witness', 'run', '--data', seq], /is a sequencer's data directory, not a witness's/],
      [['executor', '--data', seq, '--simulate', '1'], /is a sequencer's data directory, not a simulator's/],
      [['sequencer', '--data', join(seq, 'nope')], /missing: create it with `cookwala init --data .*nope` first/],
    ];
    for (const [args, msg] of cases) {
      const r = await cookwala(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });

  it('claimDataDir: takes new and empty folders, marks a legacy one, refuses unknown and mixed ones', async () => {
    const base = await tmp.make();
    expect(await claimDataDir(join(base, 'new'), 'witness', { create: true })).toMatchObject({ ok: true, created: true });
    expect(await inspectDataDir(join(base, 'new'))).toMatchObject({ state: 'holds', kind: 'witness', marked: true });
    const legacy = join(base, 'legacy');
    await mkdir(legacy);
    await writeFile(join(legacy, 'device.key.json'), '{}');
    expect(await claimDataDir(legacy, 'executor', { create: false })).toMatchObject({ ok: true, created: false });
    expect(await readdir(legacy)).toContain(DIR_MARKER);
    const junk = join(base, 'junk');
    await mkdir(junk);
    await writeFile(join(junk, 'notes.txt'), 'x');
    expect(await claimDataDir(junk, 'sequencer', { create: true })).toMatchObject({ ok: false });
    expect(await readdir(junk)).toEqual(['notes.txt']);
    const mixed = join(base, 'mixed');
    await mkdir(mixed);
    await writeFile(join(mixed, 'witness.key.json'), '{}');
    await writeFile(join(mixed, 'operator.token'), 'x');
    const m = await claimDataDir(mixed, 'witness', { create: false });
    expect(m.ok).toBe(false);
  });
});

describe('2. the witness set-up as commands', () => {
  it('witness init prints its card and keeps it; add-witness adds it; show says unwitnessed before; each subcommand has its help', async () => {
    const base = await tmp.make();
    const seq = join(base, 'seq');
    const init = await cookwala(['init', '--data', seq, '--log', LOG]);
    expect(init.stdout).toMatch(/UNWITNESSED until you add some/);
    const before = await cookwala(['policy', 'show', '--data', seq]);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^UNWITNESSED: quorum 0/m);
    const port = await freePort();
    const w1 = join(base, 'w1');
    const wi = await cookwala(['witness', 'init', '--data', w1, '--name', 'w1', '--listen', `/ip4/127.0.0.1/tcp/${port}`]);
    expect(wi.code, wi.stderr).toBe(0);
    const peer = /^peer (\S+)$/m.exec(wi.stdout)?.[1];
    expect(peer).toMatch(/^12D3Koo/);
    expect(wi.stdout).toContain(`multiaddr /ip4/127.0.0.1/tcp/${port}/p2p/${peer}`);
    expect(wi.stdout).toMatch(/^keyRecord \{"kind":"KeyRecord"/m);
    const card = readWitnessInfo(JSON.parse(await readFile(join(w1, 'witness-info.json'), 'utf8')));
    expect(card).toMatchObject({ ok: true, value: { peerId: peer, multiaddrs: [`/ip4/127.0.0.1/tcp/${port}/p2p/${peer}`] } });

    const add = await cookwala(['policy', 'add-witness', '--data', seq, '--from', join(w1, 'witness-info.json')]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/added witness wit-\S+ \(cookwala:witness\/w1\) to .*policy.json; quorum 1 of 1/);
    const policy = JSON.parse(await readFile(join(seq, 'policy.json'), 'utf8'));
    expect(policy).toMatchObject({ quorum: 1, witnesses: [{ owner: 'cookwala:witness/w1' }] });
    // The peer is kept with the witness's key, so the sequencer knows which witness it is before it answers.
    expect(JSON.parse(await readFile(join(seq, 'config.json'), 'utf8')).witnessPeers).toEqual([
      { multiaddr: `/ip4/127.0.0.1/tcp/${port}/p2p/${peer}`, alg: 'EdDSA', publicKey: policy.witnesses[0].publicKey },
    ]);
    // The card's C2SP vkey is kept (to-tlog needs it).
    expect(policy.witnesses[0].vkey).toBe(JSON.parse(await readFile(join(w1, 'witness-info.json'), 'utf8')).c2sp.vkey);
    const twice = await cookwala(['policy', 'add-witness', '--data', seq, '--from', join(w1, 'witness-info.json'), '--quorum', '2']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--quorum 2 needs 2 witnesses; the policy has 1/);
    const wrongFile = await cookwala(['policy', 'add-witness', '--data', seq, '--from', join(seq, 'sequencer.keyrecord.json')]);
    expect(wrongFile.code).toBe(2);
    expect(wrongFile.stderr).toMatch(/is not a witness-info.json .*check --from/);

    const help = await Promise.all(['init', 'add-log', 'run'].map((s) => cookwala(['witness', s, '--help'])));
    expect(help.map((h) => h.code)).toEqual([0, 0, 0]);
    expect(help[0].stdout).toMatch(/^usage: cookwala witness init /);
    expect(help[1].stdout).toMatch(/^usage: cookwala witness add-log /);
    expect(help[2].stdout).toMatch(/^usage: cookwala witness \[run\] /);
    const typo = await cookwala(['witness', 'ini', '--data', w1]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^cookwala witness: unknown subcommand 'ini', did you mean init\?/);
    const ptypo = await cookwala(['policy', 'add-witnes']);
    expect(ptypo.code).toBe(2);
    expect(ptypo.stderr).toMatch(/did you mean add-witness\?/);
  });

  it('addWitness (pure): the same key twice adds nothing, an old address of the peer is replaced, the sequencer key never counts', () => {
    const s = testKey('seq-x', 'sequencer');
    const a = testKey('w-a', 'witness');
    const policy: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: s.keyRecord, witnesses: [], quorum: 0 } as WitnessPolicy;
    const card = { peerId: '12D3KooWabc', multiaddrs: ['/ip4/127.0.0.1/tcp/1/p2p/12D3KooWabc'], keyRecord: a.keyRecord };
    const one = addWitness(policy, [], card, undefined);
    const entry = (port: number) => ({
      multiaddr: `/ip4/127.0.0.1/tcp/${port}/p2p/12D3KooWabc`,
      alg: 'EdDSA',
      publicKey: a.keyRecord.publicKey,
    });
    expect(one).toMatchObject({ ok: true, value: { added: true, peers: [entry(1)], policy: { quorum: 1 } } });
    if (!one.ok) return;
    const moved = addWitness(
      one.value.policy,
      one.value.peers,
      { ...card, multiaddrs: ['/ip4/127.0.0.1/tcp/2/p2p/12D3KooWabc'] },
      undefined,
    );
    expect(moved).toMatchObject({ ok: true, value: { added: false, peers: [entry(2)] } });
    // The same key under another kid is the same witness: updated, never a second one.
    const relabelled = addWitness(one.value.policy, one.value.peers, { ...card, keyRecord: { ...a.keyRecord, kid: 'w1' } }, undefined);
    expect(relabelled).toMatchObject({ ok: true, value: { added: false } });
    if (relabelled.ok) expect(relabelled.value.policy.witnesses).toHaveLength(1);
    if (moved.ok) expect(moved.value.policy.witnesses).toHaveLength(1);
    expect(addWitness(policy, [], { ...card, keyRecord: s.keyRecord }, undefined)).toMatchObject({ ok: false });
    expect(readWitnessPolicy(one.value.policy).ok).toBe(true);
  });

  it('the sequencer watch fires when policy.json changes and not when nothing witnessing depends on changed', async () => {
    const dir = await tmp.make();
    await initDataDir({ dir, logs: [LOG] });
    let fired!: (why: string) => void;
    const changed = new Promise<string>((r) => (fired = r));
    const bad: string[] = [];
    const w = await watchPolicy({ dir, settleMs: 50, onChange: (why) => fired(why), onUnreadable: (d) => bad.push(d) });
    try {
      const p = JSON.parse(await readFile(join(dir, 'policy.json'), 'utf8'));
      await writeFileDurable(join(dir, 'policy.json'), '{"kind":"WitnessPolicy"'); // half-written by hand: ignored
      await writeFileDurable(
        join(dir, 'policy.json'),
        JSON.stringify({ ...p, witnesses: [testKey('w-b', 'witness').keyRecord], quorum: 1 }),
      );
      expect(await changed).toBe('policy.json changed');
    } finally {
      w.close();
    }
  });

  it('pure checks: did you mean, --bootstrap, a witness card', () => {
    expect(didYouMean('ini', ['init', 'add-log', 'run'])).toBe('init');
    expect(didYouMean('addlog', ['init', 'add-log', 'run'])).toBe('add-log');
    expect(didYouMean('zzzzzz', ['init', 'add-log', 'run'])).toBeUndefined();
    expect(checkBootstrap(['/ip4/127.0.0.1/tcp/4001'])).toMatch(/not a multiaddr ending in \/p2p\/<peerId>/);
    expect(checkBootstrap(['not a multiaddr'])).toMatch(/--bootstrap not a multiaddr/);
    expect(checkBootstrap(['/ip4/127.0.0.1/tcp/4001/p2p/'])).toMatch(/is not a multiaddr ending in \/p2p\/<peerId>/); // was "Component p2p was missing value"
    expect(checkBootstrap(['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWGBTcd5c4ymgPbqYugTDnhFHtLief3bZfPzhE3rBzYTNR'])).toBeUndefined();
    expect(readWitnessInfo({ peerId: 'x', multiaddrs: [], keyRecord: testKey('s', 'sequencer').keyRecord })).toMatchObject({
      ok: false,
      code: 'key_role_mismatch',
    });
  });
});

describe('3. the operator token never needs argv', () => {
  it('file first, then the environment, then the flag; a bad file is one line naming --register-token-file', async () => {
    const dir = await tmp.make();
    const f = join(dir, 'operator.token');
    await writeFile(f, 'a-token-from-the-file-0123456789\n');
    expect(await readOperatorToken({ file: f, flag: 'x', env: { [TOKEN_ENV]: 'env-token-0123456789' } })).toEqual({
      ok: true,
      value: { token: 'a-token-from-the-file-0123456789', from: f },
    });
    expect(await readOperatorToken({ flag: 'flag-token', env: { [TOKEN_ENV]: 'env-token-0123456789' } })).toEqual({
      ok: true,
      value: { token: 'env-token-0123456789', from: TOKEN_ENV },
    });
    expect(await readOperatorToken({ flag: 'flag-token', env: {} })).toEqual({
      ok: true,
      value: { token: 'flag-token', from: '--register-token' },
    });
    expect(await readOperatorToken({ env: {} })).toEqual({ ok: true, value: undefined });
    const missing = await readOperatorToken({ file: join(dir, 'nope') });
    expect(missing).toMatchObject({ ok: false, detail: expect.stringMatching(/check --register-token-file/) });
    const r = await cookwala([
      'executor',
      '--data',
      join(dir, 'dev'),
      '--sequencer',
      'http://127.0.0.1:9',
      '--log',
      LOG,
      '--register-token-file',
      join(dir, 'nope'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cookwala executor: cannot read .*nope \(ENOENT\): check --register-token-file$/m);
  });
});

describe('4. one line and exit 2 for each environment fault', () => {
  let fake: Server;
  afterAll(() => new Promise<void>((r) => (fake ? fake.close(() => r()) : r())));

  it('export --url at a witness: "this is not a sequencer"; at a closed port: nothing listens', async () => {
    const k = testKey('w-fake', 'witness');
    fake = createHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      const peer = '12D3KooWGBTcd5c4ymgPbqYugTDnhFHtLief3bZfPzhE3rBzYTNR';
      if (req.url === '/.well-known/cookwala.json') return res.end(JSON.stringify({ keys: [k.keyRecord], logs: [LOG] }));
      if (req.url === '/v1/logs')
        return res.end(JSON.stringify({ peerId: peer, multiaddrs: [`/ip4/127.0.0.1/tcp/4999/p2p/${peer}`], logs: [] }));
      res.statusCode = 404;
      res.end('{"code":"not_found"}');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
    const out = join(await tmp.make(), 'b.ndjson');
    const r = await cookwala(['export', '--url', url, '--log', LOG, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `cookwala export: ${url} is a cookwala witness, not a sequencer: point --url at the sequencer (\`cookwala sequencer\` prints its URL)`,
    );
    // the same URL is what `policy add-witness --url` wants: the witness's card from its status API
    const seq = join(out, '..', 'seq');
    expect((await cookwala(['init', '--data', seq, '--log', LOG])).code).toBe(0);
    const add = await cookwala(['policy', 'add-witness', '--data', seq, '--url', url]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(
      /added witness wit-w-fake \(test:w-fake\) .*quorum 1 of 1\nwitness .*\npeer \/ip4\/127.0.0.1\/tcp\/4999\/p2p\/12D3KooW/,
    );
    // a closed port: one line naming --url
    const closed = `http://127.0.0.1:${await freePort()}`;
    const s = await cookwala(['policy', 'add-witness', '--data', seq, '--url', closed]);
    expect(s.code).toBe(2);
    expect(s.stderr.trim()).toBe(
      `cookwala policy add-witness: nothing listens at ${closed} (connection refused): is the service running, and is --url right?`,
    );
  });

  it('a busy sequencer port: one line naming --port, exit 2', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const seq = join(await tmp.make(), 'seq');
      expect((await cookwala(['init', '--data', seq, '--log', LOG, '--port', String(port)])).code).toBe(0);
      const r = await cookwala(['sequencer', '--data', seq]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `^cookwala sequencer: cannot listen on 127.0.0.1:${port}: the port is in use \\(another sequencer\\?\\): stop it, or pass --port N`,
          'm',
        ),
      );
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a busy witness port and a bad --bootstrap: one line each, exit 2', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const w = join(await tmp.make(), 'w');
      expect((await cookwala(['witness', 'init', '--data', w, '--listen', `/ip4/127.0.0.1/tcp/${port}`])).code).toBe(0);
      const busy = await cookwala(['witness', '--data', w]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toMatch(new RegExp(`^cookwala witness: cannot listen on /ip4/127.0.0.1/tcp/${port} \\(the port is in use`, 'm'));
      expect(busy.stderr).not.toMatch(/faultTolerance|\n\s+at /);
      const boot = await cookwala(['witness', '--data', w, '--bootstrap', '/ip4/127.0.0.1/tcp/4001']);
      expect(boot.code).toBe(2);
      expect(boot.stderr.trim()).toMatch(
        /^cookwala witness: --bootstrap \/ip4\/127.0.0.1\/tcp\/4001 is not a multiaddr ending in \/p2p\/<peerId>/,
      );
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it("verify given an event proof, a fork list or another log's policy: one line naming what to use", async () => {
    expect(wrongInput('e17.json', { kind: 'EventProof' }, LOG, 'p.json')).toBe(
      'e17.json is an event proof, not an audit bundle: check it with `cookwala verify-event e17.json --policy p.json`',
    );
    expect(wrongInput('f.json', { forks: [] }, LOG, 'p.json')).toMatch(
      /fork proof, not an audit bundle: check it with `cookwala verify-fork f.json/,
    );
    expect(wrongInput('b.ndjson', { type: 'cookwala-audit-bundle', log: LOG }, LOG, 'p.json')).toBeUndefined();
    // Another log's bundle only when its signed descriptor agrees; a header alone naming another log is tampering.
    expect(wrongInput('b.ndjson', { type: 'cookwala-audit-bundle', log: 'other.example/x' }, LOG, 'p.json', 'other.example/x')).toMatch(
      /is the bundle of log other\.example\/x/,
    );
    expect(wrongInput('b.ndjson', { type: 'cookwala-audit-bundle', log: 'other.example/x' }, LOG, 'p.json', LOG)).toBeUndefined();
    const dir = await tmp.make();
    const s = testKey('seq-v', 'sequencer');
    await writeFile(
      join(dir, 'policy.json'),
      JSON.stringify({ kind: 'WitnessPolicy', log: 'other.example/x', sequencer: s.keyRecord, witnesses: [], quorum: 0 }),
    );
    await writeFile(
      join(dir, 'b.ndjson'),
      JSON.stringify({
        type: 'cookwala-audit-bundle',
        schema_version: '1.0',
        log: LOG,
        mode: 'full',
        seq: 0,
        checkpoints: 0,
        exportedAt: '2026-12-01T00:00:00Z',
      }) + '\n',
    );
    await writeFile(join(dir, 'e.json'), JSON.stringify({ kind: 'EventProof', entry: {} }, null, 2) + '\n'); // as `cookwala proof` writes it
    const other = await cookwala(['verify', join(dir, 'b.ndjson'), '--policy', join(dir, 'policy.json')]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(
      /is the bundle of log setup.example\/missions\/m-1, but .* is the policy of other.example\/x: pass the policy of setup.example\/missions\/m-1 as --policy/,
    );
    const proof = await cookwala(['verify', join(dir, 'e.json'), '--policy', join(dir, 'policy.json')]);
    expect(proof.code).toBe(2);
    expect(proof.stderr).toMatch(/is an event proof, not an audit bundle: check it with `cookwala verify-event/);
  });
});
