// A device maker and an operator with only the CLI (docs/devices.md, docs/operations.md): every step
// is `node bin/cookwala.js …` as a child process against a real sequencer (its own child, LevelDB,
// HTTP on 127.0.0.1). keygen (Ed25519 and ES256), register with the operator token from a file,
// sign and post in the three modes (structured with a disclosure, batch, binary), a retry that
// changes nothing, heartbeats, the delivery window of a revocation (signed before: taken; after:
// key_revoked), rotation, the operator token rotated with two tokens held across a reload, export
// and `cookwala verify` VALID with the revocation in force; then the disclosed value revealed and
// proved offline after its payload was erased, and a wrong value refused with bad_disclosure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cookwala, type CliResult } from '../testkit/audit.ts';
import { spawnCookwala, stopChild, type Child } from '../testkit/witness-procs.ts';
import { tempDirs } from '../testkit/tmp.ts';

const tmp = tempDirs('cookwala-device-maker-');
const LOG = 'maker.example/missions/m-1';
let dir: string;
let seqDir: string;
let url: string;
let sequencer: Child;
const at = (f: string) => join(dir, f);
const target = () => ['--url', url, '--log', LOG];
const token = () => ['--token-file', join(seqDir, 'operator.token')];

function ok(r: CliResult, what: string): CliResult {
  expect(r.code, `${what}: ${r.stderr}${r.stdout}`).toBe(0);
  return r;
}

let n = 0;
/** A CloudEvent file from this device (unsigned), one subject per event so order never interferes. */
async function eventFile(source: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = `ev-${++n}`;
  const ce = { specversion: '1.0', id, source, type: 'cookwala.execution.running', subject: `exec-${n}`, cookwalaseq: 1, ...extra };
  const p = at(`${id}.json`);
  await writeFile(p, JSON.stringify(ce));
  return p;
}

async function signAndPost(key: string, file: string, extra: string[] = []): Promise<{ signed: string; post: CliResult }> {
  const signed = file.replace(/\.json$/, '.signed.json');
  ok(await cookwala(['device', 'sign', file, '--key', key, '--out', signed, ...extra]), 'sign');
  return { signed, post: await cookwala(['device', 'post', signed, ...target()]) };
}

beforeAll(async () => {
  dir = await tmp.make();
  seqDir = at('seq');
  ok(await cookwala(['init', '--data', seqDir, '--log', LOG, '--mode', 'hash_only']), 'init');
  sequencer = spawnCookwala(['sequencer', '--data', seqDir, '--port', '0']);
  const died = sequencer.exited.then(() => Promise.reject(new Error(`sequencer exited: ${sequencer.err()}`)));
  died.catch(() => undefined);
  url = (await Promise.race([sequencer.logs.next('listening', undefined, 60_000), died])).url as string;
}, 90_000);

afterAll(async () => {
  if (sequencer) await stopChild(sequencer);
  await tmp.cleanup();
});

describe('a device maker with only the CLI', () => {
  const A = 'urn:cookwala:device:maker-a';
  const B = 'urn:cookwala:device:maker-b';
  let disclosedId = '';
  let disclosedSeq = 0;

  it('keygen writes a 0600 key and prints the KeyRecord; keys register needs the operator token', async () => {
    const a = ok(await cookwala(['device', 'keygen', '--kid', 'maker-a-1', '--source', A, '--out', at('a1.key.json')]), 'keygen a');
    await writeFile(at('a1.rec.json'), a.stdout);
    const rec = JSON.parse(a.stdout);
    expect(rec).toMatchObject({ kind: 'KeyRecord', kid: 'maker-a-1', alg: 'EdDSA', owner: A, role: 'device' });
    expect((await stat(at('a1.key.json'))).mode & 0o777).toBe(0o600);
    expect(a.stdout).not.toContain('secretKey');
    expect(JSON.parse(await readFile(at('a1.key.json'), 'utf8')).secretKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await cookwala(['device', 'keygen', '--kid', 'x', '--source', A, '--out', at('a1.key.json')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists: a key file is never overwritten/);
    const b = ok(
      await cookwala([
        'device',
        'keygen',
        '--alg',
        'ES256',
        '--kid',
        'maker-b-1',
        '--source',
        B,
        '--out',
        at('b1.key.json'),
        '--record',
        at('b1.rec.json'),
      ]),
      'keygen b',
    );
    expect(JSON.parse(b.stdout)).toMatchObject({ alg: 'ES256', owner: B });

    await writeFile(at('wrong.token'), 'not-the-operator-token-of-this-sequencer\n', { mode: 0o600 });
    const noToken = await cookwala(['keys', 'register', at('a1.rec.json'), ...target(), '--token-file', at('wrong.token')]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/401 unauthorized/);
    for (const r of ['a1.rec.json', 'b1.rec.json']) {
      const reg = ok(await cookwala(['keys', 'register', at(r), ...target(), ...token()]), `register ${r}`);
      expect(JSON.parse(reg.stdout).signature.kid).toBeTruthy(); // signed by the sequencer
    }
  }, 180_000);

  it('structured (with a disclosure), batch and binary posts are acknowledged; a retry gets the same seq', async () => {
    const f = await eventFile(A, { datacontenttype: 'application/json', data: { step: 1, household: { people: 3, diet: 'halal' } } });
    disclosedId = `ev-${n}`;
    const explained = ok(
      await cookwala([
        'device',
        'sign',
        f,
        '--key',
        at('a1.key.json'),
        '--out',
        at('s1.json'),
        '--explain',
        '--disclose',
        '/data/household',
        '--disclosures',
        at('a.disclosures.ndjson'),
      ]),
      'sign --explain',
    );
    expect(explained.stdout).toMatch(/^event hash input \(RFC 8785 JCS/);
    expect(explained.stdout).toContain('"household":{"disclosure":"sha256:');
    expect(explained.stdout).toMatch(/\{"alg":"EdDSA","hash":"sha256:[0-9a-f]{64}","kid":"maker-a-1","kind":"Event","signedAt":"[^"]+"\}/);
    expect(explained.stdout).not.toContain('halal');
    expect((await stat(at('a.disclosures.ndjson'))).mode & 0o777).toBe(0o600);
    const first = ok(await cookwala(['device', 'post', at('s1.json'), ...target()]), 'post structured');
    const ack = JSON.parse(first.stdout);
    expect(ack).toMatchObject({ seq: expect.any(Number), eventHash: expect.stringMatching(/^sha256:/) });
    disclosedSeq = ack.seq;
    const retry = ok(await cookwala(['device', 'post', at('s1.json'), ...target()]), 'post retry');
    expect(JSON.parse(retry.stdout).seq).toBe(ack.seq);

    const b1 = await eventFile(B);
    const b2 = await eventFile(B, { datacontenttype: 'text/plain', data_base64: Buffer.from('hello').toString('base64') });
    ok(await cookwala(['device', 'sign', b1, '--key', at('b1.key.json'), '--out', at('b1.signed.json')]), 'sign b1');
    ok(await cookwala(['device', 'sign', b2, '--key', at('b1.key.json'), '--out', at('b2.signed.json')]), 'sign b2');
    const batch = ok(await cookwala(['device', 'post', at('b1.signed.json'), at('b2.signed.json'), ...target()]), 'post batch');
    const results = JSON.parse(batch.stdout).results;
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 201]);

    const bin = await eventFile(A, { datacontenttype: 'application/json', data: { step: 2, tempC: 170 } });
    ok(await cookwala(['device', 'sign', bin, '--key', at('a1.key.json'), '--binary', '--out', at('bin.json')]), 'sign --binary');
    const form = JSON.parse(await readFile(at('bin.json'), 'utf8'));
    expect(form.headers).toMatchObject({ 'ce-specversion': '1.0', 'ce-cookwalaseq': '1', 'content-type': 'application/json' });
    expect(form.headers['ce-cookwalasig']).toBeTruthy();
    const posted = ok(await cookwala(['device', 'post', at('bin.json'), ...target()]), 'post binary');
    expect(JSON.parse(posted.stdout).seq).toBeGreaterThan(results[1].seq);
    // the same event through --binary from its structured form: the same event, so the same entry
    const binText = await eventFile(A, { datacontenttype: 'application/octet-stream', data_base64: 'AAEC' });
    const viaFlag = await signAndPost(at('a1.key.json'), binText);
    expect(viaFlag.post.code, viaFlag.post.stderr).toBe(0);
    const again = ok(await cookwala(['device', 'post', viaFlag.signed, '--binary', ...target()]), 'post --binary');
    expect(JSON.parse(again.stdout).seq).toBe(JSON.parse(viaFlag.post.stdout).seq);
    // binary-mode rules are said before anything is sent
    const textData = await eventFile(A, { datacontenttype: 'text/plain', data: 'hello' });
    const refused = await cookwala(['device', 'sign', textData, '--key', at('a1.key.json'), '--binary']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/put other data in data_base64/);
  }, 180_000);

  it('heartbeats: once, or every interval for a count', async () => {
    const r = ok(
      await cookwala(['device', 'heartbeat', '--key', at('b1.key.json'), ...target(), '--every', '100ms', '--count', '3']),
      'heartbeat',
    );
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatchObject({ heartbeat: true });
  }, 180_000);

  it('revoke: an event signed before revokedAt is still taken (the delivery window), one signed after is key_revoked', async () => {
    const before = await eventFile(B);
    ok(await cookwala(['device', 'sign', before, '--key', at('b1.key.json'), '--out', at('before.json')]), 'sign before');
    const rv = ok(await cookwala(['keys', 'revoke', '--kid', 'maker-b-1', ...target(), ...token()]), 'revoke');
    const revokedAt = JSON.parse(rv.stdout).revokedAt;
    expect(revokedAt).toMatch(/Z$/);
    ok(await cookwala(['device', 'post', at('before.json'), ...target()]), 'in flight');
    const after = await signAndPost(at('b1.key.json'), await eventFile(B));
    expect(after.post.code).toBe(1);
    expect(JSON.parse(after.post.stdout)).toMatchObject({ status: 403, code: 'key_revoked' });
    const twice = await cookwala(['keys', 'revoke', '--kid', 'maker-b-1', '--at', '2030-01-01T00:00:00.000Z', ...target(), ...token()]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/key_conflict: maker-b-1 is already revoked/);
  }, 180_000);

  it('rotate: the new kid is registered, then the old one revoked', async () => {
    const k = ok(
      await cookwala(['device', 'keygen', '--kid', 'maker-a-2', '--source', A, '--out', at('a2.key.json'), '--record', at('a2.rec.json')]),
      'keygen a2',
    );
    expect(JSON.parse(k.stdout).kid).toBe('maker-a-2');
    const r = ok(await cookwala(['keys', 'rotate', '--kid', 'maker-a-1', '--new', at('a2.rec.json'), ...target(), ...token()]), 'rotate');
    const out = JSON.parse(r.stdout);
    expect(out.registered.kid).toBe('maker-a-2');
    expect(out.revoked).toMatchObject({ kid: 'maker-a-1', revokedAt: expect.any(String) });
    const old = await signAndPost(at('a1.key.json'), await eventFile(A));
    expect(JSON.parse(old.post.stdout)).toMatchObject({ status: 403, code: 'key_revoked' });
    const fresh = await signAndPost(at('a2.key.json'), await eventFile(A));
    expect(fresh.post.code, fresh.post.stderr).toBe(0);
  }, 180_000);

  it('the operator token rotates with no refused call: two tokens across a reload, then the old one goes', async () => {
    const tokenFile = join(seqDir, 'operator.token');
    const oldToken = (await readFile(tokenFile, 'utf8')).trim();
    await writeFile(at('old.token'), oldToken + '\n', { mode: 0o600 });
    const newToken = 'rotated-' + Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
    await writeFile(tokenFile, `${oldToken}\n${newToken}\n`, { mode: 0o600 });
    sequencer.proc.kill('SIGHUP');
    const first = await sequencer.logs.next('policy_reloaded');
    const keyList = ['keys', 'register', at('a2.rec.json'), ...target()];
    ok(await cookwala([...keyList, '--token-file', at('old.token')]), 'old token while both are held');
    ok(await cookwala([...keyList, '--token-file', tokenFile]), 'new token (the last line)');
    await writeFile(tokenFile, newToken + '\n', { mode: 0o600 });
    sequencer.proc.kill('SIGHUP');
    await sequencer.logs.next('policy_reloaded', (r) => r !== first);
    const refused = await cookwala([...keyList, '--token-file', at('old.token')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/401 unauthorized/);
    ok(await cookwala([...keyList, '--token-file', tokenFile]), 'new token after');
  }, 180_000);

  it('export, and cookwala verify says VALID with the revocations in force', async () => {
    ok(await cookwala(['checkpoint', ...target(), '--wait', '30s']), 'checkpoint --wait');
    ok(await cookwala(['export', ...target(), '--out', at('bundle.ndjson')]), 'export');
    const v = await cookwala(['verify', at('bundle.ndjson'), '--policy', join(seqDir, 'policy.json'), '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const keys = (await readFile(at('bundle.ndjson'), 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"KeyRecord"'))
      .map((l) => JSON.parse(l));
    expect(keys.find((k) => k.kid === 'maker-b-1')?.revokedAt).toBeTruthy();
    expect(keys.find((k) => k.kid === 'maker-a-1')?.revokedAt).toBeTruthy();
  }, 180_000);

  it('a disclosed value is revealed and proved offline after its payload is erased; a wrong value is refused', async () => {
    const tokenText = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim().split('\n').pop()!;
    const del = await fetch(`${url}/v1/logs/${encodeURIComponent(LOG)}/events/${disclosedSeq}/payload`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokenText}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'data subject request' }),
    });
    expect(del.status).toBeLessThan(300);
    expect((await fetch(`${url}/v1/logs/${encodeURIComponent(LOG)}/events/${disclosedSeq}`)).status).toBe(410);
    ok(await cookwala(['checkpoint', ...target(), '--wait', '30s']), 'checkpoint after erasure');
    ok(await cookwala(['proof', ...target(), '--seq', String(disclosedSeq), '--out', at('proof.json')]), 'proof');
    expect(JSON.parse(await readFile(at('proof.json'), 'utf8')).event).toBeUndefined();
    const rv = ok(
      await cookwala([
        'device',
        'reveal',
        '--disclosures',
        at('a.disclosures.ndjson'),
        '--id',
        disclosedId,
        '--pointer',
        '/data/household',
        '--out',
        at('reveal.json'),
      ]),
      'reveal',
    );
    expect(rv.stdout).toBe('');
    const reveal = JSON.parse(await readFile(at('reveal.json'), 'utf8'));
    expect(reveal.revealed[1]).toEqual({ people: 3, diet: 'halal' });
    const policy = join(seqDir, 'policy.json');
    const proved = ok(
      await cookwala(['verify-disclosure', at('reveal.json'), '--proof', at('proof.json'), '--policy', policy]),
      'verify-disclosure',
    );
    expect(proved.stdout).toMatch(/^PROVED: \/data\/household .* is \{"people":3,"diet":"halal"\}/);
    expect(proved.stdout).toMatch(/not in the proof \(erased or withheld\)/);
    reveal.revealed[1] = { people: 2, diet: 'halal' };
    await writeFile(at('wrong.json'), JSON.stringify(reveal));
    const wrong = await cookwala(['verify-disclosure', at('wrong.json'), '--proof', at('proof.json'), '--policy', policy, '--json']);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ valid: false, code: 'bad_disclosure' });
    // another event offered for this entry
    reveal.revealed[1] = { people: 3, diet: 'halal' };
    reveal.event.id = 'someone-else';
    await writeFile(at('moved.json'), JSON.stringify(reveal));
    const moved = await cookwala(['verify-disclosure', at('moved.json'), '--proof', at('proof.json'), '--policy', policy, '--json']);
    expect(JSON.parse(moved.stdout)).toMatchObject({ valid: false, code: 'payload_hash_mismatch' });
  }, 180_000);
});
