// The read and operator side of the sequencer over the real app and LevelDB: descriptor,
// checkpoints (signed, persisted, verifiable under the init policy), entries as NDJSON (chain and
// root rebuilt from scratch; clamped ranges), payloads, inclusion and consistency proofs that
// verify, erasure (hash_only keeps chain, proofs and device signature; full refuses), key
// registration (signed, persisted across restart, revocation only), operator auth, new logs at
// run time, the well-known document, and 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey, signerKey } from '../testkit/keys.ts';
import { eventStream, makeEvent, signed } from '../testkit/events.ts';
import { parseNdjson, rebuildLog } from '../testkit/verify-log.ts';
import { openSequencer } from '../sequencer/app.ts';
import { verifyLogDescriptor, type LogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { addCosignature, cosignCheckpoint, verifyCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';
import { verifyDocument } from '../verifier/signing/signature.ts';
import { entryLeaf, verifyEntryEventSignature, type Entry } from '../verifier/documents/entry.ts';
import { hashLeaf, verifyConsistency, verifyInclusion } from '../verifier/merkle/index.ts';
import { parseHash } from '../verifier/encoding/wire.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';
import { decodeCookwalasig, eventHash } from '../verifier/cloudevent/read.ts';
import { unwrap } from '../verifier/errors.ts';

const dev = deviceKey(11);
const FULL = 'test.example/full-log';
let t: TestSequencer;
const auth = () => ({ authorization: `Bearer ${t.token}` });
const h32 = (s: string) => {
  const r = parseHash(s);
  if (!r.ok) throw new Error(r.detail);
  return r.value;
};

beforeAll(async () => {
  t = await startSequencer({ logs: ['test.example/hash-log'], devices: [dev] });
  const s = eventStream(dev);
  for (let i = 0; i < 3; i++) expect((await t.post([s.next('exec-1'), s.next('exec-2'), s.next('exec-3')])).statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await rm(t.dir, { recursive: true, force: true });
});

const sequencerKey = () => t.seq.ctx.keyRecord;

async function entries(from?: number, to?: number) {
  const q = [from === undefined ? '' : `from=${from}`, to === undefined ? '' : `to=${to}`].filter(Boolean).join('&');
  const r = await t.get(logPath(t.log, `/entries${q ? `?${q}` : ''}`));
  return { r, list: parseNdjson<Entry>(r.body) };
}

describe('descriptor and checkpoints', () => {
  it('serves the signed descriptor, which verifies with the sequencer key', async () => {
    const d = (await t.get(logPath(t.log))).json() as LogDescriptor;
    expect(d).toMatchObject({ kind: 'Log', log: t.log, mode: 'hash_only', sequencer: sequencerKey().kid });
    expect(verifyLogDescriptor(d, sequencerKey(), { log: t.log }).ok).toBe(true);
  });

  it('no checkpoint until one is signed; then the latest, persisted, verifying under policy.json', async () => {
    expect((await t.get(logPath(t.log, '/checkpoint'))).statusCode).toBe(404);
    await t.seq.tick();
    const cp = (await t.get(logPath(t.log, '/checkpoint'))).json() as Checkpoint;
    expect(cp.seq).toBe(t.headSeq());
    const policy = readWitnessPolicy(JSON.parse(await readFile(join(t.dir, 'policy.json'), 'utf8')));
    expect(policy.ok && policy.value.quorum).toBe(0);
    if (!policy.ok) throw new Error();
    expect(verifyCheckpoint(cp, { ...policy.value, log: t.log }).ok).toBe(true);
    expect(await t.seq.logs.get(t.log)!.store.checkpoint(cp.seq)).toEqual(cp);
    const { list } = await entries();
    const d = t.seq.logs.get(t.log)!.descriptor;
    const rebuilt = rebuildLog(d.hash, list);
    expect(rebuilt.head).toBe(cp.head);
    expect(rebuilt.roots[cp.seq]).toBe(cp.root);
    // an unmoved head signs nothing new
    const signedBefore = t.seq.logs.get(t.log)!.checkpoints.latestSigned();
    await t.seq.tick();
    expect(t.seq.logs.get(t.log)!.checkpoints.latestSigned()).toBe(signedBefore);
    expect((await t.get(logPath(t.log, '/checkpoint'))).json()).toEqual(cp);
    // a cosignature stored after publication is served with the published checkpoint
    const w = signerKey('late', 'witness');
    const store = t.seq.logs.get(t.log)!.store;
    await store.putCheckpoint(addCosignature(cp, cosignCheckpoint(cp, w.signer, '2026-11-30T09:30:00.000Z')));
    const served = (await t.get(logPath(t.log, '/checkpoint'))).json() as Checkpoint;
    // witnesses come before the log's C2SP note signature, which stays last (docs/design.md §4)
    expect(served.signature.map((s) => s.kid)).toEqual([cp.signature[0].kid, w.record.kid, ...cp.signature.slice(1).map((s) => s.kid)]);
    expect(served.signature.at(-1)?.alg).toBe('note-ed25519');
    expect(verifyCheckpoint(served, { ...policy.value, log: t.log, witnesses: [w.record], quorum: 1 }).ok).toBe(true);
  });
});

describe('entries and proofs', () => {
  it('streams entries as NDJSON in seq order and says which range it sent', async () => {
    const { r, list } = await entries(2, 5);
    expect(r.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(r.headers['cookwala-range']).toBe('2-5');
    expect(r.headers['cookwala-clamped']).toBeUndefined();
    expect(list.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    const past = await entries(1, 1000);
    expect(past.r.headers['cookwala-clamped']).toBe('true');
    expect(past.list.length).toBe(t.headSeq());
    expect((await entries(t.headSeq() + 1)).list).toEqual([]);
    expect((await t.get(logPath(t.log, '/entries?from=0'))).statusCode).toBe(400);
    expect((await t.get(logPath(t.log, '/entries?from=3&to=2'))).json().code).toBe('bad_request');
    expect((await t.get(logPath(t.log, '/entries?from=abc'))).json().code).toBe('bad_request');
    expect((await t.get(logPath(t.log, '/entries?frm=1'))).statusCode).toBe(400);
  });

  it('inclusion proofs verify for every seq and size, against the rebuilt roots', async () => {
    const { list } = await entries();
    const rebuilt = rebuildLog(t.seq.logs.get(t.log)!.descriptor.hash, list);
    const n = list.length;
    for (let size = 1; size <= n; size++) {
      for (let seq = 1; seq <= size; seq++) {
        const p = (await t.get(logPath(t.log, `/proof/inclusion?seq=${seq}&size=${size}`))).json();
        expect(p).toMatchObject({ seq, size, leafIndex: seq - 1, root: rebuilt.roots[size] });
        const v = verifyInclusion(hashLeaf(entryLeaf(list[seq - 1])), seq - 1, size, p.proof.map(h32), h32(p.root));
        expect(v.ok).toBe(true);
      }
    }
    const dflt = (await t.get(logPath(t.log, '/proof/inclusion?seq=1'))).json();
    expect(dflt.size).toBe(n);
  });

  it('consistency proofs verify between every pair of sizes', async () => {
    const n = t.headSeq();
    for (let from = 1; from <= n; from++) {
      for (let to = from; to <= n; to++) {
        const p = (await t.get(logPath(t.log, `/proof/consistency?from=${from}&to=${to}`))).json();
        expect(verifyConsistency(from, to, p.proof.map(h32), h32(p.root1), h32(p.root2)).ok, `${from}..${to}`).toBe(true);
      }
    }
    const zero = (await t.get(logPath(t.log, '/proof/consistency?from=0&to=2'))).json();
    expect(zero.proof).toEqual([]);
    expect(zero.root1).toBeUndefined();
  });

  it('refuses proofs outside the tree', async () => {
    const n = t.headSeq();
    for (const q of [`seq=${n + 1}`, `seq=2&size=1`, `seq=1&size=${n + 1}`, 'seq=0', '', 'seq=1&size=x']) {
      const r = await t.get(logPath(t.log, `/proof/inclusion?${q}`));
      expect(r.statusCode, q).toBe(400);
      expect(r.json().code).toBe('bad_request');
    }
    expect((await t.get(logPath(t.log, `/proof/consistency?from=2&to=1`))).statusCode).toBe(400);
    expect((await t.get(logPath(t.log, `/proof/consistency?from=1&to=${n + 1}`))).statusCode).toBe(400);
  });

  it('clamps a range to 10,000 entries', async () => {
    const h = t.seq.logs.get(t.log)!;
    const s = eventStream(dev);
    const need = 10_050 - t.headSeq();
    const cands = Array.from({ length: need }, () => s.next('bulk'));
    // bulk through the committer (the HTTP path is covered elsewhere); signatures are real anyway
    const out = await h.committer.submit(
      cands.map((ce) => ({ ce, eventHash: unwrap(eventHash(ce)), signature: unwrap(decodeCookwalasig(ce.cookwalasig!)) })),
    );
    expect(out.every((o) => o.ok)).toBe(true);
    const { r, list } = await entries();
    expect(list.length).toBe(10_000);
    expect(r.headers['cookwala-range']).toBe('1-10000');
    expect(r.headers['cookwala-clamped']).toBe('true');
    const next = await entries(10_001);
    expect(next.list.map((e) => e.seq)).toEqual(Array.from({ length: t.headSeq() - 10_000 }, (_, i) => 10_001 + i));
  });
});

describe('payloads and erasure', () => {
  it('serves payloads; 404 beyond the head', async () => {
    const p = await t.get(logPath(t.log, '/events/1'));
    expect(p.statusCode).toBe(200);
    expect(p.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    expect((await t.get(logPath(t.log, `/events/${t.headSeq() + 1}`))).json().code).toBe('not_found');
    expect((await t.get(logPath(t.log, '/events/0'))).json().code).toBe('bad_request');
  });

  it('erasure needs the operator token and a clean body', async () => {
    const url = logPath(t.log, '/events/2/payload');
    const before = t.headSeq();
    const none = await t.seq.app.inject({ method: 'DELETE', url, payload: { reason: 'x' } });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthorized');
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const wrong = await t.seq.app.inject({
      method: 'DELETE',
      url,
      headers: { authorization: 'Bearer ' + 'x'.repeat(43) },
      payload: { reason: 'x' },
    });
    expect(wrong.statusCode).toBe(401);
    const extra = await t.seq.app.inject({ method: 'DELETE', url, headers: auth(), payload: { reason: 'x', also: 1 } });
    expect(extra.json().code).toBe('unknown_field');
    const noReason = await t.seq.app.inject({ method: 'DELETE', url, headers: auth(), payload: {} });
    expect(noReason.json().code).toBe('invalid_document');
    expect(t.headSeq()).toBe(before);
  });

  it('hash_only: erasing keeps the chain, the proofs and the device signature; appends one signed erased entry', async () => {
    const url = logPath(t.log, '/events/2/payload');
    const erased = (await t.get(logPath(t.log, '/entries?from=2&to=2'))).body;
    const before = t.headSeq();
    const r = await t.seq.app.inject({ method: 'DELETE', url, headers: auth(), payload: { reason: 'consent withdrawn' } });
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ seq: before + 1, erased: { seq: 2, reason: 'consent withdrawn', erasureSeq: before + 1 } });
    expect(t.headSeq()).toBe(before + 1);
    const gone = await t.get(logPath(t.log, '/events/2'));
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ code: 'payload_erased', erasure: { seq: 2, reason: 'consent withdrawn' } });
    // the entry is byte-for-byte the same, and the log still rebuilds
    expect((await t.get(logPath(t.log, '/entries?from=2&to=2'))).body).toBe(erased);
    const { list } = await entries(1, 10_000);
    expect(() => rebuildLog(t.seq.logs.get(t.log)!.descriptor.hash, list)).not.toThrow();
    const e2 = list[1];
    expect(verifyEntryEventSignature(e2, (kid) => (kid === dev.record.kid ? dev.record : undefined)).ok).toBe(true);
    const p = (await t.get(logPath(t.log, `/proof/inclusion?seq=2`))).json();
    expect(verifyInclusion(hashLeaf(entryLeaf(e2)), 1, p.size, p.proof.map(h32), h32(p.root)).ok).toBe(true);
    // the erased entry: type, data, signed by the sequencer from its own source
    const last = (await t.seq.logs.get(t.log)!.store.getEntry(body.seq))!;
    expect(last.ce).toMatchObject({ type: 'cookwala.log.erased', source: `cookwala:sequencer/${t.log}` });
    expect(
      verifyEntryEventSignature(last, (kid) => (kid === sequencerKey().kid ? sequencerKey() : undefined), {
        role: 'sequencer',
        checkSource: false,
      }).ok,
    ).toBe(true);
    const payload = (await t.get(logPath(t.log, `/events/${body.seq}`))).json();
    expect(payload.data).toEqual({ seq: 2, eventHash: e2.eventHash, reason: 'consent withdrawn' });
    // erasing again: 410 with the record, nothing appended
    const again = await t.seq.app.inject({ method: 'DELETE', url, headers: auth(), payload: { reason: 'again' } });
    expect(again.statusCode).toBe(410);
    expect(t.headSeq()).toBe(before + 1);
    const missing = await t.seq.app.inject({
      method: 'DELETE',
      url: logPath(t.log, `/events/${t.headSeq() + 5}/payload`),
      headers: auth(),
      payload: { reason: 'x' },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('full mode refuses erasure with mode_forbids_erasure', async () => {
    const add = await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth(), payload: { log: FULL, mode: 'full' } });
    expect(add.statusCode, add.body).toBe(201);
    expect((await t.registerKey(dev.record, FULL)).statusCode).toBe(201);
    expect((await t.post(eventStream(dev).next('f'), { log: FULL })).statusCode).toBe(201);
    const r = await t.seq.app.inject({
      method: 'DELETE',
      url: logPath(FULL, '/events/1/payload'),
      headers: auth(),
      payload: { reason: 'x' },
    });
    expect(r.statusCode).toBe(409);
    expect(r.json().code).toBe('mode_forbids_erasure');
    expect(t.headSeq(FULL)).toBe(1);
    expect((await t.get(logPath(FULL, '/events/1'))).statusCode).toBe(200);
  });
});

describe('logs', () => {
  it('POST /v1/logs: operator only, log_exists for a hosted origin, bad origins refused, recorded in config.json', async () => {
    expect((await t.seq.app.inject({ method: 'POST', url: '/v1/logs', payload: { log: 'a.example/b', mode: 'full' } })).statusCode).toBe(
      401,
    );
    const dup = await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth(), payload: { log: FULL, mode: 'full' } });
    expect(dup.json().code).toBe('log_exists');
    const bad = await t.seq.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: auth(),
      payload: { log: 'https://x.example/y', mode: 'full' },
    });
    expect(bad.json().code).toBe('invalid_origin');
    const cfg = JSON.parse(await readFile(join(t.dir, 'config.json'), 'utf8'));
    expect(cfg.logs.map((l: { log: string }) => l.log)).toContain(FULL);
    const wk = (await t.get('/.well-known/cookwala.json')).json();
    expect(wk.logs).toEqual(expect.arrayContaining([t.log, FULL]));
    expect(wk.keys).toHaveLength(1);
    const k = wk.keys[0] as KeyRecord;
    expect(k).toMatchObject({ role: 'sequencer', kid: sequencerKey().kid });
    expect(verifyDocument(k as unknown as JsonObject, (kid) => (kid === k.kid ? k : undefined)).ok).toBe(true);
  });

  it('unknown logs are not_found on every log route', async () => {
    for (const p of ['', '/checkpoint', '/entries', '/events/1', '/proof/inclusion?seq=1', '/proof/consistency?from=1', '/keys']) {
      const r = await t.get(logPath('nope.example/x', p));
      expect(r.statusCode, p).toBe(404);
      expect(r.json().code).toBe('not_found');
    }
  });
});

describe('device keys', () => {
  const fresh = deviceKey(12);
  it('registers a device key signed by the sequencer; identical again is 200; changes are key_conflict; revocation only adds revokedAt', async () => {
    expect((await t.seq.app.inject({ method: 'POST', url: logPath(t.log, '/keys'), payload: fresh.record })).statusCode).toBe(401);
    const r = await t.registerKey(fresh.record);
    expect(r.statusCode).toBe(201);
    const rec = r.json() as KeyRecord;
    expect(rec.signature?.kid).toBe(sequencerKey().kid);
    expect(
      verifyDocument(rec as unknown as JsonObject, (kid) => (kid === sequencerKey().kid ? sequencerKey() : undefined), {
        role: 'sequencer',
      }).ok,
    ).toBe(true);
    const again = await t.registerKey(fresh.record);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(rec);
    const other = deviceKey(13).record;
    expect((await t.registerKey({ ...fresh.record, publicKey: other.publicKey })).json().code).toBe('key_conflict');
    expect((await t.registerKey({ ...fresh.record, owner: 'cookwala:device/else' })).json().code).toBe('key_conflict');
    expect((await t.registerKey({ ...fresh.record, color: 'red' } as unknown as KeyRecord)).json().code).toBe('unknown_field');
    expect((await t.registerKey(signerKey('w', 'witness').record)).json().code).toBe('invalid_document');
    expect((await t.registerKey({ ...deviceKey(14).record, owner: `cookwala:sequencer/${t.log}` })).json().code).toBe('invalid_document');
    const rev = await t.registerKey({ ...fresh.record, revokedAt: '2026-12-01T00:00:00.000Z' });
    expect(rev.statusCode).toBe(201);
    expect((await t.registerKey({ ...fresh.record, revokedAt: '2026-12-02T00:00:00.000Z' })).json().code).toBe('key_conflict');
    const list = (await t.get(logPath(t.log, '/keys'))).json();
    expect(list.kind).toBe('KeyCache');
    expect(list.keys.find((k: KeyRecord) => k.kid === fresh.record.kid).revokedAt).toBe('2026-12-01T00:00:00.000Z');
  });

  it('registered keys are durable: a restarted sequencer still has them and accepts their events', async () => {
    const keysBefore = (await t.get(logPath(t.log, '/keys'))).json();
    const head = t.headSeq();
    await t.seq.close();
    t.seq = await openSequencer(t.dir, { timers: false });
    expect((await t.get(logPath(t.log, '/keys'))).json()).toEqual(keysBefore);
    expect(t.headSeq()).toBe(head);
    expect(t.seq.logs.get(FULL)).toBeDefined(); // the log added at run time is hosted again
    const ce = signed(makeEvent({ source: dev.owner, id: 'after-restart' }), dev);
    expect((await t.post(ce)).statusCode).toBe(201);
    // checkpoint state survived: the published checkpoint is back before any tick
    expect((await t.get(logPath(t.log, '/checkpoint'))).statusCode).toBe(200);
  });
});
