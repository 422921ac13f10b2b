// The device recipe of docs/devices.md followed by an independent signer: this file imports
// nothing of the project (node:crypto, JSON and its own small JCS for the plain objects it signs),
// reads the recipe's worked example out of docs/devices.md and recomputes every block (public key,
// hash input, event hash, signing header, signature, cookwalasig, a Disclosure digest), checks that
// `cookwala device sign --explain` prints the same bytes, and then, against a real sequencer (a
// child process), registers its own fresh key over HTTP and gets 201 for a structured and a binary
// event and 200 for a heartbeat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'cookwala.js');

// ---- the independent signer: only what docs/devices.md section 4 says ----

/** RFC 8785 for the plain values a device signs: objects, arrays, strings, integers, booleans, null. */
function jcs(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(jcs).join(',') + ']';
  if (v !== null && typeof v === 'object')
    return (
      '{' +
      Object.keys(v)
        .sort()
        .map((k) => JSON.stringify(k) + ':' + jcs((v as Record<string, unknown>)[k]))
        .join(',') +
      '}'
    );
  if (typeof v === 'number' && !Number.isInteger(v)) throw new Error('this signer writes integers only');
  return JSON.stringify(v);
}

const sha256 = (text: string) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');

function ed25519FromSeed(seed: Buffer): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

function signEvent(event: Record<string, unknown>, key: KeyObject, kid: string, signedAt: string) {
  const view: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event)) if (k !== 'cookwalasig' && (v !== null || k === 'data')) view[k] = v;
  const hashInput = jcs(view);
  const eventHash = sha256(hashInput);
  const header = `{"alg":"EdDSA","hash":"${eventHash}","kid":"${kid}","kind":"Event","signedAt":"${signedAt}"}`;
  const sig = sign(null, Buffer.from(header, 'utf8'), key).toString('base64url');
  const cookwalasig = Buffer.from(`{"alg":"EdDSA","kid":"${kid}","sig":"${sig}","signedAt":"${signedAt}"}`, 'utf8').toString('base64url');
  return { hashInput, eventHash, header, sig, cookwalasig, signed: { ...event, cookwalasig } };
}

// ---- the worked example, read from the page ----

async function workedExample(): Promise<Record<string, string>> {
  const md = await readFile(join(ROOT, 'docs', 'devices.md'), 'utf8');
  const out: Record<string, string> = {};
  for (const m of md.matchAll(/```\w+ worked-example:([a-z-]+)\n([\s\S]*?)\n```/g)) out[m[1]] = m[2];
  return out;
}

const SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cookwala-recipe-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the worked example of docs/devices.md', () => {
  it('every block is what the recipe computes', async () => {
    const ex = await workedExample();
    expect(Object.keys(ex).sort()).toEqual(
      ['cookwalasig', 'disclosure', 'event', 'event-hash', 'hash-input', 'public-key', 'signature', 'signing-header'].sort(),
    );
    const key = ed25519FromSeed(SEED);
    expect(createPublicKey(key).export({ format: 'jwk' }).x).toBe(ex['public-key']);
    const s = signEvent(JSON.parse(ex.event), key, 'example-key-1', '2026-11-30T10:00:00.123Z');
    expect(s.hashInput).toBe(ex['hash-input']);
    expect(s.eventHash).toBe(ex['event-hash']);
    expect(s.header).toBe(ex['signing-header']);
    expect(s.sig).toBe(ex.signature);
    expect(s.cookwalasig).toBe(ex.cookwalasig);
    const salt = Buffer.from([...Array(16).keys()]).toString('base64url');
    expect(sha256(jcs([salt, { people: 3 }]))).toBe(ex.disclosure);
  });

  it('cookwala device sign --explain prints the same bytes', async () => {
    const ex = await workedExample();
    const keyFile = join(dir, 'example.key.json');
    const owner = 'urn:cookwala:device:example';
    await writeFile(
      keyFile,
      JSON.stringify({ kind: 'DeviceKey', alg: 'EdDSA', kid: 'example-key-1', secretKey: SEED.toString('base64url'), owner }),
    );
    await writeFile(join(dir, 'example.json'), ex.event);
    const r = await run([
      'device',
      'sign',
      join(dir, 'example.json'),
      '--key',
      keyFile,
      '--signed-at',
      '2026-11-30T10:00:00.123Z',
      '--explain',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    for (const k of ['hash-input', 'event-hash', 'signing-header', 'signature', 'cookwalasig']) expect(lines).toContain(ex[k]);
  });
});

describe('the recipe against a real sequencer', () => {
  const LOG = 'recipe.example/missions/m-1';
  let seq: ReturnType<typeof spawn> | undefined;
  let url = '';
  let token = '';

  beforeAll(async () => {
    const data = join(dir, 'seq');
    const init = await run(['init', '--data', data, '--log', LOG]);
    expect(init.code, init.stderr).toBe(0);
    token = (await readFile(join(data, 'operator.token'), 'utf8')).trim();
    const p = spawn(process.execPath, [CLI, 'sequencer', '--data', data, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    seq = p;
    url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error('the sequencer did not start in 60 s')), 60_000);
      p.on('exit', () => reject(new Error('the sequencer exited')));
      p.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        for (const line of buf.split('\n')) {
          if (!line.startsWith('{')) continue;
          try {
            const j = JSON.parse(line);
            if (j.event === 'listening') {
              clearTimeout(timer);
              resolve(j.url);
            }
          } catch {
            // a partial line: the next chunk completes it
          }
        }
      });
    });
  }, 90_000);

  afterAll(async () => {
    if (seq && seq.exitCode === null) {
      const gone = new Promise((r) => seq!.once('exit', r));
      seq.kill('SIGTERM');
      await gone;
    }
  });

  it('registers its own key and gets 201 (structured, binary) and 200 (heartbeat)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const source = 'urn:cookwala:device:recipe';
    const kid = 'recipe-k1';
    const logPath = `${url}/v1/logs/${encodeURIComponent(LOG)}`;
    const validFrom = new Date(Date.now() - 60_000).toISOString();
    const record = {
      kind: 'KeyRecord',
      kid,
      alg: 'EdDSA',
      publicKey: publicKey.export({ format: 'jwk' }).x,
      owner: source,
      role: 'device',
      validFrom,
    };
    const reg = await fetch(`${logPath}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(record),
    });
    expect(reg.status).toBe(201);
    const key = (id: string) => 'ce-' + createHash('sha256').update(`${source}\n${id}\n`).digest('base64url');

    const event = {
      specversion: '1.0',
      id: 'recipe-1',
      source,
      type: 'cookwala.execution.running',
      subject: 'exec-1',
      cookwalaseq: 1,
      datacontenttype: 'application/json',
      data: { step: 1, tempC: 170, lid: true },
    };
    const s = signEvent(event, privateKey, kid, new Date().toISOString());
    const structured = await fetch(`${logPath}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': key(event.id) },
      body: JSON.stringify(s.signed),
    });
    const ack = (await structured.json()) as Record<string, unknown>;
    expect(structured.status, JSON.stringify(ack)).toBe(201);
    expect(ack.eventHash).toBe(s.eventHash);

    // binary mode: non-JSON data signed as data_base64 of exactly the body bytes
    const body = Buffer.from('temp=170;lid=closed\n', 'utf8');
    const bin = {
      specversion: '1.0',
      id: 'recipe-2',
      source,
      type: 'cookwala.execution.running',
      subject: 'exec-1',
      cookwalaseq: 2,
      datacontenttype: 'text/plain',
      data_base64: body.toString('base64'),
    };
    const b = signEvent(bin, privateKey, kid, new Date().toISOString());
    const binary = await fetch(`${logPath}/events`, {
      method: 'POST',
      headers: {
        'ce-specversion': '1.0',
        'ce-id': bin.id,
        'ce-source': source,
        'ce-type': bin.type,
        'ce-subject': bin.subject,
        'ce-cookwalaseq': '2',
        'ce-cookwalasig': b.cookwalasig,
        'content-type': 'text/plain',
        'idempotency-key': key(bin.id),
      },
      body,
    });
    const back = (await binary.json()) as Record<string, unknown>;
    expect(binary.status, JSON.stringify(back)).toBe(201);
    expect(back.eventHash).toBe(b.eventHash);

    // the same text signed as `data` (the wrong way for binary mode) is refused
    const wrongEvent = { ...bin, id: 'recipe-3', cookwalaseq: 3, data_base64: undefined, data: body.toString('utf8') };
    delete (wrongEvent as Record<string, unknown>).data_base64;
    const w = signEvent(wrongEvent, privateKey, kid, new Date().toISOString());
    const wrong = await fetch(`${logPath}/events`, {
      method: 'POST',
      headers: {
        'ce-specversion': '1.0',
        'ce-id': wrongEvent.id,
        'ce-source': source,
        'ce-type': bin.type,
        'ce-subject': bin.subject,
        'ce-cookwalaseq': '3',
        'ce-cookwalasig': w.cookwalasig,
        'content-type': 'text/plain',
        'idempotency-key': key(wrongEvent.id),
      },
      body,
    });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as Record<string, unknown>).code).toBe('bad_signature');

    const at = new Date().toISOString();
    const beat = { specversion: '1.0', id: `heartbeat.${Date.now()}.1`, source, type: 'cookwala.device.heartbeat', time: at };
    const h = signEvent(beat, privateKey, kid, at);
    const hb = await fetch(`${logPath}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': key(beat.id) },
      body: JSON.stringify(h.signed),
    });
    expect(hb.status).toBe(200);
    expect(await hb.json()).toMatchObject({ heartbeat: true, eventHash: h.eventHash });
  }, 120_000);
});
