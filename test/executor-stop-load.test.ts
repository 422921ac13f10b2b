// Stop under load (Core 0.2 §6.2) against real executor processes. First an HTTP stop carrying a
// 2 MiB body among 60 concurrent creates and reads: it answers 200 and the execution stops; a
// second stop answers 200 `stopped`. Then the HTTP server is saturated: --max-connections 16 and
// 16 connections each holding a create whose body never comes (the server's `100 Continue` says
// it took each), so a new HTTP request is dropped (checked). The device's local stop control
// still works, because it does not go through HTTP: a line `stop <id>` on DATA/control.sock stops
// one execution, and SIGUSR2 stops every other one; both reach `stopped` while the server is
// still saturated.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnExecutor, statusLine, type ExecutorProcess } from '../testkit/executor.ts';
import { tempDirs } from '../testkit/tmp.ts';

const dirs = tempDirs('cookwala-exec-stopload-');
const children: ExecutorProcess[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const c of children) await c.close();
  await dirs.cleanup();
});

const LONG = { recipe: { id: 'stock', steps: [{ op: 'cw.op.simmer', params: { tempC: 90, durationS: 14_000 } }] } };
let n = 0;

/**
 * A connection holding a create whose body never comes. It sends `Expect: 100-continue`, so the
 * server says when it has taken the request (`100 Continue`); a server at its connection limit
 * closes the socket instead. Resolves 'held' or 'dropped': events, no timing.
 */
function slowCreate(port: number, host: string, i: number): Promise<'held' | 'dropped'> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    sockets.push(s);
    s.on('error', () => undefined);
    s.on('close', () => resolve('dropped'));
    s.on('data', (d: Buffer) => {
      if (d.toString().startsWith('HTTP/1.1 100')) resolve('held');
    });
    s.write(
      `POST /v1/executions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nIdempotency-Key: slow-${i}\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n`,
    );
  });
}

/** One HTTP request on its own connection (Connection: close), resolved once that connection has closed. */
function once(
  url: string,
  method = 'GET',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          connection: 'close',
          ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.socket.once('close', () =>
          resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** One line from the device's control socket. */
function control(path: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('end', () => resolve(out.trim()));
    s.on('error', reject);
    s.write(line + '\n');
  });
}

describe('stop under load', () => {
  it('an HTTP stop with a 2 MiB body among 60 concurrent requests answers 200 and stops', async () => {
    const child = await spawnExecutor(await dirs.make(), ['--speed', '100']);
    children.push(child);
    const { url } = child;
    const r0 = await fetch(`${url}/v1/executions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'c' },
      body: JSON.stringify(LONG),
    });
    expect(r0.status).toBe(201);
    const c = ((await r0.json()) as { id: string }).id;
    await child.until(statusLine(c, 'running'), 'c running');
    const big = '{"why":"' + 'x'.repeat(2 * 1024 * 1024) + '"}';
    const load = Array.from({ length: 60 }, (_, i) =>
      (i % 2
        ? fetch(`${url}/v1/capabilities`)
        : fetch(`${url}/v1/executions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': `load-${i}` },
            body: JSON.stringify({ recipe: { id: `l${i}`, steps: [{ op: 'cw.op.stir', params: { durationS: 1 } }] } }),
          })
      ).then((r) => r.status),
    );
    const stop = await fetch(`${url}/v1/executions/${c}/stop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    const sj = (await stop.json()) as { status: string };
    expect([stop.status, ['stopping', 'stopped'].includes(sj.status)]).toEqual([200, true]);
    await child.until(statusLine(c, 'stopped'), 'c stopped over HTTP');
    const statuses = await Promise.all(load);
    expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
    const again = await fetch(`${url}/v1/executions/${c}/stop`, { method: 'POST' });
    expect([again.status, ((await again.json()) as { status: string }).status]).toEqual([200, 'stopped']);
  });

  it('with the HTTP server saturated, the control socket and SIGUSR2 still stop (they never go through HTTP)', async () => {
    const data = await dirs.make();
    const child = await spawnExecutor(data, ['--speed', '100', '--max-connections', '16']);
    children.push(child);
    const { url } = child;
    const create = async () => {
      const r = await once(`${url}/v1/executions`, 'POST', LONG, { 'idempotency-key': `k${++n}` });
      expect(r.status).toBe(201);
      return r.json.id as string;
    };
    const a = await create();
    const b = await create();
    await child.until((l) => statusLine(a, 'running')(l) && statusLine(b, 'running')(l), 'both running');

    // Saturate: connections that each hold a create, until the server drops a new one.
    const { hostname, port } = new URL(url);
    let held = 0;
    let dropped = false;
    for (let i = 0; i < 64 && !dropped; i++) {
      if ((await slowCreate(Number(port), hostname, i)) === 'held') held++;
      else dropped = true;
    }
    expect([held, dropped]).toEqual([16, true]);
    expect(
      await once(`${url}/v1/capabilities`).then(
        () => 'answered',
        () => 'failed',
      ),
    ).toBe('failed');

    // The device's own stop controls, around HTTP.
    const answer = JSON.parse(await control(join(data, 'control.sock'), `stop ${a}`)) as { stopped: Array<{ id: string; status: string }> };
    expect(answer.stopped.map((x) => x.id)).toEqual([a]);
    expect(['stopping', 'stopped']).toContain(answer.stopped[0].status);
    await child.until(statusLine(a, 'stopped'), 'a stopped by the control socket');
    child.proc.kill('SIGUSR2');
    await child.until(statusLine(b, 'stopped'), 'b stopped by SIGUSR2');
    expect(child.lines.some((l) => l.startsWith('local stop (SIGUSR2):') && l.includes(b))).toBe(true);
    for (const id of [a, b])
      expect(child.lines.find((l) => l.startsWith(`status ${id} `) && l.includes(' stopped'))).toContain('(local_stop)');
    expect(JSON.parse(await control(join(data, 'control.sock'), 'reboot please'))).toHaveProperty('error');
    // Still saturated after both stopped: nothing went through HTTP.
    expect(
      await once(`${url}/v1/capabilities`).then(
        () => 'answered',
        () => 'failed',
      ),
    ).toBe('failed');
  });
});
