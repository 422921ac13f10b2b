// `cookwala witness init --c2sp-name NAME --key FILE` and `--bootstrap PATH` (witness/cli.ts,
// witness/server/key-import.ts, witness/cli-usage.ts), in process: the C2SP name lands in
// DIR/witness.json (no hand edit); an existing key imported from each form (a C2SP PRIVATE+KEY line,
// a raw 32-byte seed, its hex, another witness's DIR/witness.key.json) gives the same kid and vkey as
// the witness it came from; a key file that is none of them, a PRIVATE+KEY whose key ID does not
// match, a name that contradicts the key's, or a DIR holding another key are refused and change
// nothing. An absolute path to an existing witness-info.json is a --bootstrap file, not a multiaddr.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../witness/cli.ts';
import { checkBootstrap, resolveBootstrap } from '../witness/cli-usage.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { formatSignerKey, SIG_ED25519 } from '../verifier/c2sp/note/index.ts';
import { fromBase64url } from '../verifier/encoding/wire.ts';

let root: string;
beforeAll(async () => {
  root = await makeTempDir('cookwala-winit-');
});
afterAll(async () => removeDir(root));

async function witness(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array) => ((out += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((err += String(c)), true)) as typeof process.stderr.write;
  try {
    return { code: await run(argv), out, err };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

const p = (n: string) => join(root, n);
const vkeyOf = (out: string) => /^c2sp (\S+) vkey (\S+)$/m.exec(out)?.slice(1);
const kidOf = (out: string) => /: key (wit-\S+)$/m.exec(out)?.[1];

describe('witness init --c2sp-name and --key', () => {
  let original: { out: string; seed: Uint8Array };
  beforeAll(async () => {
    const r = await witness(['init', '--data', p('orig'), '--c2sp-name', 'witness.example.org/w1']);
    expect(r.code, r.err).toBe(0);
    const k = JSON.parse(await readFile(p('orig/witness.key.json'), 'utf8')) as { secretKey: string };
    const seed = fromBase64url(k.secretKey);
    if (!seed.ok) throw new Error('key file');
    original = { out: r.out, seed: seed.value };
  });

  it('--c2sp-name is kept in witness.json and names the cosignature/v1 key', async () => {
    const cfg = JSON.parse(await readFile(p('orig/witness.json'), 'utf8'));
    expect(cfg.c2spName).toBe('witness.example.org/w1');
    expect(vkeyOf(original.out)?.[0]).toBe('witness.example.org/w1');
    const info = JSON.parse(await readFile(p('orig/witness-info.json'), 'utf8'));
    expect(info.c2sp.name).toBe('witness.example.org/w1');
  });

  it('each key form gives the same kid and vkey as the original witness', async () => {
    await writeFile(p('seed.bin'), original.seed);
    await writeFile(p('seed.hex'), Buffer.from(original.seed).toString('hex') + '\n');
    await writeFile(p('go.skey'), formatSignerKey('witness.example.org/w1', SIG_ED25519, original.seed) + '\n');
    for (const [name, file, extra] of [
      ['own', p('orig/witness.key.json'), ['--c2sp-name', 'witness.example.org/w1']],
      ['raw', p('seed.bin'), ['--c2sp-name', 'witness.example.org/w1']],
      ['hex', p('seed.hex'), ['--c2sp-name', 'witness.example.org/w1']],
      ['go', p('go.skey'), []], // the name comes from the key
    ] as const) {
      const r = await witness(['init', '--data', p(`imp-${name}`), '--key', file, ...extra]);
      expect(r.code, `${name}: ${r.err}`).toBe(0);
      expect(r.out).toMatch(/imported the witness key from /);
      expect(vkeyOf(r.out), name).toEqual(vkeyOf(original.out));
      expect(kidOf(r.out), name).toBe(kidOf(original.out));
    }
    // Again on the same DIR with the same key: idempotent.
    expect((await witness(['init', '--data', p('imp-raw'), '--key', p('seed.bin')])).code).toBe(0);
  });

  it('refuses what is not a key, a wrong key ID, a contradicting name, another key for a DIR', async () => {
    await writeFile(p('junk.key'), 'hello there\n');
    expect((await witness(['init', '--data', p('x1'), '--key', p('junk.key')])).code).toBe(2);
    const skey = formatSignerKey('witness.example.org/w1', SIG_ED25519, original.seed);
    const wrongId = skey.replace(/\+([0-9a-f]{8})\+/, (_m, id: string) => `+${id === '00000000' ? '00000001' : '00000000'}+`);
    await writeFile(p('wrong-id.skey'), wrongId);
    const bad = await witness(['init', '--data', p('x2'), '--key', p('wrong-id.skey')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/key ID does not match/);
    const clash = await witness(['init', '--data', p('x3'), '--key', p('go.skey'), '--c2sp-name', 'other.example.org/w9']);
    expect(clash.code).toBe(2);
    expect(clash.err).toMatch(/would make another vkey/);
    expect((await witness(['init', '--data', p('x4'), '--c2sp-name', 'has space'])).code).toBe(2);
    // A DIR with a key keeps it: importing another is refused and changes nothing.
    const before = await readFile(p('orig/witness.key.json'), 'utf8');
    await writeFile(p('other.bin'), Buffer.alloc(32, 7));
    const other = await witness(['init', '--data', p('orig'), '--key', p('other.bin')]);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/never replaced/);
    expect(await readFile(p('orig/witness.key.json'), 'utf8')).toBe(before);
  });
});

describe('--bootstrap with an absolute path', () => {
  it('an existing file is a witness-info.json; anything else is a multiaddr, with a clear line', async () => {
    const peer = '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN';
    await writeFile(p('info.json'), JSON.stringify({ multiaddrs: [peer] }));
    expect(p('info.json').startsWith('/')).toBe(true);
    expect(await resolveBootstrap([p('info.json')])).toEqual({ ok: true, addrs: [peer] });
    expect(await resolveBootstrap([peer])).toEqual({ ok: true, addrs: [peer] });
    const missing = await resolveBootstrap([p('nope/witness-info.json')]);
    expect(missing.ok && checkBootstrap(missing.addrs)).toMatch(/is not a multiaddr ending in \/p2p\/<peerId>, nor an existing file/);
    await writeFile(p('not-info.json'), '{"x":1}');
    const r = await resolveBootstrap([p('not-info.json')]);
    expect(r.ok).toBe(false);
  });
});
