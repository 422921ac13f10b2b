// device/cli.ts: `cookwala device keygen|sign|post|heartbeat|reveal`, the device maker's tools
// (docs/design.md §3, §4, §5, §9; docs/devices.md). keygen makes a private key file (0600) and the
// KeyRecord the operator registers; sign turns a CloudEvent file into the signed structured form,
// or the binary form (headers and body), optionally with values put behind Disclosure digests
// (--disclose, salts kept in --disclosures), and with --explain prints the exact bytes hashed and
// signed; post delivers signed events (structured, batch, binary: device/deliver.ts); heartbeat
// signs and posts cookwala.device.heartbeat once or every interval; reveal prints the
// DisclosureReveal of one field for an auditor's `cookwala verify-disclosure`. Signing and hashing
// are verifier/'s (signEvent, explainEvent): no encoder of its own. Exit 0 done, 1 refused by the
// sequencer or by a check, 2 usage, unreadable input or an unreachable sequencer.

import { appendFile, chmod, readFile, writeFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { readBoundedText } from '../platform/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { formatTime, isTime } from '../verifier/encoding/index.ts';
import { readCloudEvent, signEvent, decodeCookwalasig, type CloudEvent } from '../verifier/cloudevent/index.ts';
import { explainEvent } from '../verifier/cloudevent/index.ts';
import { parseDuration } from '../verifier/documents/index.ts';
import type { Alg } from '../verifier/signing/index.ts';
import { toBase64 } from '../verifier/cloudevent/index.ts';
import { fromBase64 } from '../verifier/cloudevent/index.ts';
import { KeyFileError, newDeviceKey, readKeyFile, recordOf, writeKeyFile } from './key-file.ts';
import { binaryForm, discloseFields, revealsOf, type BinaryForm } from './event-forms.ts';
import { allAccepted, deliver, requestOf, type Mode } from './deliver.ts';

export const HEARTBEAT_TYPE = 'cookwala.device.heartbeat';

const USAGE = `usage: cookwala device keygen --kid KID --source SOURCE --out KEY.json [--alg EdDSA|ES256] [--record FILE]
                              [--valid-from TIME] [--valid-until TIME]
       cookwala device sign EVENT.json --key KEY.json [--out FILE] [--signed-at TIME] [--binary] [--explain]
                              [--disclose /data/POINTER --disclosures FILE]...
       cookwala device post FILE... --url URL --log ORIGIN [--binary] [--retries N]
       cookwala device heartbeat --key KEY.json --url URL --log ORIGIN [--source SOURCE] [--every DURATION] [--count N]
       cookwala device reveal --disclosures FILE --id ID --pointer /data/POINTER [--out FILE]

keygen     a new private key (Ed25519, or ES256 for P-256 hardware keys) in KEY.json (mode 0600, never
           overwritten) for events whose source is SOURCE; prints the KeyRecord to register
           (\`cookwala keys register\`) and writes it to --record. --valid-from defaults to now.
sign       signs a CloudEvent (JSON event format; a file holding an array signs each) with signedAt now
           (or --signed-at); prints the signed event, or with --binary {"headers":{…},"body_base64":…}.
           --explain prints the event hash input (JCS), the event hash and the signing header (JCS):
           the exact bytes; the signed event then goes only to --out. --disclose replaces the value at a
           JSON Pointer inside data by {"disclosure":"sha256:…"} and appends its salt and value to
           --disclosures (mode 0600): keep that file on the device.
post       posts signed events: one event structured, an array or several files as one batch, with
           --binary (or a file written by sign --binary) in binary mode. Idempotency-Key from the
           events' source and id: a retry is safe. Retries connection failures, 429 and 5xx (--retries,
           default 5); follows a 503 not_leader to its leader. Prints the sequencer's answer (JSON).
heartbeat  signs and posts cookwala.device.heartbeat now, or every DURATION (e.g. 5s) until --count
           beats or SIGTERM. A device silent for the sequencer's lostAfterIntervals × heartbeat
           interval is logged as cookwala.hub.device_lost.
reveal     prints the DisclosureReveal of one disclosed field (the signed event, the pointer and
           [salt, value]) for \`cookwala verify-disclosure\`.
TIME: RFC 3339 UTC with milliseconds, e.g. 2026-11-30T10:00:00.000Z.`;

/** A refusal the user reads as one line (exit 1 for a refused check, 2 for input). */
class Refused extends Error {
  constructor(
    message: string,
    readonly exit: 1 | 2,
  ) {
    super(message);
  }
}

async function readJsonInput(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readBoundedText(path);
  } catch (e) {
    throw new Refused(`cannot read the ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2);
  }
  const j = parseJson(text);
  if (!j.ok) throw new Refused(`the ${what} ${path} is refused: ${j.code}: ${j.detail}`, 2);
  return j.value;
}

function readEvent(json: unknown, where: string): CloudEvent {
  const r = readCloudEvent(json);
  if (!r.ok) throw new Refused(`${where}: ${r.code}: ${r.detail}`, 1);
  return r.value;
}

async function output(path: string | undefined, text: string, mode?: number): Promise<void> {
  if (path === undefined) process.stdout.write(text);
  else {
    await writeFile(path, text, mode === undefined ? undefined : { mode });
    if (mode !== undefined) await chmod(path, mode);
  }
}

function binaryJson(b: BinaryForm): string {
  return JSON.stringify({ headers: b.headers, body_base64: toBase64(b.body) }, null, 2) + '\n';
}

function now(): string {
  return formatTime(Date.now());
}

async function keygen(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    kid: { type: 'string' },
    source: { type: 'string' },
    alg: { type: 'string' },
    out: { type: 'string' },
    record: { type: 'string' },
    'valid-from': { type: 'string' },
    'valid-until': { type: 'string' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (!values.kid || !values.source || !values.out) throw new UsageError('keygen needs --kid, --source and --out');
  const alg = (values.alg ?? 'EdDSA') as Alg;
  if (alg !== 'EdDSA' && alg !== 'ES256') throw new UsageError('--alg is EdDSA or ES256');
  const key = newDeviceKey(alg, values.kid, values.source);
  const record = recordOf(key, values['valid-from'] ?? now(), values['valid-until']);
  await writeKeyFile(values.out, key);
  const text = JSON.stringify(record, null, 2) + '\n';
  if (values.record) await writeFile(values.record, text);
  process.stdout.write(text);
  return 0;
}

async function sign(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    key: { type: 'string' },
    out: { type: 'string' },
    'signed-at': { type: 'string' },
    binary: { type: 'boolean' },
    explain: { type: 'boolean' },
    disclose: { type: 'string', multiple: true },
    disclosures: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('give exactly one EVENT file');
  if (!values.key) throw new UsageError('--key KEY.json is required');
  if (values.disclose?.length && !values.disclosures) throw new UsageError('--disclose needs --disclosures FILE (where the salts stay)');
  const signedAt = values['signed-at'] ?? now();
  if (!isTime(signedAt)) throw new UsageError('--signed-at is an RFC 3339 UTC time with milliseconds');
  const key = await readKeyFile(values.key);
  const input = await readJsonInput(positionals[0], 'event');
  const many = Array.isArray(input);
  if (many && values.binary) throw new UsageError('--binary signs one event (a batch travels structured)');
  const events = (many ? input : [input]).map((x, i) => readEvent(x, many ? `event ${i}` : positionals[0]));
  const signedEvents: CloudEvent[] = [];
  const explained: string[] = [];
  for (const [i, raw] of events.entries()) {
    const { cookwalasig: _old, ...bare } = raw;
    let ce = bare as CloudEvent;
    if (key.owner !== undefined && ce.source !== key.owner)
      throw new Refused(`source_mismatch: key ${key.signer.kid} signs for ${key.owner}, event ${i} has source ${ce.source}`, 1);
    let kept: Parameters<typeof revealsOf>[1] = [];
    if (values.disclose?.length) {
      const d = discloseFields(ce, values.disclose);
      if (!d.ok) throw new Refused(`${d.code}: ${d.detail}`, 1);
      ce = d.value.event;
      kept = d.value.kept;
    }
    let signed: CloudEvent;
    try {
      signed = signEvent(ce, key.signer, signedAt);
    } catch (e) {
      throw new Refused(`event ${i} cannot be signed: ${(e as Error).message}`, 1);
    }
    if (values.disclosures && kept.length) {
      const lines = revealsOf(signed, kept).map((r) => JSON.stringify(r) + '\n');
      await appendFile(values.disclosures, lines.join(''), { mode: 0o600 });
    }
    if (values.explain) {
      const sig = decodeCookwalasig(signed.cookwalasig as string);
      const x = sig.ok ? explainEvent(signed, sig.value) : sig;
      if (!x.ok || !sig.ok) throw new Refused(`${x.ok ? '' : x.code}: ${x.ok ? '' : x.detail}`, 1);
      explained.push(
        [
          `event hash input (RFC 8785 JCS of the event without cookwalasig; ${Buffer.byteLength(x.value.hashInput)} bytes of UTF-8):`,
          x.value.hashInput,
          `event hash (sha256: + hex SHA-256 of those bytes):`,
          x.value.eventHash,
          `signing header (JCS; its ${Buffer.byteLength(x.value.signingHeader!)} bytes of UTF-8 are what ${sig.value.alg} signs):`,
          x.value.signingHeader,
          `signature (base64url${sig.value.alg === 'ES256' ? ', raw r||s' : ''}):`,
          sig.value.sig,
          `cookwalasig (base64url of the JCS Signature object):`,
          signed.cookwalasig,
        ].join('\n') + '\n',
      );
    }
    signedEvents.push(signed);
  }
  let text: string;
  if (values.binary) {
    const b = binaryForm(signedEvents[0]);
    if (!b.ok) throw new Refused(`${b.code}: ${b.detail}`, 1);
    text = binaryJson(b.value);
  } else text = JSON.stringify(many ? signedEvents : signedEvents[0]) + '\n';
  if (values.explain) {
    process.stdout.write(explained.join('\n'));
    if (values.out) await output(values.out, text);
  } else await output(values.out, text);
  return 0;
}

/** A file written by `sign --binary`. */
function readBinaryFile(x: unknown): BinaryForm | undefined {
  const o = x as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o) || !o.headers || typeof o.body_base64 !== 'string') return undefined;
  const body = o.body_base64 === '' ? new Uint8Array(0) : fromBase64(o.body_base64);
  const headers = o.headers as Record<string, unknown>;
  if (!body || typeof headers !== 'object' || Object.values(headers).some((v) => typeof v !== 'string')) return undefined;
  return { headers: headers as Record<string, string>, body };
}

function printDelivery(d: Awaited<ReturnType<typeof deliver>>): number {
  process.stdout.write(JSON.stringify(d.body) + '\n');
  return allAccepted(d) ? 0 : 1;
}

async function send(
  mode: Mode,
  events: CloudEvent[],
  binary: BinaryForm | undefined,
  o: { url: string; log: string; retries?: number },
): Promise<number> {
  try {
    const d = await deliver(requestOf(mode, events, binary), {
      ...o,
      onRetry: (why, n) => process.stderr.write(`cookwala device: attempt ${n}: ${why}; retrying\n`),
    });
    return printDelivery(d);
  } catch (e) {
    const err = e as Error & { cause?: Error };
    throw new Refused(`cannot reach ${o.url}: ${err.cause?.message ?? err.message}`, 2);
  }
}

function target(values: { url?: string; log?: string; retries?: string }): { url: string; log: string; retries?: number } {
  if (!values.url || !values.log) throw new UsageError('--url URL and --log ORIGIN are required');
  if (!/^https?:\/\//.test(values.url)) throw new UsageError('--url is http(s)://HOST[:PORT]');
  const retries = values.retries === undefined ? undefined : Number(values.retries);
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0 && retries <= 100))
    throw new UsageError('--retries is 0 to 100');
  return { url: values.url, log: values.log, retries };
}

async function post(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    url: { type: 'string' },
    log: { type: 'string' },
    binary: { type: 'boolean' },
    retries: { type: 'string' },
  });
  const t = target(values);
  if (positionals.length === 0) throw new UsageError('give the signed event FILE(s)');
  const inputs = await Promise.all(positionals.map((p) => readJsonInput(p, 'signed event')));
  if (inputs.length === 1) {
    const bin = readBinaryFile(inputs[0]);
    if (bin) {
      const id = bin.headers['ce-id'];
      const source = bin.headers['ce-source'];
      if (!id || !source) throw new Refused(`${positionals[0]}: the binary form has no ce-id or ce-source header`, 1);
      return send('binary', [{ id, source } as CloudEvent], bin, t);
    }
  }
  const events = inputs.flatMap((x, i) => (Array.isArray(x) ? x : [x]).map((e) => readEvent(e, positionals[i])));
  const batch = inputs.length > 1 || Array.isArray(inputs[0]);
  if (values.binary) {
    if (batch) throw new UsageError('--binary posts one event');
    const b = binaryForm(events[0]);
    if (!b.ok) throw new Refused(`${b.code}: ${b.detail}`, 1);
    return send('binary', events, b.value, t);
  }
  return send(batch ? 'batch' : 'structured', events, undefined, t);
}

async function heartbeat(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    key: { type: 'string' },
    url: { type: 'string' },
    log: { type: 'string' },
    source: { type: 'string' },
    every: { type: 'string' },
    count: { type: 'string' },
    retries: { type: 'string' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const t = target(values);
  if (!values.key) throw new UsageError('--key KEY.json is required');
  const key = await readKeyFile(values.key, values.source);
  if (!key.owner) throw new UsageError('the key file names no owner: give --source');
  let everyMs: number | undefined;
  if (values.every !== undefined) {
    const d = parseDuration(values.every);
    if (!d.ok || d.value < 100) throw new UsageError('--every is a duration of at least 100ms (5s, 30s, 1m)');
    everyMs = d.value;
  }
  const count = values.count === undefined ? (everyMs === undefined ? 1 : Infinity) : Number(values.count);
  if (!(count >= 1)) throw new UsageError('--count is a positive integer');
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = () => {
    stop = true;
    wake?.();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  let worst = 0;
  try {
    for (let n = 1; n <= count && !stop; n++) {
      const at = Date.now();
      const ce: CloudEvent = {
        specversion: '1.0',
        id: `heartbeat.${at}.${n}`,
        source: key.owner,
        type: HEARTBEAT_TYPE,
        time: formatTime(at),
      };
      const code = await send('structured', [signEvent(ce, key.signer, formatTime(at))], undefined, t).catch((e: unknown) => {
        if (e instanceof Refused && everyMs !== undefined) {
          process.stderr.write(`cookwala device heartbeat: ${e.message}\n`);
          return 2;
        }
        throw e;
      });
      worst = Math.max(worst, code);
      if (n < count && everyMs !== undefined && !stop)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, Math.max(0, at + everyMs! - Date.now()));
        });
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  return worst;
}

async function reveal(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    disclosures: { type: 'string' },
    id: { type: 'string' },
    source: { type: 'string' },
    pointer: { type: 'string' },
    out: { type: 'string' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (!values.disclosures || !values.id || !values.pointer) throw new UsageError('reveal needs --disclosures, --id and --pointer');
  let text: string;
  try {
    text = await readFile(values.disclosures, 'utf8');
  } catch (e) {
    throw new Refused(`cannot read ${values.disclosures}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2);
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const j = parseJson(line);
    const r = j.ok ? (j.value as Record<string, unknown>) : undefined;
    const ev = r?.event as CloudEvent | undefined;
    if (!r || !ev || ev.id !== values.id || r.pointer !== values.pointer) continue;
    if (values.source !== undefined && ev.source !== values.source) continue;
    await output(values.out, JSON.stringify(r, null, 2) + '\n');
    return 0;
  }
  throw new Refused(`not_found: no disclosure of ${values.pointer} for event ${values.id} in ${values.disclosures}`, 1);
}

const SUBCOMMANDS: Record<string, (argv: string[]) => Promise<number>> = { keygen, sign, post, heartbeat, reveal };

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const [sub, ...rest] = argv;
    const f = sub === undefined ? undefined : SUBCOMMANDS[sub];
    if (!f) throw new UsageError(sub === undefined ? 'give a subcommand' : `unknown subcommand ${sub}`);
    try {
      return await f(rest);
    } catch (e) {
      if (e instanceof KeyFileError) {
        process.stderr.write(`cookwala device ${sub}: ${e.message}\n`);
        return 2;
      }
      if (e instanceof Refused) {
        process.stderr.write(`cookwala device ${sub}: ${e.message}\n`);
        return e.exit;
      }
      throw e;
    }
  });
}
