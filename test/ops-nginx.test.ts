// TLS termination with Debian's nginx in front of a sequencer (docs/operations.md "TLS and a public
// address"): the shipped ops/nginx/cookwala-sequencer.conf, with only its listen addresses, the
// certificate paths and the upstream port replaced, runs as a real nginx on 127.0.0.1 with a
// throwaway self-signed certificate (openssl). Through it, with the certificate trusted by
// NODE_EXTRA_CA_CERTS: the operator registers a device key, the device posts structured and
// binary events (headers and bodies pass unchanged, so the signatures hold), the checkpoint and
// entries are read, plain HTTP is redirected to HTTPS, and an oversized body gets the sequencer's
// own problem+json. Skipped, with the reason printed, only when nginx or openssl is absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cookwala, ROOT } from '../testkit/audit.ts';
import { spawnCookwala, stopChild, type Child } from '../testkit/witness-procs.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { freePort } from '../testkit/net.ts';
import { waitFor } from '../testkit/wait.ts';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
const OPENSSL = ['/usr/bin/openssl'].find((p) => existsSync(p));
const missing = !NGINX ? 'nginx is not installed (Debian package nginx)' : !OPENSSL ? 'openssl is not installed' : undefined;
if (missing) process.stdout.write(`test/ops-nginx.test.ts skipped: ${missing}\n`);

const tmp = tempDirs('cookwala-nginx-');
const LOG = 'tls.example/missions/m-1';

describe.skipIf(missing !== undefined)('nginx terminates TLS in front of a sequencer', () => {
  let dir: string;
  let sequencer: Child;
  let nginx: ChildProcess | undefined;
  let https = '';
  let httpPort = 0;
  let env: Record<string, string> = {};

  beforeAll(async () => {
    dir = await tmp.make();
    const seqDir = join(dir, 'seq');
    expect((await cookwala(['init', '--data', seqDir, '--log', LOG])).code).toBe(0);
    sequencer = spawnCookwala(['sequencer', '--data', seqDir, '--port', '0']);
    const upstream = new URL((await sequencer.logs.next('listening', undefined, 60_000)).url as string);
    execFileSync(OPENSSL!, [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    const tlsPort = await freePort();
    httpPort = await freePort();
    const site = (await readFile(join(ROOT, 'ops/nginx/cookwala-sequencer.conf'), 'utf8'))
      .replace('server 127.0.0.1:8700;', `server 127.0.0.1:${upstream.port};`)
      .replace(/^ {4}listen 80;$/m, `    listen 127.0.0.1:${httpPort};`)
      .replace(/^ {4}listen 443 ssl http2;$/m, `    listen 127.0.0.1:${tlsPort} ssl http2;`)
      .replace(/^ {4}listen \[::\].*\n/gm, '')
      .replace(/\/etc\/letsencrypt\/live\/log\.example\.org\/fullchain\.pem/, join(dir, 'cert.pem'))
      .replace(/\/etc\/letsencrypt\/live\/log\.example\.org\/privkey\.pem/, join(dir, 'key.pem'));
    expect(site).toContain(`127.0.0.1:${tlsPort} ssl`);
    await writeFile(join(dir, 'site.conf'), site);
    for (const t of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(join(dir, 'tmp', t), { recursive: true });
    const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
    await writeFile(
      join(dir, 'nginx.conf'),
      `${user}daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents { worker_connections 64; }\n` +
        `http {\n  access_log ${dir}/access.log;\n` +
        ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
          .map((t) => `  ${t === 'body' ? 'client_body' : t}_temp_path ${dir}/tmp/${t};\n`)
          .join('') +
        `  include ${dir}/site.conf;\n}\n`,
    );
    execFileSync(NGINX!, ['-t', '-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], { stdio: 'pipe' });
    nginx = spawn(NGINX!, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], { stdio: 'ignore' });
    https = `https://127.0.0.1:${tlsPort}`;
    env = { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') };
    await waitFor(async () => (await cookwala(['checkpoint', '--url', https, '--log', LOG], { env })).code === 0 || undefined, {
      what: 'nginx to proxy the sequencer',
      timeoutMs: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const gone = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGQUIT');
      await gone;
    }
    if (sequencer) await stopChild(sequencer);
    await tmp.cleanup();
  });

  it('keys, structured and binary posts, reads and the redirect all work through TLS', async () => {
    const at = (f: string) => join(dir, f);
    const target = ['--url', https, '--log', LOG];
    const source = 'urn:cookwala:device:tls-1';
    expect(
      (await cookwala(['device', 'keygen', '--kid', 'tls-1', '--source', source, '--out', at('k.json'), '--record', at('r.json')])).code,
    ).toBe(0);
    const reg = await cookwala(['keys', 'register', at('r.json'), ...target, '--token-file', join(dir, 'seq', 'operator.token')], { env });
    expect(reg.code, reg.stderr).toBe(0);
    const ev = (id: string, extra: object) =>
      JSON.stringify({ specversion: '1.0', id, source, type: 'cookwala.execution.running', subject: id, cookwalaseq: 1, ...extra });
    await writeFile(at('e1.json'), ev('tls-e1', { datacontenttype: 'application/json', data: { step: 1 } }));
    await writeFile(at('e2.json'), ev('tls-e2', { datacontenttype: 'application/octet-stream', data_base64: 'AAECAw==' }));
    for (const [f, extra] of [
      ['e1', []],
      ['e2', ['--binary']],
    ] as const) {
      expect((await cookwala(['device', 'sign', at(`${f}.json`), '--key', at('k.json'), '--out', at(`${f}.s.json`)])).code).toBe(0);
      const p = await cookwala(['device', 'post', at(`${f}.s.json`), ...extra, ...target], { env });
      expect(p.code, p.stderr + p.stdout).toBe(0);
      expect(JSON.parse(p.stdout).seq).toBeGreaterThan(0);
    }
    const cp = await cookwala(['checkpoint', ...target, '--wait', '30s'], { env });
    expect(cp.code, cp.stderr).toBe(0);
    expect(cp.stdout).toMatch(/seq 2\b/);
    const out = await cookwala(['export', ...target, '--out', at('b.ndjson')], { env });
    expect(out.code, out.stderr).toBe(0);
    const v = await cookwala(['verify', at('b.ndjson'), '--policy', join(dir, 'seq', 'policy.json')]);
    expect(v.code, v.stdout).toBe(0);

    const plain = await fetch(`http://127.0.0.1:${httpPort}/v1/logs/x`, { redirect: 'manual' });
    expect(plain.status).toBe(308);
    expect(plain.headers.get('location')).toMatch(/^https:\/\//);
    const access = await readFile(at('access.log'), 'utf8');
    expect(access).toMatch(/POST \/v1\/logs\/tls\.example%2Fmissions%2Fm-1\/events HTTP\/1\.1" 201/);
  }, 180_000);
});
