// testkit/nginx.ts: Debian's nginx serving a directory of static files on 127.0.0.1 (a port of its
// own, every path it writes under a directory of the test's), as the static-copy tests put a
// `cookwala tiles --out DIR` behind a real web server (docs/monitoring.md "Static tiles").
// Left out: TLS, caching headers. Invariant: `stop` ends only the nginx process this started.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './net.ts';
import { waitFor } from './wait.ts';

/** The nginx binary, or undefined when none is installed (a test then skips its nginx part, saying so). */
export const nginxBinary = (): string | undefined => ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

export interface Nginx {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** The master process (its one worker is its child). */
  pid: number;
  stop(): Promise<void>;
}

/** nginx serving `root`, its config, pid and logs under `work`; resolved once `probe` answers 200. */
export async function startNginx(binary: string, root: string, work: string, probe: string): Promise<Nginx> {
  const port = await freePort();
  await mkdir(join(work, 'tmp'), { recursive: true });
  const t = join(work, 'tmp');
  await writeFile(
    join(work, 'nginx.conf'),
    // As root, nginx's workers would otherwise run as nobody, who cannot read the 0700 temp dir.
    `${process.getuid?.() === 0 ? 'user root;' : ''} daemon off; worker_processes 1; pid ${work}/nginx.pid; error_log ${work}/error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; client_body_temp_path ${t}; proxy_temp_path ${t}; fastcgi_temp_path ${t};
  uwsgi_temp_path ${t}; scgi_temp_path ${t}; default_type application/octet-stream;
  server { listen 127.0.0.1:${port}; root ${root}; location / { } } }
`,
  );
  const proc = spawn(binary, ['-p', work, '-c', join(work, 'nginx.conf'), '-e', join(work, 'error.log')], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}/`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(
      async () =>
        (await fetch(url + probe).then(
          (r) => r.status === 200,
          () => false,
        )) || undefined,
      {
        what: 'nginx to serve the static files',
        timeoutMs: 20_000,
        detail: () => (existsSync(join(work, 'error.log')) ? readFileSync(join(work, 'error.log'), 'utf8').slice(-500) : 'no error.log'),
      },
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, pid: proc.pid!, stop };
}
