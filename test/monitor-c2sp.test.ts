// `cookwala monitor` following a C2SP log that is not ours (docs/monitoring.md): the test's own
// tlog-tiles server, written here from c2sp.org/tlog-tiles, tlog-checkpoint, signed-note and
// tlog-cosignature (C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9) with node:crypto and
// testkit/c2sp-log.ts (RFC 6962 tree, note signer), serving `checkpoint` and the Merkle hash tiles
// (full and partial) of a log and a witness's monitoring read. The monitor runs as a child
// process with --once (cron use) and its exit codes are asserted: it follows the tree across tile
// boundaries, counts cosignatures toward the quorum, reports quorum_lost for a checkpoint without
// them, rewrite_detected (naming the changed range) for a tree that does not extend the verified
// one, fork_detected for a witness that cosigned another tree of the same size, and exit 2 for an
// unusable config.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { specSigner, leafHash, type SpecSigner } from '../testkit/c2sp-log.ts';
import { runCookwala } from '../testkit/witness-procs.ts';
import { readLogLines } from '../platform/logger.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { nginxBinary, startNginx } from '../testkit/nginx.ts';
import { mkdir, readdir } from 'node:fs/promises';

const ORIGIN = 'c2sp.example/tiles-log';
const dirs = tempDirs('cookwala-mon-c2sp-');

const sha = (...p: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const x of p) h.update(x);
  return h.digest();
};
const node = (l: Buffer, r: Buffer) => sha(Buffer.of(1), l, r);

/** The RFC 6962 node at (level, index) over leaf hashes (complete subtrees only). */
function nodeAt(leaves: Buffer[], level: number, index: number): Buffer {
  if (level === 0) return leaves[index];
  return node(nodeAt(leaves, level - 1, 2 * index), nodeAt(leaves, level - 1, 2 * index + 1));
}
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** tlog-tiles index spelling: 1234067 -> x001/x234/067. */
function indexPath(n: number): string {
  const els: string[] = [];
  do {
    els.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return els.map((e, i) => (i < els.length - 1 ? `x${e}` : e)).join('/');
}

/** A cosignature/v1 signer (tlog-cosignature): key ID over name, 0x04 and the key; signs "cosignature/v1\ntime T\n" + body. */
function cosigner(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const id = sha(Buffer.from(name + '\n'), Buffer.of(4), pub).subarray(0, 4);
  const vkey = `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(4), pub]).toString('base64')}`;
  return {
    pub,
    vkey,
    line(body: string, t = Math.floor(Date.now() / 1000)): string {
      const ts = Buffer.alloc(8);
      ts.writeBigUInt64BE(BigInt(t));
      const sig = sign(null, Buffer.from(`cosignature/v1\ntime ${t}\n${body}`), privateKey);
      return `\u2014 ${name} ${Buffer.concat([id, ts, sig]).toString('base64')}\n`;
    },
  };
}

interface Served {
  leaves: Buffer[];
  size: number;
  cosign: boolean;
}

let server: Server;
let base = '';
let logKey: SpecSigner;
let witness: ReturnType<typeof cosigner>;
const serving: Served = { leaves: [], size: 0, cosign: true };
let witnessNote: string | undefined;

const notes = new Map<string, string>();
/** The signed checkpoint of a tree; one note per tree and cosigning, as a log serves until it grows. */
function note(leaves: Buffer[], size: number, cosign: boolean): string {
  const body = `${ORIGIN}\n${size}\n${mth(leaves.slice(0, size)).toString('base64')}\n`;
  const key = `${body}${cosign}`;
  if (!notes.has(key)) notes.set(key, `${body}\n${logKey.line(body)}${cosign ? witness.line(body) : ''}`);
  return notes.get(key)!;
}

/** One tile of the served tree: level L, index N, width W (the spec's hashes at tree level 8L). */
function tile(level: number, index: number, width: number): Buffer | undefined {
  const { leaves, size } = serving;
  const count = Math.floor(size / 256 ** level);
  if (index * 256 + width > count) return undefined;
  const out: Buffer[] = [];
  for (let i = index * 256; i < index * 256 + width; i++) out.push(nodeAt(leaves, 8 * level, i));
  return Buffer.concat(out);
}

function parseTile(rest: string): { level: number; index: number; width: number } | undefined {
  const m = /^(\d+)\/((?:x\d{3}\/)*\d{3})(?:\.p\/(\d+))?$/.exec(rest);
  if (!m) return undefined;
  const index = Number(m[2].replace(/x|\//g, ''));
  if (indexPath(index) !== m[2]) return undefined;
  return { level: Number(m[1]), index, width: m[3] ? Number(m[3]) : 256 };
}

function leavesOf(n: number, tag = ''): Buffer[] {
  return Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`${ORIGIN} leaf ${i}${tag}`)));
}

let dir: string;
let configPath: string;
let statePath: string;

beforeAll(async () => {
  dir = await dirs.make();
  logKey = specSigner(ORIGIN);
  witness = cosigner('witness.c2sp.example');
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/log/checkpoint')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(note(serving.leaves, serving.size, serving.cosign));
    if (url === `/w/${createHash('sha256').update(ORIGIN).digest('hex')}/checkpoint`) {
      if (!witnessNote) return res.writeHead(404).end();
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(witnessNote);
    }
    const m = /^\/log\/tile\/(.*)$/.exec(url);
    const t = m ? parseTile(m[1]) : undefined;
    const body = t ? tile(t.level, t.index, t.width) : undefined;
    if (!body) return res.writeHead(404).end('not found\n');
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  const logPub = Buffer.from(logKey.vkey.split('+').slice(2).join('+'), 'base64').subarray(1);
  const policy = {
    kind: 'WitnessPolicy',
    log: ORIGIN,
    sequencer: {
      kind: 'KeyRecord',
      kid: 'c2sp-log-key',
      alg: 'EdDSA',
      publicKey: logPub.toString('base64url'),
      owner: ORIGIN,
      role: 'sequencer',
      validFrom: '2020-01-01T00:00:00.000Z',
    },
    witnesses: [
      {
        kind: 'KeyRecord',
        kid: 'c2sp-witness',
        alg: 'EdDSA',
        publicKey: witness.pub.toString('base64url'),
        owner: 'witness.c2sp.example',
        role: 'witness',
        validFrom: '2020-01-01T00:00:00.000Z',
        vkey: witness.vkey,
        url: `${base}/w`,
      },
    ],
    quorum: 1,
  };
  await writeFile(join(dir, 'policy.json'), JSON.stringify(policy));
  configPath = join(dir, 'monitor.json');
  await writeFile(
    configPath,
    JSON.stringify({ kind: 'MonitorConfig', logs: [{ origin: ORIGIN, kind: 'c2sp', tiles: `${base}/log/`, policy: 'policy.json' }] }),
  );
  statePath = join(dir, 'state');
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

async function once(): Promise<{ code: number | null; events: Array<Record<string, unknown>> }> {
  const r = await runCookwala(['monitor', '--config', configPath, '--state', statePath, '--once']);
  const events = readLogLines(r.out) as unknown as Array<Record<string, unknown>>;
  if (r.code === 2) throw new Error(`monitor exit 2: ${r.err}\n${r.out}`);
  return { code: r.code, events };
}
const named = (events: Array<Record<string, unknown>>, e: string) => events.filter((x) => x.event === e);

describe('cookwala monitor on a C2SP tlog-tiles log that is not ours', () => {
  it('follows the tree across tiles, checks cosignatures, and reports quorum, rewrite and fork', { timeout: 120_000 }, async () => {
    serving.leaves = leavesOf(1300);
    serving.size = 300;
    let r = await once();
    expect(r.code).toBe(0);
    expect(named(r.events, 'checkpoint_verified').map((e) => [e.seq, e.entries])).toEqual([[300, 300]]);

    serving.size = 1000; // crosses full level-0 tiles and reads partial ones
    r = await once();
    expect(r.code).toBe(0);
    expect(named(r.events, 'checkpoint_verified').map((e) => [e.seq, e.entries])).toEqual([[1000, 700]]);
    const state = JSON.parse(await readFile(join(statePath, `${createHash('sha256').update(ORIGIN).digest('hex')}.json`), 'utf8'));
    expect(state.size).toBe(1000);
    expect(state.frontier.length).toBeLessThanOrEqual(10);

    // Nothing new: nothing reported, exit 0.
    r = await once();
    expect(r.code).toBe(0);
    expect(named(r.events, 'checkpoint_verified')).toEqual([]);

    // A checkpoint without the witness's cosignature is below the quorum: reported, not trusted.
    serving.size = 1100;
    serving.cosign = false;
    r = await once();
    expect(r.code).toBe(1);
    expect(named(r.events, 'quorum_lost').map((e) => e.seq)).toEqual([1100]);
    serving.cosign = true;

    // A tree in which leaf 500 (seq 501) changed, signed and cosigned: it does not extend the verified tree.
    const honest = serving.leaves;
    const rewritten = [...honest];
    rewritten[500] = leafHash(Buffer.from('rewritten'));
    serving.leaves = rewritten;
    serving.size = 1200;
    r = await once();
    expect(r.code).toBe(1);
    const rw = named(r.events, 'rewrite_detected');
    expect(rw.length).toBe(1);
    expect(Number(rw[0].from)).toBeLessThanOrEqual(501);
    expect(Number(rw[0].to)).toBeGreaterThanOrEqual(501);
    expect(JSON.parse(await readFile(join(statePath, `${createHash('sha256').update(ORIGIN).digest('hex')}.json`), 'utf8')).size).toBe(
      1000,
    );

    // Back to the honest tree: verified from 1000, nothing skipped.
    serving.leaves = honest;
    r = await once();
    expect(r.code).toBe(0);
    expect(named(r.events, 'checkpoint_verified').map((e) => [e.seq, e.entries])).toEqual([[1200, 200]]);

    // The policy witness's monitoring read shows a checkpoint of another tree at a size we verified: a split view.
    witnessNote = note(rewritten, 1100, true);
    r = await once();
    expect(r.code).toBe(1);
    const fk = named(r.events, 'fork_detected');
    expect(fk.map((e) => e.seq)).toEqual([1100]);
    const evidence = JSON.parse(await readFile(String(fk[0].proof), 'utf8'));
    expect(evidence.theirs).toBe(witnessNote);
    // An agreeing witness view is no finding.
    witnessNote = note(honest, 1200, true);
    r = await once();
    expect(r.code).toBe(0);
  });

  it(
    'cookwala tiles writes the read path as static files, byte for byte, that the monitor follows behind nginx',
    { timeout: 120_000 },
    async () => {
      Object.assign(serving, { leaves: leavesOf(1300), size: 1200, cosign: true });
      const a = join(dir, 'static-a');
      const b = join(dir, 'static-b');
      for (const out of [a, b]) {
        const r = await runCookwala(['tiles', '--tiles', `${base}/log/`, '--out', out]);
        expect(r.code, r.err).toBe(0);
      }
      const list = async (d: string): Promise<string[]> =>
        (await readdir(d, { recursive: true, withFileTypes: true }))
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath, e.name).slice(d.length));
      const files = (await list(a)).sort();
      expect(files).toEqual((await list(b)).sort());
      expect(files).toContain('/tile/0/004.p/176'); // 1200 = 4 x 256 + 176
      for (const f of files) expect(Buffer.compare(await readFile(a + f), await readFile(b + f))).toBe(0);

      const nginx = nginxBinary();
      if (!nginx) {
        console.log('skipped the nginx part: no nginx binary in /usr/sbin or /usr/bin');
        return;
      }
      await mkdir(join(dir, 'nginx'), { recursive: true });
      const ng = await startNginx(nginx, a, join(dir, 'nginx'), 'checkpoint');
      try {
        const cfg = join(dir, 'monitor-nginx.json');
        await writeFile(
          cfg,
          JSON.stringify({
            kind: 'MonitorConfig',
            logs: [{ origin: ORIGIN, kind: 'c2sp', tiles: ng.url, policy: 'policy.json' }],
          }),
        );
        const r = await runCookwala(['monitor', '--config', cfg, '--state', join(dir, 'state-nginx'), '--once']);
        expect(r.code, r.out + r.err).toBe(0);
        expect(named(readLogLines(r.out) as unknown as Array<Record<string, unknown>>, 'checkpoint_verified').map((e) => e.seq)).toEqual([
          1200,
        ]);
      } finally {
        await ng.stop();
      }
    },
  );

  it('exits 2 on an unusable config', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ kind: 'MonitorConfig', logs: [{ origin: ORIGIN, kind: 'c2sp', policy: 'nope.json' }] }));
    const r = await runCookwala(['monitor', '--config', bad, '--once', '--state', join(dir, 's2')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/tiles/);
  });
});
