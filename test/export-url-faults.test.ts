// `cookwala export --url` as a child process against a server that answers the probe
// (GET …/.well-known/cookwala.json; the first path segment picks the fault) as a sequencer does, then serves the bundle badly (docs/failover.md,
// "Export over HTTP"): cut inside the chunked body or a malformed chunk-size line (exit 2: the
// environment), or a 404 (exit 1, not_found). Each prints one line saying what went wrong and
// leaves neither FILE nor FILE.partial; a whole answer, written in small pieces, lands byte for byte with exit 0.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cookwala } from '../testkit/audit.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const LOG = 'faults.example/missions/m-1';
const BODY = Buffer.from('{"kind":"line"}\n'.repeat(20_000));
let dir: string;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-export-faults-');
  server = createServer((req, res) => {
    if (req.url?.endsWith('/.well-known/cookwala.json')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ keys: [{ role: 'sequencer' }], logs: [LOG] }));
    }
    const fault = new URL(req.url ?? '/', 'http://x').pathname.split('/')[1];
    if (fault === 'notfound') return void res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"code":"not_found"}');
    if (fault === 'malformed') {
      res.socket!.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"kind":"line"}\n\r\nnot-hex\r\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const half = fault === 'cut' ? BODY.length / 2 : BODY.length;
    for (let i = 0; i < half; i += 7_000) res.write(BODY.subarray(i, Math.min(half, i + 7_000)));
    if (fault === 'cut') res.socket!.destroySoon();
    else res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  url = `http://127.0.0.1:${a && typeof a === 'object' ? a.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await removeDir(dir);
});

it('a whole answer lands byte for byte; a cut, malformed or refused one is one line and leaves no file', async () => {
  const out = join(dir, 'whole.ndjson');
  const whole = await cookwala(['export', '--url', `${url}/whole`, '--log', LOG, '--out', out]);
  expect(whole.code, whole.stderr).toBe(0);
  expect((await readFile(out)).equals(BODY)).toBe(true);

  for (const [fault, code, line] of [
    ['cut', 2, /ended inside the chunked body.*nothing was written/],
    ['malformed', 2, /sent a malformed answer: a malformed chunk-size line.*nothing was written/],
    ['notfound', 1, /not_found: GET …\/bundle answered 404/],
  ] as const) {
    const file = join(dir, `${fault}.ndjson`);
    const r = await cookwala(['export', '--url', `${url}/${fault}`, '--log', LOG, '--out', file]);
    expect(r.code, `${fault}: ${r.stderr}`).toBe(code);
    expect(r.stderr.trim().split('\n'), fault).toHaveLength(1);
    expect(r.stderr, fault).toMatch(line);
    expect(existsSync(file), fault).toBe(false);
    expect(existsSync(`${file}.partial`), fault).toBe(false);
  }
}, 120_000);
