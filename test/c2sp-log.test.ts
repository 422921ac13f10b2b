// Our log as a C2SP log (docs/design.md §4, §7a, §8; C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), end to end with real parts: a real sequencer
// (LevelDB in a temp dir, fastify on 127.0.0.1) whose policy names ONE witness, an independent
// tlog-witness written from the spec (testkit/c2sp-reference.ts: node:http and node:crypto only,
// nothing of ours), reached over HTTP with `url` + `vkey`. Proves: the witness cosigns our
// checkpoints (consistency proofs from its old size included), the quorum counts it, the
// published checkpoint carries its cosignature/v1, and the exported bundle verifies with it in the
// policy, the report naming the form; the sequencer resends from the size a 409 names (after a
// restart), backs off on 429, and never publishes on 422/403/404 (counted per outcome in metrics).
// Then a tiles client written here from tlog-tiles reads the WHOLE log through /tlog/{log}/ alone,
// checks the note signature, the cosignature/v1, every entry's inclusion and the roots, and agrees
// with the JSON API.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { startWitnessing, type WitnessHook } from '../witness/client/sequencer-side.ts';
import { createBundleVerifier } from '../verifier/bundle/verifier.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import { logVkeyOf } from '../verifier/documents/checkpoint-c2sp.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { witnessDisplayName } from '../verifier/signing/witness-identity.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { createManualClock } from '../testkit/clock.ts';
import { deviceKey, FIXTURE_VALID_FROM } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import {
  refInclusionPath,
  refLeafHash,
  refMth,
  refParseCheckpoint,
  refParseNote,
  refParseVkey,
  refVerifyCosignature,
  refVerifyEd25519Note,
  refVerifyInclusion,
  startRefWitness,
  type RefWitness,
} from '../testkit/c2sp-reference.ts';

const LOG = 'c2sp.example/missions/m-11';

let dir: string;
let seq: Sequencer;
let hook: WitnessHook | undefined;
let witness: RefWitness;
let policy: WitnessPolicy;
let logVkey: string;
let base: string;
const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000 - 86_400_000);
const device = deviceKey(11);
const stream = eventStream(device, { signedAt: () => formatTime(clock.now()) });
let posted = 0;

async function open(): Promise<void> {
  hook = await startWitnessing({
    dataDir: dir,
    witnessPeers: [],
    policy,
    metrics: {
      set: (n, v, l) => seq?.metrics.set(n as never, v, l),
      inc: (n, l, k) => seq?.metrics.inc(n as never, l, k),
      observe: (n, v, l) => seq?.metrics.observe(n as never, v, l),
    },
    resubmitMs: 0,
  });
  expect(hook).toBeDefined();
  seq = await openSequencer(dir, { clock, timers: false, publisherFor: hook!.publisherFor((origin) => seq?.logs.get(origin)?.store) });
  await seq.app.listen({ host: '127.0.0.1', port: 0 });
  const a = seq.app.server.address() as { port: number };
  base = `http://127.0.0.1:${a.port}`;
}

async function close(): Promise<void> {
  await seq.close();
  await hook?.close();
}

/** Post `n` events in batches of 100 and sign a checkpoint (the publisher asks the witness). */
async function round(n: number): Promise<Checkpoint | undefined> {
  for (let done = 0; done < n; done += 100) {
    const batch = Array.from({ length: Math.min(100, n - done) }, () => {
      clock.advance(3);
      return stream.next(`exec-${posted++ % 3}`);
    });
    const r = await seq.app.inject({
      method: 'POST',
      url: logPath(LOG, '/events'),
      headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': `c2sp-${posted}` },
      payload: JSON.stringify(batch),
    });
    expect(r.statusCode).toBe(200);
  }
  clock.advance(1000);
  await seq.tick();
  return seq.logs.get(LOG)!.checkpoints.latestPublished();
}

const metric = (name: string, labels: Record<string, string>) => seq.metrics.value(name as never, labels);

let wref: string;
beforeAll(async () => {
  dir = await makeTempDir('cookwala-c2sp-');
  await initDataDir({ dir, logs: [LOG], mode: 'hash_only', now: () => clock.now() });
  const keyRecord = JSON.parse(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const v = logVkeyOf(LOG, keyRecord);
  if (!v.ok) throw new Error(v.detail);
  logVkey = v.value;
  witness = await startRefWitness({ name: 'witness.c2sp.example', logs: [{ origin: LOG, vkey: logVkey }] });
  const w: KeyRecord = {
    kind: 'KeyRecord',
    kid: 'w-ref',
    alg: 'EdDSA',
    publicKey: Buffer.from(witness.publicKey).toString('base64url'),
    owner: 'witness.c2sp.example',
    role: 'witness',
    validFrom: FIXTURE_VALID_FROM,
    vkey: witness.vkey,
    url: witness.url,
  };
  wref = witnessDisplayName(w); // metrics and reports name a witness by its key, not its kid
  const p = readWitnessPolicy({ kind: 'WitnessPolicy', log: LOG, sequencer: keyRecord, witnesses: [w], quorum: 1 });
  if (!p.ok) throw new Error(p.detail);
  policy = p.value;
  await writeFile(join(dir, 'policy.json'), JSON.stringify(policy, null, 2) + '\n');
  await open();
  const reg = await seq.app.inject({
    method: 'POST',
    url: logPath(LOG, '/keys'),
    headers: { authorization: `Bearer ${(await readFile(join(dir, DATA_FILES.token), 'utf8')).trim()}` },
    payload: device.record,
  });
  expect([200, 201]).toContain(reg.statusCode);
}, 30_000);

afterAll(async () => {
  if (seq) await close();
  await witness?.close();
});

describe('an independent C2SP tlog-witness cosigns our checkpoints over HTTP', () => {
  it('cosigns each new checkpoint with a consistency proof from its old size; the quorum counts it', async () => {
    const sizes: number[] = [];
    for (const n of [5, 260, 40]) {
      const cp = await round(n);
      expect(cp).toBeDefined();
      sizes.push(cp!.seq);
      expect(witness.state(LOG)?.size).toBe(cp!.seq);
      expect(cp!.signature.map((s) => s.alg)).toEqual(['EdDSA', 'cosignature/v1', 'note-ed25519']);
      expect(cp!.signature[1].kid).toBe(`${refParseVkey(witness.vkey).name}+${refParseVkey(witness.vkey).id.toString('hex')}`);
      expect(await metric('cookwala_c2sp_witness_cosigned_size', { log: LOG, witness: wref })).toBe(cp!.seq);
      expect(await metric('cookwala_c2sp_witness_last_status', { log: LOG, witness: wref })).toBe(200);
    }
    expect(sizes).toEqual([5, 265, 305]);
    // Old sizes grew with the witness's state: 0, then 5, then 265 (proofs were checked by the witness).
    expect(witness.answered.filter((a) => a.status === 200).map((a) => a.old)).toEqual([0, 5, 265]);
    // The JSON checkpoint serves the same cosignature, the text one the signed note.
    const j = (await (await fetch(`${base}${logPath(LOG, '/checkpoint')}`)).json()) as Checkpoint;
    expect(j.seq).toBe(305);
    const t = await fetch(`${base}${logPath(LOG, '/checkpoint')}`, { headers: { accept: 'text/plain' } });
    expect(t.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await t.text()).toBe(await (await fetch(`${base}/tlog/${encodeURIComponent(LOG)}/checkpoint`)).text());
  });

  it('the exported bundle verifies with the C2SP witness in the policy, naming its form', async () => {
    const bundle = await (await fetch(`${base}${logPath(LOG, '/bundle')}`)).text();
    const lines = bundle.split('\n').filter((l) => l !== '');
    const ahead = lines
      .map((l) => JSON.parse(l) as { kind?: string; seq?: number })
      .filter((d) => d.kind === 'Checkpoint')
      .map((d) => d.seq!);
    const v = createBundleVerifier({ policy, checkpointSeqs: ahead });
    for (const l of lines) await v.line(l);
    const r = await v.end();
    expect(r.failures).toEqual([]);
    expect(r).toMatchObject({
      valid: true,
      entries: 305,
      witnessedThrough: 305,
      checkpoints: { count: 3, verified: 3, latest: { seq: 305, witnesses: ['w-ref'] } },
    });
    expect(r.checkpoints.cosigned?.map((c) => [c.seq, c.cosigners, c.logNote])).toEqual(
      [5, 265, 305].map((s) => [s, [{ kid: 'w-ref', name: wref, forms: ['cosignature/v1'] }], 'verified']),
    );
    // A witness is its key: without its vkey the policy still holds its Ed25519 key, whose key ID
    // the cosignature/v1 lines carry, so they count; under another key they cannot.
    const byKey = createBundleVerifier({
      policy: { ...policy, witnesses: policy.witnesses.map(({ vkey: _v, url: _u, ...k }) => k) },
      checkpointSeqs: ahead,
    });
    for (const l of lines) await byKey.line(l);
    expect((await byKey.end()).failureCounts.quorum_not_met).toBeUndefined();
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const blind = createBundleVerifier({
      policy: {
        ...policy,
        witnesses: policy.witnesses.map(({ vkey: _v, url: _u, ...k }) => ({ ...k, publicKey: Buffer.from(other).toString('base64url') })),
      },
      checkpointSeqs: ahead,
    });
    for (const l of lines) await blind.line(l);
    expect((await blind.end()).failureCounts.quorum_not_met).toBe(3);
  });

  it('after a restart it resends from the size the witness names in its 409', async () => {
    await close();
    await open(); // a new publisher: it knows nothing of the witness's size and asks with old 0
    const before = witness.answered.length;
    const cp = await round(3);
    expect(cp?.seq).toBe(308);
    expect(witness.answered.slice(before).map((a) => [a.status, a.old])).toEqual([
      [409, 0],
      [200, 305],
    ]);
    expect(await metric('cookwala_c2sp_witness_errors_total', { log: LOG, witness: wref, outcome: 'conflict' })).toBe(1);
  });

  it('backs off on 429 and then cosigns', async () => {
    witness.script({ status: 429, retryAfter: '0' });
    const cp = await round(2);
    expect(cp?.seq).toBe(310);
    expect(witness.answered.slice(-2).map((a) => a.status)).toEqual([429, 200]);
    expect(await metric('cookwala_c2sp_witness_errors_total', { log: LOG, witness: wref, outcome: 'rate_limited' })).toBe(1);
  });

  it('never publishes below quorum: 422 is inconsistency evidence, 403 and 404 misconfiguration', async () => {
    for (const [status, outcome] of [
      [422, 'inconsistent'],
      [403, 'misconfigured'],
      [404, 'misconfigured'],
    ] as const) {
      witness.script({ status });
      const published = seq.logs.get(LOG)!.checkpoints.latestPublished()!.seq;
      await round(1);
      expect(seq.logs.get(LOG)!.checkpoints.latestPublished()!.seq).toBe(published);
      expect(seq.logs.get(LOG)!.checkpoints.latestSigned()!.seq).toBe(published + 1);
      expect(await metric('cookwala_c2sp_witness_last_status', { log: LOG, witness: wref })).toBe(status);
      expect(await metric('cookwala_quorum_missing', { log: LOG })).toBe(1);
      await round(0); // the same checkpoint again: now the witness cosigns it
      expect(seq.logs.get(LOG)!.checkpoints.latestPublished()!.seq).toBe(published + 1);
      expect(await metric('cookwala_quorum_missing', { log: LOG })).toBe(0);
      void outcome;
    }
    expect(await metric('cookwala_c2sp_witness_errors_total', { log: LOG, witness: wref, outcome: 'inconsistent' })).toBe(1);
    expect(await metric('cookwala_c2sp_witness_errors_total', { log: LOG, witness: wref, outcome: 'misconfigured' })).toBe(2);
  });
});

/** A tiles client from c2sp.org/tlog-tiles: index spelling, full and partial tile paths. */
const tileIndex = (n: number): string => {
  const els: string[] = [];
  do {
    els.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return els.map((e, i) => (i < els.length - 1 ? `x${e}` : e)).join('/');
};
const tilePath = (level: number | 'entries', n: number, width: number) =>
  `tile/${level}/${tileIndex(n)}${width < 256 ? `.p/${width}` : ''}`;

describe('the whole log read through /tlog/{log}/ alone', () => {
  it('verifies the note, the cosignature, every entry inclusion and the roots, agreeing with the JSON API', async () => {
    const prefix = `${base}/tlog/${encodeURIComponent(LOG)}/`;
    const res = await fetch(prefix + 'checkpoint');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toMatch(/max-age=[0-9]$/);
    const note = refParseNote(await res.text())!;
    expect(note).toBeDefined();
    expect(refVerifyEd25519Note(note, refParseVkey(logVkey))).toBe(true);
    const cosig = refVerifyCosignature(note, refParseVkey(witness.vkey));
    expect(cosig.ok).toBe(true);
    const cp = refParseCheckpoint(note.text)!;
    expect(cp.origin).toBe(LOG);
    const size = cp.size;
    expect(size).toBeGreaterThan(300);

    // Level-0 tiles and entry bundles for every leaf; each bundle entry hashes to its tile hash.
    const leaves: Buffer[] = [];
    const entryHashes: string[] = [];
    for (let n = 0; n * 256 < size; n++) {
      const width = Math.min(256, size - n * 256);
      const [t, e] = await Promise.all([fetch(prefix + tilePath(0, n, width)), fetch(prefix + tilePath('entries', n, width))]);
      expect([t.status, e.status]).toEqual([200, 200]);
      expect(t.headers.get('content-type')).toBe('application/octet-stream');
      expect(t.headers.get('cache-control')).toBe(width === 256 ? 'public, max-age=31536000, immutable' : 'public, max-age=5');
      const tile = Buffer.from(await t.arrayBuffer());
      const bundle = Buffer.from(await e.arrayBuffer());
      expect(tile.length).toBe(width * 32);
      let off = 0;
      for (let i = 0; i < width; i++) {
        const len = bundle.readUInt16BE(off);
        expect(len).toBe(32);
        const data = bundle.subarray(off + 2, off + 2 + len);
        off += 2 + len;
        expect(refLeafHash(data).equals(tile.subarray(i * 32, i * 32 + 32))).toBe(true);
        entryHashes.push(`sha256:${data.toString('hex')}`);
        leaves.push(tile.subarray(i * 32, i * 32 + 32));
      }
      expect(off).toBe(bundle.length);
    }
    // The level-1 tile holds the MTH of each full level-0 tile (partial: width floor(size/256)).
    const l1 = Buffer.from(await (await fetch(prefix + tilePath(1, 0, Math.floor(size / 256)))).arrayBuffer());
    expect(l1.equals(refMth(leaves, 0, 256))).toBe(true);
    // The root from the leaves is the checkpoint's; every entry's inclusion verifies against it.
    const root = refMth(leaves);
    expect(root.equals(cp.root)).toBe(true);
    for (let i = 0; i < size; i++) expect(refVerifyInclusion(leaves[i], i, size, refInclusionPath(leaves, i), cp.root)).toBe(true);
    // A tile that is not there, a non-canonical index and a width that is not a tile are 404.
    for (const bad of [tilePath(0, 9, 256), 'tile/0/x000/000', 'tile/0/001.p/0', 'tile/0/1', 'tile/64/000'])
      expect((await fetch(prefix + bad)).status).toBe(404);

    // The JSON API agrees: entries, root, an inclusion proof, and an older checkpoint's root (consistency from tiles alone).
    const json = (await (await fetch(`${base}${logPath(LOG, `/entries?from=1&to=${size}`)}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { hash: string });
    expect(json.map((e) => e.hash)).toEqual(entryHashes);
    const jcp = (await (await fetch(`${base}${logPath(LOG, '/checkpoint')}`)).json()) as Checkpoint;
    expect(jcp.root).toBe(`sha256:${cp.root.toString('hex')}`);
    const proof = (await (await fetch(`${base}${logPath(LOG, `/proof/inclusion?seq=100&size=${size}`)}`)).json()) as { proof: string[] };
    expect(proof.proof).toEqual(refInclusionPath(leaves, 99).map((h) => `sha256:${h.toString('hex')}`));
    const first = (await seq.logs.get(LOG)!.store.checkpoint(265))!;
    expect(`sha256:${refMth(leaves, 0, 265).toString('hex')}`).toBe(first.root);
  });
});

describe('the C2SP surface for auditors: well-known vkey, tlog-policy, tlog-proof', () => {
  it("cookwala init prints each log's C2SP vkey", async () => {
    const { run: init } = await import('../sequencer/cli-init.ts');
    const fresh = await makeTempDir('cookwala-c2sp-init-');
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
    try {
      expect(await init(['--data', fresh, '--log', LOG])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const rec = JSON.parse(await readFile(join(fresh, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
    expect(out.join('')).toContain(`  log ${LOG} (hash_only)\n    C2SP vkey ${(logVkeyOf(LOG, rec) as { value: string }).value}\n`);
  });

  it('publishes the log vkey in /.well-known/cookwala.json', async () => {
    const wk = (await (await fetch(`${base}/.well-known/cookwala.json`)).json()) as {
      c2sp: Array<{ log: string; vkey: string; tiles: string }>;
    };
    expect(wk.c2sp).toEqual([{ log: LOG, vkey: logVkey, tiles: `/tlog/${encodeURIComponent(LOG)}/` }]);
  });

  it('converts the policy to tlog-policy text and back with the CLI, unchanged', async () => {
    const { runToTlog, runFromTlog } = await import('../auditor/policy-tlog.ts');
    const [pj, pt, back] = ['p.json', 'p.tlog', 'back.json'].map((f) => join(dir, f));
    await writeFile(pj, JSON.stringify(policy));
    expect(await runToTlog([pj, '--out', pt])).toBe(0);
    const text = await readFile(pt, 'utf8');
    expect(text).toContain(`\nlog ${logVkey}\n`);
    expect(text).toContain(`\nwitness w-ref ${witness.vkey} ${witness.url}\nquorum w-ref\n`);
    expect(await runFromTlog([pt, '--out', back])).toBe(0);
    expect(JSON.parse(await readFile(back, 'utf8'))).toEqual(policy);
  });

  it('cookwala proof --format tlog-proof writes a c2sp.org/tlog-proof@v1 that verify-event and an independent reader accept', async () => {
    const { run: proofCli } = await import('../sequencer/cli-proof.ts');
    const { run: verifyCli } = await import('../auditor/verify-event.ts');
    const { verifyTlogProof } = await import('../verifier/c2sp/tlog-proof.ts');
    const out = join(dir, 'e42.tlog-proof');
    const pj = join(dir, 'policy-audit.json');
    await writeFile(pj, JSON.stringify(policy));
    expect(await proofCli(['--url', base, '--log', LOG, '--seq', '42', '--out', out, '--format', 'tlog-proof'])).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text.split('\n').slice(0, 1)).toEqual(['c2sp.org/tlog-proof@v1']);
    expect(text.split('\n')[2]).toBe('index 41');
    expect(await verifyCli([out, '--policy', pj])).toBe(0);
    const keys = { kind: 'KeyCache', keys: [device.record] };
    const verdict = verifyTlogProof(text, policy, { keys: keys.keys });
    expect(verdict).toMatchObject({
      ok: true,
      value: {
        log: LOG,
        seq: 42,
        signedBy: device.record.kid,
        checkpoint: { witnesses: [expect.stringMatching(/^witness\.c2sp\.example \(wit-/)] },
      },
    });
    // The independent reader: the leaf from extra, the path to the note's root, both signatures.
    const [head, noteText] = [text.slice(0, text.indexOf('\n\n')), text.slice(text.indexOf('\n\n') + 2)];
    const lines = head.split('\n');
    const entry = JSON.parse(Buffer.from(lines[1].slice(6), 'base64').toString('utf8')) as { hash: string; seq: number };
    const note = refParseNote(noteText)!;
    const cp = refParseCheckpoint(note.text)!;
    expect(refVerifyEd25519Note(note, refParseVkey(logVkey)) && refVerifyCosignature(note, refParseVkey(witness.vkey)).ok).toBe(true);
    expect(
      refVerifyInclusion(
        refLeafHash(Buffer.from(entry.hash.slice(7), 'hex')),
        41,
        cp.size,
        lines.slice(3).map((l) => Buffer.from(l, 'base64')),
        cp.root,
      ),
    ).toBe(true);
    // Refusals: an edited entry, a policy whose witness holds another key, a broken header.
    const edited = text.replace(lines[1], `extra ${Buffer.from(JSON.stringify({ ...entry, seq: 43 })).toString('base64')}`);
    expect(verifyTlogProof(edited, policy)).toMatchObject({ ok: false, code: 'entry_hash_mismatch' });
    const stranger = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12)).toString(
      'base64url',
    );
    expect(
      verifyTlogProof(text, {
        ...policy,
        witnesses: policy.witnesses.map(({ vkey: _v, url: _u, ...k }) => ({ ...k, publicKey: stranger })),
      }),
    ).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
    });
    expect(verifyTlogProof(text.replace('tlog-proof@v1', 'tlog-proof@v2'), policy)).toMatchObject({ ok: false, code: 'malformed_proof' });
    expect(verifyTlogProof(text.replace('index 41', 'index 40'), policy)).toMatchObject({ ok: false, code: 'bad_proof' });
  });
});
