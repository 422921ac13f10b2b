// witness/server/discovery.ts: how logs find and judge our witness (docs/design.md §7a,
// docs/witnesses.md "Joining the witness network"), on its HTTP port:
//   GET /witness.v0.json  {name, submission_url, monitoring_url, verifier_keys, software}: the shape
//                         Sunlight's witness serves (FiloSottile/sunlight cmd/sunlight witnessInfo at
//                         commit ed0bc38779aeb73c99cee6ab0c294a6ce9a2d9ba), read by Geomys' skylight;
//                         no C2SP spec defines it, so we follow the one implementation that serves it
//   GET /about            the about page the witness network asks every witness for: its C2SP name,
//                         its vkeys (cosignature/v1 and, with that key, ML-DSA-44), the add-checkpoint
//                         URL, how many logs it admits, the lists it follows and how often, and how a
//                         log gets admitted. Plain HTML, no script, no external resource.
// Prefixes end in '/' as in Sunlight (`<submission_url>add-checkpoint`,
// `<monitoring_url><sha256 hex(origin)>/checkpoint`). Left out: bastions (we serve HTTP directly),
// contact details (not in the config). Invariant: every value that reaches the page is escaped;
// a followed list that is a local file is counted, never named (its path is the host's business).

import type { FastifyInstance } from 'fastify';

export interface DiscoveryDeps {
  /** The cosigner's C2SP key name. */
  name: string;
  /** cosignature/v1 vkey first, then the ML-DSA-44 one when the witness has it. */
  vkeys: readonly string[];
  /** Public base URL ending in '/', or undefined while the HTTP server is not listening. */
  baseUrl: () => string | undefined;
  logCount: () => number;
  lists: () => readonly string[];
  listRefreshMs: number;
  software: { name: string; version: string };
}

export interface WitnessV0 {
  name: string;
  submission_url: string;
  monitoring_url: string;
  verifier_keys: string[];
  software: { name: string; version: string };
}

export function witnessV0(d: DiscoveryDeps): WitnessV0 {
  const base = d.baseUrl() ?? '/';
  return { name: d.name, submission_url: base, monitoring_url: base, verifier_keys: [...d.vkeys], software: { ...d.software } };
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]);

function every(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'every hour' : `every ${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return `every ${ms / 60_000} minutes`;
  return `every ${Math.round(ms / 1000)} seconds`;
}

export function renderAboutPage(d: DiscoveryDeps): string {
  const v0 = witnessV0(d);
  const e = escapeHtml;
  const lists = d.lists();
  const urls = lists.filter((l) => /^https?:\/\//.test(l));
  const files = lists.length - urls.length;
  const listText =
    lists.length === 0
      ? '<p>It follows no log list: every log it admits was added by its operator.</p>'
      : `<p>It follows ${lists.length} log list${lists.length === 1 ? '' : 's'} (the witness network's <code>logs/v0</code> format), read at start and ${e(every(d.listRefreshMs))}. A log new to a list is admitted; a log is never removed, and a listed key that differs from the one a log was admitted with is refused.</p>
<ul>${urls.map((u) => `<li><a href="${e(u)}">${e(u)}</a></li>`).join('')}${files ? `<li>${files} local list file${files === 1 ? '' : 's'}</li>` : ''}</ul>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(d.name)}: witness</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.5rem}</style>
</head>
<body>
<h1>${e(d.name)}</h1>
<p>A transparency-log witness (<a href="https://c2sp.org/tlog-witness">c2sp.org/tlog-witness</a>), run with ${e(d.software.name)} ${e(d.software.version)}. It cosigns a log's checkpoint only when it is consistent with the last one it cosigned for that log, and never cosigns two trees of one size.</p>
<h2>Verifier keys</h2>
<p>Put these in your policy (tlog-policy <code>witness</code> lines). The first is a cosignature/v1 (Ed25519) key${d.vkeys.length > 1 ? '; the second an ML-DSA-44 key: every answer carries a line for each' : ''}.</p>
<pre>${d.vkeys.map(e).join('\n')}</pre>
<h2>Submitting checkpoints</h2>
<p>Submission prefix: <code>${e(v0.submission_url)}</code>, so <code>POST ${e(v0.submission_url)}add-checkpoint</code>.<br>
Monitoring prefix: <code>${e(v0.monitoring_url)}</code> (<code>GET &lt;prefix&gt;&lt;hex SHA-256 of the origin&gt;/checkpoint</code>).<br>
The same facts as JSON: <a href="witness.v0.json">witness.v0.json</a>; the logs and their latest cosigned checkpoints: <a href="v1/logs">v1/logs</a>.</p>
<h2>Logs</h2>
<p>It admits ${d.logCount()} log${d.logCount() === 1 ? '' : 's'}. Logs are admitted by the operator's configuration only, never by whoever submits; a submission for another origin is answered 404.</p>
${listText}
<p>To be witnessed: get your log into a list it follows (for the witness network, see <a href="https://witness-network.org/participate/">witness-network.org</a>), or ask its operator to add it by its vkey.</p>
</body>
</html>
`;
}

export function registerDiscoveryRoutes(app: FastifyInstance, d: DiscoveryDeps): void {
  app.get('/witness.v0.json', async (_req, reply) => {
    void reply.header('cache-control', 'no-cache');
    return witnessV0(d);
  });
  app.get('/about', async (_req, reply) => {
    void reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache');
    return renderAboutPage(d);
  });
}
