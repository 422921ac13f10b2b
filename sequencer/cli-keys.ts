// sequencer/cli-keys.ts: `cookwala keys register|revoke|rotate`, the operator's side of the device
// key lifecycle over HTTP (docs/design.md §3, §5, §8; docs/devices.md, docs/operations.md). The
// operator token comes from --token-file (or COOKWALA_OPERATOR_TOKEN), never argv. register posts a
// KeyRecord to POST /v1/logs/{log}/keys; revoke reads the registered record (GET …/keys), adds
// revokedAt (now, or --at) and posts it back, the only change the sequencer allows to a kid
// (sequencer/device-keys.ts; a kid is never deleted, so old events still verify); rotate registers
// the new key first and then revokes the old one at --revoke-at, so the device is never without
// a valid key. What the revocation does to events in flight is the log's delivery window: an
// event signed before revokedAt is still accepted until maxDeliveryDelay after revokedAt; one
// signed at or after it is key_revoked. Exit 0 done, 1 refused by the sequencer, 2 usage or
// unreachable. Invariant: the token is never printed.

import { readFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError, readTextCapped } from '../platform/index.ts';
import { readOperatorToken } from '../platform/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { formatTime, isTime } from '../verifier/encoding/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';

const USAGE = `usage: cookwala keys register RECORD.json --url URL --log ORIGIN --token-file FILE
       cookwala keys revoke --kid KID [--at TIME] --url URL --log ORIGIN --token-file FILE
       cookwala keys rotate --kid OLD --new RECORD.json [--revoke-at TIME] --url URL --log ORIGIN --token-file FILE

register  registers a device KeyRecord (from \`cookwala device keygen\`) with the log; prints it as signed
          by the sequencer.
revoke    revokes KID from TIME (default now): signatures made at or after it no longer count; events
          signed before it are still taken until the log's maxDeliveryDelay after TIME (the
          delivery window), later ones are key_revoked. A revocation cannot be moved or undone.
rotate    registers RECORD.json (the new kid), then revokes OLD at --revoke-at (default now; a later
          time lets devices switch keys first).
The operator token is read from --token-file (e.g. DATA/operator.token; its last line) or the
COOKWALA_OPERATOR_TOKEN environment variable, never from the command line.`;

class Refused extends Error {
  constructor(
    message: string,
    readonly exit: 1 | 2,
  ) {
    super(message);
  }
}

interface Target {
  url: string;
  log: string;
  token: string;
}

async function target(values: { url?: string; log?: string; 'token-file'?: string }): Promise<Target> {
  if (!values.url || !/^https?:\/\//.test(values.url)) throw new UsageError('--url http(s)://HOST[:PORT] of the sequencer is required');
  if (!values.log) throw new UsageError('--log ORIGIN is required');
  const t = await readOperatorToken({ file: values['token-file'] });
  if (!t.ok) throw new Refused(t.detail.replace('--register-token-file', '--token-file'), 2);
  if (!t.value) throw new UsageError('the operator token: give --token-file FILE or set COOKWALA_OPERATOR_TOKEN');
  return { url: values.url.replace(/\/+$/, ''), log: values.log, token: t.value.token };
}

const keysUrl = (t: Target) => `${t.url}/v1/logs/${encodeURIComponent(t.log)}/keys`;

async function call(url: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000), redirect: 'error' });
  } catch (e) {
    const err = e as Error & { cause?: Error };
    throw new Refused(`cannot reach ${url}: ${err.cause?.message ?? err.message}`, 2);
  }
  const j = parseJson(await readTextCapped(res, 16 << 20));
  return { status: res.status, body: (j.ok ? j.value : {}) as Record<string, unknown> };
}

async function register(t: Target, record: unknown): Promise<KeyRecord> {
  const r = await call(keysUrl(t), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    body: JSON.stringify(record),
  });
  if (r.status !== 200 && r.status !== 201)
    throw new Refused(`${r.status} ${String(r.body.code ?? '')}: ${String(r.body.detail ?? '')}`, 1);
  return r.body as unknown as KeyRecord;
}

async function registered(t: Target, kid: string): Promise<KeyRecord> {
  const r = await call(keysUrl(t), { method: 'GET' });
  const keys = Array.isArray(r.body.keys) ? (r.body.keys as KeyRecord[]) : undefined;
  if (r.status !== 200 || !keys) throw new Refused(`GET ${keysUrl(t)} answered ${r.status} ${String(r.body.code ?? '')}`, 1);
  const k = keys.find((x) => x.kid === kid);
  if (!k) throw new Refused(`not_found: no device key ${kid} is registered with ${t.log}`, 1);
  return k;
}

async function revoke(t: Target, kid: string, at: string): Promise<KeyRecord> {
  const { hash: _h, signature: _s, ...bare } = await registered(t, kid);
  if (bare.revokedAt !== undefined && bare.revokedAt !== at)
    throw new Refused(`key_conflict: ${kid} is already revoked at ${bare.revokedAt}; a revocation cannot be moved`, 1);
  return register(t, { ...bare, revokedAt: at });
}

async function readRecord(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Refused(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2);
  }
  const j = parseJson(text);
  if (!j.ok) throw new Refused(`${path}: ${j.code}: ${j.detail}`, 2);
  return j.value;
}

function timeFlag(v: string | undefined, flag: string): string {
  const at = v ?? formatTime(Date.now());
  if (!isTime(at)) throw new UsageError(`${flag} is an RFC 3339 UTC time with milliseconds`);
  return at;
}

const COMMON = { url: { type: 'string' }, log: { type: 'string' }, 'token-file': { type: 'string' } } as const;

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const [sub, ...rest] = argv;
    try {
      if (sub === 'register') {
        const { values, positionals } = parseFlags(rest, { ...COMMON });
        if (positionals.length !== 1) throw new UsageError('give exactly one RECORD.json');
        const t = await target(values);
        process.stdout.write(JSON.stringify(await register(t, await readRecord(positionals[0])), null, 2) + '\n');
        return 0;
      }
      if (sub === 'revoke') {
        const { values, positionals } = parseFlags(rest, { ...COMMON, kid: { type: 'string' }, at: { type: 'string' } });
        if (positionals.length || !values.kid) throw new UsageError('revoke needs --kid KID');
        const at = timeFlag(values.at, '--at');
        const t = await target(values);
        process.stdout.write(JSON.stringify(await revoke(t, values.kid, at), null, 2) + '\n');
        return 0;
      }
      if (sub === 'rotate') {
        const { values, positionals } = parseFlags(rest, {
          ...COMMON,
          kid: { type: 'string' },
          new: { type: 'string' },
          'revoke-at': { type: 'string' },
        });
        if (positionals.length || !values.kid || !values.new) throw new UsageError('rotate needs --kid OLD and --new RECORD.json');
        const at = timeFlag(values['revoke-at'], '--revoke-at');
        const t = await target(values);
        const record = await readRecord(values.new);
        if ((record as KeyRecord)?.kid === values.kid) throw new UsageError('the new record must have a new kid');
        await registered(t, values.kid);
        const added = await register(t, record);
        const revoked = await revoke(t, values.kid, at);
        process.stdout.write(JSON.stringify({ registered: added, revoked }, null, 2) + '\n');
        return 0;
      }
      throw new UsageError(sub === undefined ? 'give a subcommand' : `unknown subcommand ${sub}`);
    } catch (e) {
      if (e instanceof Refused) {
        process.stderr.write(`cookwala keys ${sub}: ${e.message}\n`);
        return e.exit;
      }
      throw e;
    }
  });
}
