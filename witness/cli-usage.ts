// witness/cli-usage.ts: the help of each `cookwala witness` subcommand, the choice between them
// (an unknown one gets "did you mean"), and one line for each fault a witness can meet when it
// starts: a busy --listen or --http-port, a --bootstrap that is not a /p2p/ multiaddr.
// Pure text and pure checks: the commands themselves are witness/cli.ts.

import { multiaddr } from '@multiformats/multiaddr';

export const SUBCOMMANDS = ['init', 'add-log', 'run'] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

export const SUB_USAGE: Record<Subcommand, string> = {
  init: `usage: cookwala witness init --data DIR [--name N] [--c2sp-name NAME] [--key FILE] [--http-port P]
                             [--listen MULTIADDR]... [--bootstrap MULTIADDR]... [--mldsa44 | --mldsa44-key SKEYFILE]

Creates the witness key (witness.key.json, 0600), its KeyRecord, a libp2p identity (peer.key) and
witness.json in DIR (idempotent; never replaces a key; a DIR of another kind is refused). Prints
the peer id, the multiaddrs, the KeyRecord and the C2SP vkey, and keeps them in
DIR/witness-info.json, the file a sequencer operator passes to \`cookwala policy add-witness --from\`.
Give a fixed --listen port (e.g. /ip4/127.0.0.1/tcp/4001): with port 0 the multiaddr is known only
once the witness runs.
  --c2sp-name NAME  the key name of its cosignature/v1 key (default --name); a schema-less URL
                    you control is best, e.g. witness.example.org/w1. The vkey depends on it.
  --key FILE        keep an existing Ed25519 witness key instead of making one: a C2SP
                    PRIVATE+KEY+<name>+<id>+<base64> line (its name becomes the C2SP name), a raw
                    32-byte seed (or 64 hex digits), or another witness's witness.key.json.
                    The witness then has the same vkey as before.
  --mldsa44          add a post-quantum ML-DSA-44 cosigner key (witness.mldsa44.skey, 0600; a C2SP
                    signed-note skey, type 0x06, a 32-byte seed) under the witness's C2SP name;
  --mldsa44-key FILE import one in that form. Then every C2SP add-checkpoint answer carries an
                    Ed25519 and an ML-DSA-44 cosignature line.`,
  'add-log': `usage: cookwala witness add-log --data DIR --log ORIGIN --sequencer-key KEYRECORD.json
       cookwala witness add-log --data DIR [--origin ORIGIN] --vkey VKEY
       cookwala witness add-log --data DIR --log-list PATH_OR_URL

--vkey admits a C2SP log (any tlog-checkpoint log: Sigsum, Tessera, Sunlight…) by its signed-note
vkey; ORIGIN defaults to the vkey's key name. --log-list follows a witness-network logs/v0 list:
logs are added from it at start and hourly, never removed or changed (a changed vkey is refused
and logged). Both are cosigned over C2SP tlog-witness HTTP (POST /add-checkpoint).

Admits a log: only checkpoints of ORIGIN signed by this sequencer key are cosigned. The file may be
the sequencer's KeyRecord (SEQ/sequencer.keyrecord.json), its policy.json or its
/.well-known/cookwala.json. Admission is add-only: a log keeps its key, and is never removed.
A running witness on DIR takes the log at once (it watches witness.json): add-log waits until its
status API lists it, and says so (exit 1 if it did not within 10 s; the log stays admitted).`,
  run: `usage: cookwala witness [run] --data DIR [--bootstrap MULTIADDR]...

Starts the witness: libp2p (/cookwala/witness/1.0.0, gossip) and the status API. It rewrites
DIR/witness-info.json with the addresses it listens on, and stops cleanly on SIGTERM/SIGINT.
--bootstrap: another witness's multiaddr ending in /p2p/<peerId>, or the path (relative or
absolute) of its witness-info.json (its first multiaddr is taken): a value naming a file that
exists is a file, anything else a multiaddr.
While it runs it watches DIR/witness.json: logs added with \`witness add-log\` are cosigned at once.`,
};

export const WITNESS_USAGE = `usage:
  cookwala witness init --data DIR [--name N] [--c2sp-name NAME] [--key FILE] [--http-port P] [--listen MULTIADDR]...
  cookwala witness add-log --data DIR (--log ORIGIN --sequencer-key KEYRECORD.json | [--origin O] --vkey VKEY | --log-list L)
  cookwala witness [run] --data DIR [--bootstrap MULTIADDR]...

init      create (or import) the witness key, its KeyRecord, a libp2p identity and witness-info.json
add-log   admit a log (Cookwala by sequencer key, C2SP by vkey); a running witness takes it at once
run       start the witness: libp2p (/cookwala/witness/1.0.0, gossip) and the status API

\`cookwala witness SUBCOMMAND --help\` prints that subcommand's options.`;

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length];
}

/** The subcommand a word most likely meant (a prefix, or at most 2 edits away), if any. */
export function didYouMean(word: string, choices: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const prefix = choices.find((c) => c.startsWith(w) || w.startsWith(c));
  if (prefix) return prefix;
  let best: string | undefined;
  let bestD = 3;
  for (const c of choices) {
    const dist = editDistance(w, c);
    if (dist < bestD) {
      best = c;
      bestD = dist;
    }
  }
  return best;
}

/**
 * --bootstrap values as multiaddrs. A value naming a file that exists is the path of another
 * witness's witness-info.json (absolute paths start with '/' as multiaddrs do, so the file system
 * decides), whose first multiaddr is taken; any other value is a multiaddr (checkBootstrap says
 * what is wrong with it).
 */
export async function resolveBootstrap(values: readonly string[]): Promise<{ ok: true; addrs: string[] } | { ok: false; line: string }> {
  const { readFile, stat } = await import('node:fs/promises');
  const { parseJson } = await import('../verifier/encoding/index.ts');
  const out: string[] = [];
  for (const v of values) {
    const isFile = await stat(v).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!isFile) {
      if (v.startsWith('/')) {
        out.push(v);
        continue;
      }
      return {
        ok: false,
        line: `--bootstrap ${v} is neither a multiaddr nor an existing witness-info.json (run that witness once, or give /ip4/…/tcp/…/p2p/…)`,
      };
    }
    const t = await readFile(v, 'utf8').catch(() => undefined);
    const j = t === undefined || t.length > 1_000_000 ? undefined : parseJson(t);
    const a = j?.ok ? (j.value as { multiaddrs?: unknown } | null)?.multiaddrs : undefined;
    if (!Array.isArray(a) || typeof a[0] !== 'string')
      return {
        ok: false,
        line: `--bootstrap ${v} is a file but not a witness-info.json with a multiaddr (run that witness once so it writes its addresses, or give /ip4/…/tcp/…/p2p/…)`,
      };
    out.push(a[0]);
  }
  return { ok: true, addrs: out };
}

/** A --bootstrap value: a multiaddr that ends in /p2p/<peerId>; else the line that says so. */
export function checkBootstrap(addrs: readonly string[], flag = '--bootstrap'): string | undefined {
  for (const a of addrs) {
    let ok: boolean;
    try {
      ok = multiaddr(a)
        .getComponents()
        .some((c) => c.name === 'p2p' && typeof c.value === 'string' && c.value.length > 0);
    } catch {
      ok = false;
    }
    if (!ok)
      return `${flag} ${a} is not a multiaddr ending in /p2p/<peerId>, nor an existing file (give the other witness's witness-info.json path, or its multiaddr, e.g. /ip4/127.0.0.1/tcp/4001/p2p/12D3Koo…)`;
  }
  return undefined;
}

/** One line for a start failure whose cause an operator can fix, naming where; else undefined. */
export function describeStartFault(e: unknown, where: { listen: string[]; httpPort: number; dir: string }): string | undefined {
  const text = `${(e as Error)?.message ?? ''} ${(e as { code?: string })?.code ?? ''} ${String((e as { cause?: unknown })?.cause ?? '')}`;
  if (/faultTolerance|EADDRINUSE|address already in use|Could not listen|NoValidAddresses/i.test(text)) {
    if (/EADDRINUSE/.test(text) && where.httpPort > 0 && text.includes(`:${where.httpPort}`)) {
      return `the status API port ${where.httpPort} is in use: stop what holds it, or pick another with \`cookwala witness init --data ${where.dir} --http-port P\` on a new DIR (or edit httpPort in ${where.dir}/witness.json)`;
    }
    return `cannot listen on ${where.listen.join(', ')} (the port is in use or the address is not this machine's): stop what holds it, or change listen in ${where.dir}/witness.json (\`witness init --listen\` sets it on a new DIR)`;
  }
  if (/Component .* was missing|invalid multiaddr|multiaddr/i.test(text))
    return `a multiaddr in ${where.dir}/witness.json (listen or bootstrap) or --bootstrap is not valid: ${(e as Error).message.split('\n')[0]}`;
  return undefined;
}
