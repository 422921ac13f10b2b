// auditor/keys.ts: `cookwala keys fetch URL|did:web:… --cache FILE [--role R] [--valid-from T]`
// and `cookwala keys show --cache FILE [--json]` (docs/design.md §3, §8; Core §5 "verifiers cache key
// records for offline use"). fetch reads /.well-known/cookwala.json of a service (or any {keys:[…]}
// document at a given path) or a did:web document (did-web.ts), and merges the KeyRecords into
// the key cache file {"kind":"KeyCache","keys":[…]}: a new kid is added; a known kid with the same
// public key takes the newer record (e.g. one that adds revokedAt); a known kid with ANOTHER public
// key is refused (key_conflict) and the file is left as it was. The file is replaced atomically
// (write, rename). This is the only command of the verifier that uses the network, and it is
// separate from verification, which stays offline. Exit 0 done, 1 refused, 2 usage or unreachable.

import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError, readTextCapped } from '../platform/index.ts';
import { keySourceOf, keysFromDidDocument, keysFromKeysDocument } from './did-web.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import { isTime } from '../verifier/encoding/index.ts';
import { KEY_ROLES, sameKey, type KeyRecord, type KeyRole } from '../verifier/signing/index.ts';

const USAGE = `usage: cookwala keys fetch (URL | did:web:HOST[:PATH…]) --cache FILE [--role ROLE] [--valid-from TIME]
       cookwala keys show --cache FILE [--json]

fetch  reads /.well-known/cookwala.json of a service (or the {keys:[…]} document at a URL's path)
       or a did:web document, and merges its keys into the key cache FILE (created if absent).
       For did:web keys, --role (default operator) and --valid-from (default 1970-01-01T00:00:00.000Z)
       fill in what a DID document does not say. http is allowed only for localhost/127.0.0.1.
show   lists the cached keys.`;

async function readCache(path: string): Promise<KeyRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const j = parseJson(text);
  const r = j.ok ? readDocument('KeyCache', j.value) : j;
  if (!r.ok) throw new UsageError(`${path} is not a key cache: ${r.code}: ${r.detail}`);
  return r.value.all();
}

async function fetchKeys(target: string, role: KeyRole, validFrom: string): Promise<{ keys: KeyRecord[]; skipped: string[]; url: string }> {
  const src = keySourceOf(target);
  if (!src.ok) throw new UsageError(src.detail);
  const res = await fetch(src.value.url, { headers: { accept: 'application/json, application/did+json' } });
  if (res.status !== 200) throw new Error(`GET ${src.value.url} answered ${res.status}`);
  const j = parseJson(await readTextCapped(res, 16 << 20));
  if (!j.ok) throw new Error(`${src.value.url} is refused: ${j.code}: ${j.detail}`);
  const r =
    src.value.kind === 'did' ? keysFromDidDocument(j.value, src.value.did as string, { role, validFrom }) : keysFromKeysDocument(j.value);
  if (!r.ok) throw new Error(`${src.value.url}: ${r.code}: ${r.detail}`);
  return { ...r.value, url: src.value.url };
}

async function fetchCommand(target: string, cache: string, role: KeyRole, validFrom: string): Promise<number> {
  let got;
  try {
    got = await fetchKeys(target, role, validFrom);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const cause = (e as Error & { cause?: Error }).cause;
    process.stderr.write(`cookwala keys: ${(e as Error).message}${cause ? ` (${cause.message})` : ''}\n`);
    return 2;
  }
  const have = await readCache(cache);
  const byKid = new Map(have.map((k) => [k.kid, k]));
  const added: string[] = [];
  const updated: string[] = [];
  for (const k of got.keys) {
    const old = byKid.get(k.kid);
    if (old && !sameKey(old, k)) {
      process.stderr.write(`cookwala keys: key_conflict: ${k.kid} is cached with another public key; nothing written\n`);
      return 1;
    }
    if (!old) added.push(k.kid);
    else if (JSON.stringify(old) !== JSON.stringify(k)) updated.push(k.kid);
    byKid.set(k.kid, k);
  }
  const tmp = `${cache}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify({ kind: 'KeyCache', keys: [...byKid.values()] }, null, 2) + '\n');
  await rename(tmp, cache);
  process.stdout.write(`${got.url}: ${got.keys.length} keys (${added.length} added, ${updated.length} updated) -> ${cache}\n`);
  for (const s of got.skipped) process.stdout.write(`  skipped ${s}\n`);
  return 0;
}

async function showCommand(cache: string, json: boolean): Promise<number> {
  const keys = await readCache(cache);
  if (json) {
    process.stdout.write(JSON.stringify({ kind: 'KeyCache', keys }, null, 2) + '\n');
    return 0;
  }
  process.stdout.write(`${cache}: ${keys.length} keys\n`);
  for (const k of keys) {
    const window = `from ${k.validFrom}${k.validUntil ? ` until ${k.validUntil}` : ''}${k.revokedAt ? `, REVOKED at ${k.revokedAt}` : ''}`;
    process.stdout.write(
      `  ${k.kid}  ${k.alg}  ${k.role}  ${k.owner}  ${window}${k.signature ? `  (signed by ${k.signature.kid})` : ''}\n`,
    );
  }
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const [sub, ...rest] = argv;
    const { values, positionals } = parseFlags(rest, {
      cache: { type: 'string' },
      role: { type: 'string' },
      'valid-from': { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.cache) throw new UsageError('--cache FILE is required');
    if (sub === 'show') {
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
      return showCommand(values.cache, values.json === true);
    }
    if (sub === 'fetch') {
      if (positionals.length !== 1) throw new UsageError('give exactly one URL or did:web identifier');
      const role = (values.role ?? 'operator') as KeyRole;
      if (!KEY_ROLES.includes(role)) throw new UsageError(`--role is one of ${KEY_ROLES.join(', ')}`);
      const validFrom = values['valid-from'] ?? '1970-01-01T00:00:00.000Z';
      if (!isTime(validFrom)) throw new UsageError('--valid-from is an RFC 3339 UTC time with milliseconds');
      return fetchCommand(positionals[0], values.cache, role, validFrom);
    }
    throw new UsageError(`unknown keys command ${String(sub)}`);
  });
}
