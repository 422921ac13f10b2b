// The C2SP tlog-witness HTTP client (c2sp-http.ts; tlog-witness at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9) against a real node:http server answering fixed
// replies: the request body is exactly `old N`, base64 proof lines, a blank line and the signed
// note with only the log's note signature; each status maps to its outcome (409 + size ->
// conflict/knownSeq; 409 without size and 422 -> inconsistent; 403 bad_signature; 404
// unknown_log; 429 retried after Retry-After, then rate_limited; a 200 whose cosignature does
// not verify -> bad_signature); Retry-After parses as seconds or a date.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addCheckpointBody, createC2spWitnessConnection, retryAfterMs } from './c2sp-http.ts';
import { addCosignature, buildCheckpoint, cosignCheckpoint, withLogNoteSignature } from '../../verifier/documents/checkpoint.ts';
import { checkpointNoteBody, checkpointToNote } from '../../verifier/documents/checkpoint-c2sp.ts';
import { createNoteSigner, formatSignerKey, signNote, SIG_COSIGNATURE_V1 } from '../../verifier/c2sp/note/index.ts';
import { at, fakeHash, keyFor, LOG, seed, signerFor } from '../../testkit/verifier-fixtures.ts';
import type { KeyRecord } from '../../verifier/signing/keys.ts';

const seqSigner = signerFor('EdDSA', 'seq-1', 81);
const skey = formatSignerKey('w.example', SIG_COSIGNATURE_V1, seed(82));
const cosigner = createNoteSigner(skey, { now: () => Date.parse('2026-11-30T10:00:09.000Z') });
if (!cosigner.ok) throw new Error(cosigner.detail);
const witnessKey = (url: string): KeyRecord => ({
  ...keyFor(signerFor('EdDSA', 'w-1', 82), 'witness', 'w.example'),
  vkey: cosigner.value.vkey,
  url,
});
const cp = withLogNoteSignature(
  buildCheckpoint({ log: LOG, seq: 9, head: fakeHash('ab'), root: fakeHash('cd') }, seqSigner, at(1)),
  seqSigner,
  at(1),
);
const req = {
  type: 'add-checkpoint' as const,
  oldSeq: 4,
  consistency: [fakeHash('01'), fakeHash('02')],
  headProof: [],
  checkpoint: addCosignature(cp, cosignCheckpoint(cp, signerFor('EdDSA', 'w-9', 90), at(2))),
};

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server answering each request with the next of `replies`; bodies received are collected. */
async function serve(replies: Array<{ status: number; body?: string; type?: string; headers?: Record<string, string> }>) {
  const bodies: string[] = [];
  server = createServer((q, s) => {
    const chunks: Buffer[] = [];
    q.on('data', (c: Buffer) => chunks.push(c));
    q.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      const r = replies.shift() ?? { status: 500 };
      s.writeHead(r.status, { 'content-type': r.type ?? 'text/plain', ...r.headers });
      s.end(r.body ?? '');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/prefix/`, bodies };
}

function conn(url: string, maxRetries = 3) {
  const waits: number[] = [];
  const c = createC2spWitnessConnection({ witness: witnessKey(url), origin: LOG, maxRetries, sleep: async (ms) => void waits.push(ms) });
  return { c, waits };
}

describe('the C2SP witness HTTP client', () => {
  it('sends the tlog-witness body: old size, base64 proof, blank line, the note with the log signature only', async () => {
    const body = addCheckpointBody(req);
    const note = checkpointToNote({ ...cp, signature: cp.signature.filter((s) => s.alg === 'note-ed25519') });
    if (!body.ok || !note.ok) throw new Error('no body');
    expect(body.value).toBe(
      `old 4\n${Buffer.alloc(31).toString('base64').slice(0, 0)}${Buffer.from(fakeHash('01').slice(7), 'hex').toString('base64')}\n${Buffer.from(fakeHash('02').slice(7), 'hex').toString('base64')}\n\n${note.value}`,
    );
    expect(body.value.match(/\u2014 /g)).toHaveLength(1);
    expect(addCheckpointBody({ ...req, consistency: Array(64).fill(fakeHash('01')) })).toMatchObject({ ok: false, code: 'bad_request' });
    const s = await serve([{ status: 409, body: '7\n', type: 'text/x.tlog.size' }]);
    const { c } = conn(s.url);
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'conflict', knownSeq: 7 } });
    expect(s.bodies).toEqual([body.value]);
  });

  it('maps 200 to a verified cosignature/v1 and refuses one that does not verify', async () => {
    const body = checkpointNoteBody(cp);
    if (!body.ok) throw new Error(body.detail);
    const line = (signNote(body.value, [cosigner.value]) as { ok: true; value: string }).value.split('\n\n')[1];
    const tampered = line.replace(/([A-Za-z0-9])(=*\n)$/, (_m, ch: string, tail: string) => `${ch === 'A' ? 'B' : 'A'}${tail}`);
    const other = createNoteSigner(formatSignerKey('other.example', SIG_COSIGNATURE_V1, seed(83)));
    if (!other.ok) throw new Error(other.detail);
    const foreign = (signNote(body.value, [other.value]) as { ok: true; value: string }).value.split('\n\n')[1];
    const s = await serve([
      { status: 200, body: line },
      { status: 200, body: tampered },
      { status: 200, body: foreign },
      { status: 200, body: '' },
    ]);
    const { c } = conn(s.url);
    expect(await c.request(req)).toMatchObject({
      ok: true,
      value: {
        ok: true,
        cosignature: { alg: 'cosignature/v1', kid: `w.example+${cosigner.value.keyId}`, signedAt: '2026-11-30T10:00:09.000Z' },
      },
    });
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'bad_signature' } });
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'unknown_key' } });
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'bad_signature' } }); // no signature line at all
  });

  it('maps the refusals: 409 without a size and 422 inconsistent, 403 bad_signature, 404 unknown_log, 400 bad_request', async () => {
    const s = await serve([
      { status: 409, body: 'conflict' },
      { status: 409, body: '12', type: 'text/x.tlog.size' },
      { status: 422 },
      { status: 403 },
      { status: 404 },
      { status: 400 },
      { status: 502 },
    ]);
    const { c } = conn(s.url);
    const codes = [];
    for (let i = 0; i < 7; i++) {
      const r = await c.request(req);
      codes.push(r.ok && !r.value.ok ? r.value.code : 'cosigned');
    }
    expect(codes).toEqual([
      'inconsistent',
      'inconsistent',
      'inconsistent',
      'bad_signature',
      'unknown_log',
      'bad_request',
      'witness_unavailable',
    ]);
  });

  it('backs off on 429 for Retry-After, then gives up with rate_limited', async () => {
    const s = await serve([
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 429 },
      { status: 429, headers: { 'retry-after': '99999' } },
    ]);
    const { c, waits } = conn(s.url, 2);
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'rate_limited', status: 429 } });
    expect(waits).toEqual([2000, 1000]);
    expect(s.bodies).toHaveLength(3);
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(new Date(Date.parse('2026-01-01T00:00:10Z')).toUTCString(), Date.parse('2026-01-01T00:00:00Z'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('reports an unreachable witness as witness_unavailable', async () => {
    const s = await serve([]);
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const { c } = conn(s.url);
    expect(await c.request(req)).toMatchObject({ ok: true, value: { ok: false, code: 'witness_unavailable' } });
  });
});
