// bench/http-client.ts: the keep-alive node:http client the bench sections drive a sequencer with
// (docs/benchmarks.md): `call(method, path, body?, headers?)` answers the status and the whole body
// as text, over at most `sockets` connections to 127.0.0.1:port. Left out: bounds on the body (the
// server is the bench's own) and retries (a section counts what it got).

import { request, Agent } from 'node:http';

export interface BenchHttp {
  call(method: string, path: string, body?: Buffer, headers?: Record<string, string>): Promise<{ status: number; body: string }>;
  close(): void;
}

export function benchHttpClient(port: number, sockets: number): BenchHttp {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const call = (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method, path, agent, headers: body ? { ...headers, 'content-length': String(body.length) } : headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}
