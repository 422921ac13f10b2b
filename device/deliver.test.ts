// device/deliver.ts over real HTTP (node:http on 127.0.0.1): a 503 not_leader is followed to the
// leader it names, 5xx and 429 are retried with the same Idempotency-Key and body, 4xx is final,
// and the key is derived from the mode and the events' (source, id).
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { allAccepted, deliver, idempotencyKeyOf, requestOf } from './deliver.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

interface Seen {
  key: string | undefined;
  body: string;
}

async function serve(answer: (n: number, req: IncomingMessage) => [number, unknown]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, body });
      const [status, json] = answer(seen.length, req);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address() as { port: number };
  return { url: `http://127.0.0.1:${a.port}`, seen };
}

const ev = { specversion: '1.0' as const, id: 'e-1', source: 'urn:cookwala:device:t', type: 't' };
const fast = { backoffMs: () => 1, log: 'l.example/m' };

describe('deliver', () => {
  it('follows not_leader to the leader and retries 5xx and 429 with the same request', async () => {
    const leader = await serve((n) =>
      n < 3 ? [n === 1 ? 503 : 429, { code: n === 1 ? 'store_failed' : 'rate_limited' }] : [201, { seq: 9 }],
    );
    const standby = await serve(() => [503, { code: 'not_leader', leader: leader.url }]);
    const d = await deliver(requestOf('structured', [ev]), { ...fast, url: standby.url });
    expect(d).toMatchObject({ status: 201, body: { seq: 9 }, url: leader.url, attempts: 4 });
    expect(allAccepted(d)).toBe(true);
    const keys = [...standby.seen, ...leader.seen].map((s) => s.key);
    expect(new Set(keys)).toEqual(new Set([idempotencyKeyOf('structured', [ev])]));
    expect(new Set([...standby.seen, ...leader.seen].map((s) => s.body)).size).toBe(1);
  });

  it('takes a 4xx as final, and a batch with a refused item as not all accepted', async () => {
    const s = await serve((n) =>
      n === 1 ? [403, { code: 'key_revoked' }] : [200, { results: [{ status: 201 }, { status: 409, code: 'out_of_order' }] }],
    );
    const d = await deliver(requestOf('structured', [ev]), { ...fast, url: s.url });
    expect(d).toMatchObject({ status: 403, attempts: 1 });
    expect(allAccepted(d)).toBe(false);
    const b = await deliver(requestOf('batch', [ev, { ...ev, id: 'e-2' }]), { ...fast, url: s.url });
    expect(allAccepted(b)).toBe(false);
  });

  it('gives up on an unreachable sequencer after the retries, and keys differ by mode and events', async () => {
    const s = await serve(() => [200, {}]);
    const port = new URL(s.url).port;
    await new Promise((r) => servers.pop()!.close(r));
    await expect(deliver(requestOf('structured', [ev]), { ...fast, url: `http://127.0.0.1:${port}`, retries: 2 })).rejects.toThrow();
    expect(idempotencyKeyOf('structured', [ev])).not.toBe(idempotencyKeyOf('binary', [ev]));
    expect(idempotencyKeyOf('batch', [ev])).not.toBe(idempotencyKeyOf('batch', [ev, ev]));
    expect(idempotencyKeyOf('batch', [ev])).toMatch(/^ce-[A-Za-z0-9_-]{43}$/);
  });
});
