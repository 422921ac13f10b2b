// testkit/net.ts: a free TCP port on 127.0.0.1 for a child process to listen on (the OS
// picks it; the tiny window before the child binds is acceptable for tests and benches).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}
