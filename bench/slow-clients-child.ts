// bench/slow-clients-child.ts: the slow side of bench/slow-connections.ts, in its own process (its
// own file descriptors): `node --import tsx bench/slow-clients-child.ts PORT COUNT SECONDS ADDRS`
// opens COUNT connections to 127.0.0.1:PORT from the loopback addresses ADDRS (comma-separated,
// round robin), each sending a request's headers one byte a second and never finishing them, and
// prints one JSON line when every connection has closed or SECONDS have passed: how many
// connected, how many the server answered 503 (shed at once) or 408 (timed out), how many it
// closed otherwise, how many were still open at the end, and when the last one closed.

import { connect, type Socket } from 'node:net';

const [portArg, countArg, secondsArg, addrsArg] = process.argv.slice(2);
const port = Number(portArg);
const count = Number(countArg);
const deadline = Date.now() + Number(secondsArg) * 1000;
const addrs = (addrsArg ?? '127.0.0.1').split(',');
const t0 = Date.now();
let connected = 0;
let failed = 0;
let open = 0;
let lastCloseMs = 0;
const status: Record<string, number> = {};
const sockets: Socket[] = [];
const HEAD = 'GET /v1/logs HTTP/1.1\r\nHost: x\r\nX-Slow: ';

function one(i: number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: addrs[i % addrs.length] });
    sockets.push(s);
    let first = '';
    s.setNoDelay(true);
    s.on('connect', () => {
      connected++;
      open++;
      s.write(HEAD);
      resolve();
    });
    s.on('data', (d: Buffer) => {
      if (first.length < 16) first += d.toString('latin1');
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      if (s.readyState !== 'closed' && !first && !connected) failed++;
      const code = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 'closed';
      status[code] = (status[code] ?? 0) + 1;
      open = Math.max(0, open - 1);
      lastCloseMs = Date.now() - t0;
      resolve();
    });
  });
}

// Connect in waves of 500 so the kernel's accept queue is not the first thing to refuse.
for (let i = 0; i < count; i += 500) await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, k) => one(i + k)));
const drip = setInterval(() => {
  for (const s of sockets) if (!s.destroyed && s.writable) s.write('a');
}, 1000);
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (open === 0 || Date.now() > deadline) {
      clearInterval(check);
      resolve();
    }
  }, 100);
});
clearInterval(drip);
const stillOpen = open;
for (const s of sockets) s.destroy();
process.stdout.write(JSON.stringify({ count, connected, failed, stillOpen, status, lastCloseMs }) + '\n');
