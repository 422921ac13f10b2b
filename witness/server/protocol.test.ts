// The witness protocol over real libp2p (TCP on 127.0.0.1, noise, yamux) in one process: a
// persistent stream with pipelined requests, every framing fault answered or closed, the node
// still serving afterwards, and the status API; the sequencer's signatures checked on a worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { addCosignature, verifyCheckpoint } from '../../verifier/documents/checkpoint.ts';
import { createWitness, defaultWorkers, type Witness } from './service.ts';
import { openStateStore, type StateStore } from './state.ts';
import { createP2pNode, parseMultiaddr, type P2pNode } from '../wire/p2p-node.ts';
import { createWitnessConnection, cosignatureOf } from '../client/connection.ts';
import { encodeFrame, encodeVarint, MAX_FRAME_BYTES } from '../wire/frame.ts';
import { createFrameChannel } from '../wire/frame-channel.ts';
import { encodeMessage, parseReply, WITNESS_PROTOCOL } from '../wire/messages.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';

const ORIGIN = 'example.org/p2p';
const log = createFakeLog(ORIGIN);
const wkey = testKey('proto', 'witness');
let dir: string;
let state: StateStore;
let witness: Witness;
let client: P2pNode;
let addr: string;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-wproto-');
  state = await openStateStore(join(dir, 'state'));
  witness = createWitness(
    { state, signer: wkey.signer, keyRecord: wkey.keyRecord },
    {
      peerKey: await generateKeyPair('Ed25519'),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      httpPort: 0,
      logs: [{ log: ORIGIN, sequencer: log.keyRecord }],
      // As the CLI runs it on two cores (defaultWorkers): signatures checked on two workers, so
      // pipelined requests are decided out of order and must still be answered in order
      // (add-checkpoint.test.ts covers inline).
      verifyWorkers: defaultWorkers(2).verifyWorkers,
    },
  );
  const info = await witness.start();
  addr = info.multiaddrs[0];
  client = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] });
});

afterAll(async () => {
  await client?.stop();
  await witness?.stop();
  await state?.close();
  await removeDir(dir);
});

async function rawExchange(bytes: Uint8Array, close = false) {
  const stream = await client.dialProtocol(parseMultiaddr(addr), WITNESS_PROTOCOL);
  const ch = createFrameChannel(stream);
  stream.send(bytes);
  if (close) await stream.close();
  const first = await ch.next();
  const second = 'frame' in first ? await ch.next() : first;
  await ch.close();
  return { first, second };
}

describe('witness protocol over libp2p', () => {
  it('answers pipelined requests on one stream in order; cosignatures verify under a policy', async () => {
    const conn = createWitnessConnection(client, addr);
    log.append(4);
    const first = await log.request(0);
    const cps = [first];
    for (let i = 0; i < 5; i++) {
      const old = log.size;
      log.append(3);
      cps.push(await log.request(old));
    }
    const replies = await Promise.all(cps.map((r) => conn.request(r)));
    const sigs = replies.map(cosignatureOf);
    expect(sigs.every((s) => s.ok)).toBe(true);
    const policy = { kind: 'WitnessPolicy' as const, log: ORIGIN, sequencer: log.keyRecord, witnesses: [wkey.keyRecord], quorum: 1 };
    for (const [i, s] of sigs.entries())
      if (s.ok) expect(verifyCheckpoint(addCosignature(cps[i].checkpoint, s.value), policy).ok).toBe(true);
    // A conflict reply carries knownSeq for the resend.
    const known = log.size;
    log.append(1);
    const stale = await conn.request(await log.request(4));
    expect(stale).toMatchObject({ ok: true, value: { ok: false, code: 'conflict', knownSeq: known } });
    expect(cosignatureOf(await conn.request(await log.request(known))).ok).toBe(true);
    await conn.close();
  });

  it('bad JSON, unknown types, unknown logs and bad signatures get a code and the stream stays usable', async () => {
    const stream = await client.dialProtocol(parseMultiaddr(addr), WITNESS_PROTOCOL);
    const ch = createFrameChannel(stream);
    const ask = async (bytes: Uint8Array) => {
      await ch.send(bytes);
      const n = await ch.next();
      if (!('frame' in n)) throw new Error('no reply');
      const r = parseReply(n.frame);
      return r.ok && !r.value.ok ? r.value.code : r.ok ? 'ok' : r.code;
    };
    expect(await ask(new TextEncoder().encode('{not json'))).toBe('bad_json');
    expect(await ask(encodeMessage({ type: 'get-everything' }))).toBe('unknown_message_type');
    const other = createFakeLog('example.org/not-followed');
    other.append(1);
    expect(await ask(encodeMessage(await other.request(0)))).toBe('unknown_log');
    expect(await ask(encodeMessage({ type: 'add-checkpoint', oldSeq: 0 }))).toBe('invalid_document');
    // The followed log's kid, a signature that does not verify: the worker's no, bad_signature.
    const req = await log.request(log.size);
    const s0 = req.checkpoint.signature[0];
    const broken = { ...s0, sig: (s0.sig[0] === 'A' ? 'B' : 'A') + s0.sig.slice(1) };
    const forged = { ...req, checkpoint: { ...req.checkpoint, signature: [broken] } };
    expect(await ask(encodeMessage(forged))).toBe('bad_signature');
    expect(await ask(encodeMessage(req))).toBe('ok');
    await ch.close();
  });

  it('an oversized frame is answered message_too_large and the stream closed; a bad varint malformed_frame', async () => {
    const big = await rawExchange(encodeVarint(MAX_FRAME_BYTES + 1));
    expect('frame' in big.first && parseReply(big.first.frame)).toMatchObject({
      ok: true,
      value: { ok: false, code: 'message_too_large' },
    });
    expect('end' in big.second).toBe(true);
    const bad = await rawExchange(Uint8Array.from([0x80, 0x80, 0x00]));
    expect('frame' in bad.first && parseReply(bad.first.frame)).toMatchObject({ ok: true, value: { ok: false, code: 'malformed_frame' } });
    // A truncated frame followed by a close: no reply, no crash.
    const cut = await rawExchange(encodeFrame(new Uint8Array(100)).subarray(0, 50), true);
    expect('end' in cut.first).toBe(true);
    // The node still serves.
    const conn = createWitnessConnection(client, addr);
    const r = await conn.request(await log.request(log.size));
    expect(cosignatureOf(r).ok).toBe(true);
    await conn.close();
  });

  it('the status API lists the log with its cosigned checkpoint, the key and metrics', async () => {
    const logs = await witness.app.inject({ method: 'GET', url: '/v1/logs' });
    expect(logs.statusCode).toBe(200);
    const body = logs.json();
    expect(body.logs[0]).toMatchObject({ log: ORIGIN, seq: log.size });
    expect(body.logs[0].checkpoint.signature.map((s: { kid: string }) => s.kid)).toEqual([log.keyRecord.kid, wkey.keyRecord.kid]);
    const wk = await witness.app.inject({ method: 'GET', url: '/.well-known/cookwala.json' });
    expect(wk.json()).toEqual({ keys: [wkey.keyRecord], logs: [ORIGIN] });
    expect((await witness.app.inject({ method: 'GET', url: '/v1/forks' })).json()).toEqual({ forks: [] });
    const m = await witness.app.inject({ method: 'GET', url: '/metrics' });
    expect(m.body).toMatch(/cookwala_witness_requests_total\{code="bad_json"\} 1/);
    expect(m.body).toMatch(/cookwala_witness_cosignatures_total \d+/);
    // The per-log seq gauge is filled in when /metrics renders (not per request): the latest seq.
    expect(m.body).toContain(`cookwala_witness_log_seq{log="${ORIGIN}"} ${log.size}`);
    expect((await witness.app.inject({ method: 'GET', url: '/nope' })).statusCode).toBe(404);
  });
});
