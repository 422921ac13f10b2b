// web/server/pages.ts: serving the built pages of web/ (docs/design.md §12b) from any fastify app: a tiny
// handler of our own rather than a static-files plugin, since there are exactly three fixed files
// (web/dist/*.html, each self-contained) and no path from a request ever reaches the file system.
// Each page goes out with its Content-Security-Policy as a header too (from web/dist/manifest.json,
// plus frame-ancestors 'none', which a <meta> cannot carry), nosniff, no referrer, and no-cache
// (a rebuilt page is picked up at once). A page that was not built answers 503 with the command
// that builds it. Left out: building (web/build.ts; the servers never need esbuild at run time).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const DIST_DIR = fileURLToPath(new URL('../dist', import.meta.url));

export type PageName = 'verifier' | 'explorer' | 'witness';

async function readPage(dir: string, name: PageName): Promise<{ html: string; csp: string } | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Record<string, { file: string; csp: string }>;
    const p = manifest[name];
    if (!p || p.file !== `${name}.html`) return undefined;
    return { html: await readFile(join(dir, p.file), 'utf8'), csp: p.csp };
  } catch {
    return undefined;
  }
}

export async function sendPage(reply: FastifyReply, name: PageName, dir = DIST_DIR): Promise<FastifyReply> {
  const p = await readPage(dir, name);
  reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('cache-control', 'no-cache');
  if (!p) {
    return reply
      .status(503)
      .type('text/plain; charset=utf-8')
      .send(`The ${name} page is not built. Run \`npm run build:web\` (or \`npm install\`) in the cookwala-log checkout, then reload.\n`);
  }
  reply.header('content-security-policy', `${p.csp}; frame-ancestors 'none'`);
  return reply.type('text/html; charset=utf-8').send(p.html);
}

/** GET `path` answers the page `name` (and HEAD, which fastify derives). */
export function registerPage(app: FastifyInstance, path: string, name: PageName, dir = DIST_DIR): void {
  app.get(path, async (_request, reply) => sendPage(reply, name, dir));
}
