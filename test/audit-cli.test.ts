// The audit commands as child processes against a real sequencer:
// `cookwala export` over HTTP (--url) and from the data directory (--data, refused with
// store_locked while the sequencer runs), `cookwala proof` + `cookwala verify-event` (a payload
// present, an erased one, tampered proofs), `cookwala keys fetch/show` from /.well-known, a log's
// keys and a did:web document on 127.0.0.1, and a verification that trusts device keys from the
// key cache when the bundle lacks them. Unusable inputs exit 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { BundleReport } from '../verifier/bundle/report.ts';
import { fromBase64url, toBase64url } from '../verifier/encoding/wire.ts';
import { deviceKey, signerKey } from '../testkit/keys.ts';
import { freePort } from '../testkit/net.ts';
import { AUDIT_LOG, buildAuditedLog, cookwala, edit, find, flipChar, fromLines, toLines, type AuditedLog } from '../testkit/audit.ts';

let a: AuditedLog;
let url: string;
let routeText: string;
const f = (name: string) => join(a.dir, name);

beforeAll(async () => {
  a = await buildAuditedLog();
  await a.round(4); // 1..8
  await a.erase(3); // 9
  await a.round(3); // 10..15
  routeText = await a.bundle();
  await a.seq.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(a.seq.app.server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await a?.close();
  if (a) await rm(a.dir, { recursive: true, force: true });
});

async function verifyFile(file: string, extra: string[] = []): Promise<{ code: number | null; report: BundleReport }> {
  const r = await cookwala(['verify', file, '--policy', a.policyPath, '--json', ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout) };
}

describe('with the sequencer running', () => {
  it('export --url streams GET …/bundle into a file that verifies; --data is refused with store_locked', async () => {
    const r = await cookwala(['export', '--url', url, '--log', AUDIT_LOG, '--out', f('via-url.ndjson')]);
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(f('via-url.ndjson'), 'utf8')).toBe(routeText);
    const v = await verifyFile(f('via-url.ndjson'));
    expect(v.report.failures).toEqual([]);
    expect(v.code).toBe(0);
    const locked = await cookwala(['export', '--data', a.dir, '--log', AUDIT_LOG, '--out', f('locked.ndjson')]);
    expect(locked.code).toBe(2); // the environment, not the log: exit 2
    expect(locked.stderr).toMatch(/store_locked.*use --url/);
    await expect(readFile(f('locked.ndjson'))).rejects.toThrow();
    // nobody listens there: one line naming --url, exit 2, no file
    const down = `http://127.0.0.1:${await freePort()}`;
    for (const cmd of [['export'], ['proof', '--seq', '1']]) {
      const r2 = await cookwala([...cmd, '--url', down, '--log', AUDIT_LOG, '--out', f('down.json')]);
      expect(r2.code).toBe(2);
      expect(r2.stderr).toMatch(new RegExp(`^cookwala ${cmd[0]}: nothing listens at ${down} \\(connection refused\\).*--url`));
    }
    await expect(readFile(f('down.json'))).rejects.toThrow();
  });

  it('proof + verify-event: an event with its payload, an erased one, and tampered proofs', async () => {
    expect((await cookwala(['proof', '--url', url, '--log', AUDIT_LOG, '--seq', '6', '--out', f('p6.json')])).code).toBe(0);
    const ok6 = await cookwala(['verify-event', f('p6.json'), '--policy', a.policyPath]);
    expect(ok6.code, ok6.stdout).toBe(0);
    expect(ok6.stdout).toMatch(/^PROVED: audit\.example\/missions\/m-7 seq 6/);
    expect(ok6.stdout).toMatch(/included and matching/);
    const proof = JSON.parse(await readFile(f('p6.json'), 'utf8'));
    expect(proof).toMatchObject({
      kind: 'EventProof',
      inclusion: { leafIndex: 5, size: 15 },
      checkpoint: { seq: 15 },
      keys: [{ kid: 'dev-2' }],
    });
    expect(proof.inclusion.proof.length).toBe(4); // ceil(log2 15)

    expect((await cookwala(['proof', '--url', url, '--log', AUDIT_LOG, '--seq', '3', '--out', f('p3.json')])).code).toBe(0);
    const erased = await cookwala(['verify-event', f('p3.json'), '--policy', a.policyPath, '--json']);
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ valid: true, value: { seq: 3, event: false } });

    const tampered: Array<[string, (p: any) => void, string]> = [
      ['a proof hash', (p) => (p.inclusion.proof[1] = 'sha256:' + '00'.repeat(32)), 'bad_proof'],
      ['the entry', (p) => (p.entry.sequencedAt = '2026-11-30T09:00:00.000Z'), 'entry_hash_mismatch'],
      ['the event data', (p) => (p.event.data.step = 42), 'payload_hash_mismatch'],
      ['the cosignatures', (p) => p.checkpoint.signature.splice(2), 'quorum_not_met'],
      ['the key record', (p) => (p.keys[0].publicKey = deviceKey(8).record.publicKey), 'hash_mismatch'],
      ['the leaf index', (p) => (p.inclusion.leafIndex = 4), 'bad_proof'],
    ];
    for (const [what, change, code] of tampered) {
      const p = JSON.parse(JSON.stringify(proof));
      change(p);
      await writeFile(f('bad.json'), JSON.stringify(p));
      const r = await cookwala(['verify-event', f('bad.json'), '--policy', a.policyPath, '--json']);
      expect([what, r.code, JSON.parse(r.stdout).code]).toEqual([what, 1, code]);
    }
  }, 120_000);

  it("keys fetch: /.well-known/cookwala.json, a log's keys, and a did:web document; keys show; conflicts refused", async () => {
    const cache = f('keys.json');
    expect((await cookwala(['keys', 'fetch', url, '--cache', cache])).code).toBe(0);
    const logKeys = await cookwala(['keys', 'fetch', `${url}/v1/logs/${encodeURIComponent(AUDIT_LOG)}/keys`, '--cache', cache]);
    expect(logKeys.code, logKeys.stderr).toBe(0);
    expect(logKeys.stdout).toMatch(/2 keys \(2 added, 0 updated\)/);

    const ed = signerKey('org-ed', 'operator');
    const p256 = signerKey('org-p', 'operator', { alg: 'ES256' });
    const pub = fromBase64url(p256.record.publicKey);
    if (!pub.ok) throw new Error('key');
    let doc: unknown;
    const server: Server = createServer((req, res) => {
      if (req.url !== '/.well-known/did.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/did+json' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const did = `did:web:127.0.0.1%3A${port}`;
      doc = {
        id: did,
        verificationMethod: [
          { id: '#key-1', type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: ed.record.publicKey } },
          {
            id: `${did}#key-2`,
            type: 'JsonWebKey2020',
            controller: did,
            publicKeyJwk: { kty: 'EC', crv: 'P-256', x: toBase64url(pub.value.slice(1, 33)), y: toBase64url(pub.value.slice(33)) },
          },
          { id: '#key-3', type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } },
        ],
      };
      const r = await cookwala(['keys', 'fetch', did, '--cache', cache, '--role', 'catalog']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/2 keys \(2 added/);
      expect(r.stdout).toMatch(/skipped .*#key-3/);
      const cached = JSON.parse(await readFile(cache, 'utf8'));
      expect(cached.keys.find((k: any) => k.kid === `${did}#key-2`)).toMatchObject({
        alg: 'ES256',
        publicKey: p256.record.publicKey,
        role: 'catalog',
        owner: did,
      });
      expect(cached.keys.map((k: any) => k.kid)).toEqual(
        expect.arrayContaining([a.seq.ctx.keyRecord.kid, 'dev-1', 'dev-2', `${did}#key-1`]),
      );

      (doc as any).verificationMethod[0].publicKeyJwk.x = deviceKey(9).record.publicKey;
      const before = await readFile(cache, 'utf8');
      const conflict = await cookwala(['keys', 'fetch', did, '--cache', cache, '--role', 'catalog']);
      expect(conflict.code).toBe(1);
      expect(conflict.stderr).toMatch(/key_conflict/);
      expect(await readFile(cache, 'utf8')).toBe(before);
    } finally {
      await new Promise((r) => server.close(r));
    }
    const show = await cookwala(['keys', 'show', '--cache', cache]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/dev-1\s+EdDSA\s+device\s+cookwala:device\/dev-1/);
    expect((await cookwala(['keys', 'fetch', 'http://example.com', '--cache', cache])).code).toBe(2);

    // A bundle without its device KeyRecords verifies only with the cache that holds them.
    const lines = toLines(routeText).filter((l) => !l.includes('"role":"device"'));
    await writeFile(f('nokeys.ndjson'), fromLines(lines));
    const without = await verifyFile(f('nokeys.ndjson'));
    expect(without.code).toBe(1);
    expect(without.report.failureCounts.unknown_key).toBe(14); // every device event
    const withCache = await verifyFile(f('nokeys.ndjson'), ['--keys', cache]);
    expect(withCache.report.failures).toEqual([]);
    expect(withCache.code).toBe(0);
  }, 120_000);
});

describe('with the sequencer stopped', () => {
  beforeAll(async () => {
    await a.close();
  });

  it('export --data writes the same bundle as the route (but for exportedAt); proof --data equals proof --url', async () => {
    const r = await cookwala(['export', '--data', a.dir, '--log', AUDIT_LOG, '--out', f('via-data.ndjson')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/through seq 15, 3 checkpoints, 1 erased payloads/);
    const fromData = toLines(await readFile(f('via-data.ndjson'), 'utf8'));
    const fromRoute = toLines(routeText);
    expect(fromData.slice(1)).toEqual(fromRoute.slice(1));
    expect({ ...JSON.parse(fromData[0]), exportedAt: 0 }).toEqual({ ...JSON.parse(fromRoute[0]), exportedAt: 0 });
    expect((await verifyFile(f('via-data.ndjson'))).code).toBe(0);
    expect((await cookwala(['proof', '--data', a.dir, '--log', AUDIT_LOG, '--seq', '6', '--out', f('p6-data.json')])).code).toBe(0);
    expect(JSON.parse(await readFile(f('p6-data.json'), 'utf8'))).toEqual(JSON.parse(await readFile(f('p6.json'), 'utf8')));
    const missing = await cookwala(['proof', '--data', a.dir, '--log', AUDIT_LOG, '--seq', '99', '--out', f('p99.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not_found/);
  });

  it('unusable input exits 2: no bundle file, a policy that is not one, bad usage', async () => {
    expect((await cookwala(['verify', f('nope.ndjson'), '--policy', a.policyPath])).code).toBe(2);
    await writeFile(f('not-policy.json'), '{"kind":"KeyCache","keys":[]}');
    const bad = await cookwala(['verify', f('via-data.ndjson'), '--policy', f('not-policy.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a WitnessPolicy/);
    expect((await cookwala(['verify', f('via-data.ndjson')])).code).toBe(2);
    const lines = toLines(await readFile(f('via-data.ndjson'), 'utf8'));
    await writeFile(
      f('badcp.ndjson'),
      fromLines(
        edit(
          lines,
          find(lines, (d) => d.kind === 'Checkpoint'),
          (d) => (d.signature[1].sig = flipChar(d.signature[1].sig)),
        ),
      ),
    );
    const r = await cookwala(['verify', f('badcp.ndjson'), '--policy', a.policyPath]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^INVALID/);
    expect(r.stdout).toMatch(/✗ bad_signature \(seq 8, line \d+\)/);
    expect(r.stderr).toBe(''); // no progress bar when stderr is not a terminal
  });
});
