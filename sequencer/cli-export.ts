// sequencer/cli-export.ts: `cookwala export --data DIR --log ORIGIN --out FILE` and
// `cookwala export --url http://127.0.0.1:PORT --log ORIGIN --out FILE` (docs/design.md §8), each
// with `--from SEQ` for an incremental bundle (docs/monitoring.md). The first
// reads the log's LevelDB directly (a running sequencer holds the store's lock: store_locked, use
// --url then), the sequencer's KeyRecord, the registered device keys and the witness policy of the
// data directory, and streams export.ts's lines to FILE; the second writes GET …/bundle to the file
// (platform/download.ts: at disk or network speed, flat memory, a progress line on stderr). Either
// way the file is written to FILE.partial and renamed into place only when complete, so a failed
// export never leaves a file that looks whole. Exit 0 written, 2 the input or the environment is
// unusable (bad flags, a DIR that is not a sequencer's, a store held by a running sequencer, a URL
// where no sequencer answers, one that hosts no such log, or an answer cut short or malformed:
// one line naming the flag to fix).
// openExportSource is shared with cli-proof.ts: it never writes to the data directory.

import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { ProtocolError } from '../verifier/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import { readJsonIfExists } from '../platform/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { DATA_FILES, readConfig } from './config.ts';
import { deviceKeysFile, logStoreDir } from './data-dir.ts';
import { bundleLines, type BundleSource, type ExportSummary } from './export.ts';
import { claimDataDir, DEFAULT_DIRS } from '../platform/index.ts';
import { describeFetchError, expectSequencer } from '../platform/index.ts';
import { DownloadFailed, downloadToFile, DownloadRefused, progressLine } from '../platform/index.ts';

const USAGE = `usage: cookwala export (--data DIR | --url URL) --log ORIGIN --out FILE [--from SEQ]

Write the audit bundle (NDJSON) of one log: from the data directory of a stopped sequencer
(--data; default ${DEFAULT_DIRS.sequencer}), or from a running one over HTTP (--url http://127.0.0.1:PORT).
--from SEQ writes an incremental bundle (entries and checkpoints from SEQ on) for
\`cookwala verify --resume STATE\`.`;

export interface ExportSource extends BundleSource {
  close(): Promise<void>;
}

/** The latest record per kid of a log's device-keys file, read only (export.ts checks nothing: the verifier does). */
async function readDeviceKeys(path: string): Promise<KeyRecord[]> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const byKid = new Map<string, KeyRecord>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const j = parseJson(line);
    const r = j.ok ? readDocument('KeyRecord', j.value) : j;
    if (r.ok) byKid.set(r.value.kid, r.value); // a torn last line is skipped, as the sequencer does
  }
  return [...byKid.values()];
}

/** Opens a log of a data directory for reading: the store (store_locked if a sequencer runs), keys and policy. */
export async function openExportSource(dir: string, log: string): Promise<ExportSource> {
  const cj = await readJsonIfExists(join(dir, DATA_FILES.config));
  if (cj === undefined) throw new ProtocolError('not_found', `${join(dir, DATA_FILES.config)} is missing: not a data directory`);
  const config = readConfig(cj);
  if (!config.ok) throw ProtocolError.from(config);
  if (!config.value.logs.some((l) => l.log === log)) throw new ProtocolError('not_found', `${dir} hosts no log ${log}`);
  const kr = await readJsonIfExists(join(dir, DATA_FILES.keyRecord));
  const key = kr === undefined ? undefined : readDocument('KeyRecord', kr);
  if (!key || !key.ok) throw new ProtocolError('not_found', `${join(dir, DATA_FILES.keyRecord)} is missing or not a KeyRecord`);
  const pj = await readJsonIfExists(join(dir, config.value.policy));
  const p = pj === undefined ? undefined : readWitnessPolicy(pj);
  if (p && !p.ok) throw ProtocolError.from(p);
  const policy: WitnessPolicy | undefined = p?.ok && p.value.log === log ? p.value : undefined;
  const deviceKeys = await readDeviceKeys(deviceKeysFile(dir, log));
  const store: LogStore = await openLogStore(logStoreDir(dir, log), { createIfMissing: false });
  return { store, sequencerKey: key.value, deviceKeys, policy, close: () => store.close() };
}

async function writeAtomically(out: string, lines: AsyncIterable<string | Uint8Array>): Promise<number> {
  const partial = `${out}.partial`;
  const ws = createWriteStream(partial, { flags: 'w' });
  let bytes = 0;
  try {
    for await (const chunk of lines) {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (!ws.write(chunk)) await once(ws, 'drain');
    }
    await new Promise<void>((resolve, reject) => ws.end((e?: Error | null) => (e ? reject(e) : resolve())));
    await rename(partial, out);
    return bytes;
  } catch (e) {
    ws.destroy();
    await rm(partial, { force: true });
    throw e;
  }
}

/** GET …/bundle (from seq `from`, when given) streamed to `out` (platform/download.ts: each read on disk before the next, flat memory, a progress line on stderr). */
async function httpExport(url: string, log: string, out: string, from: number | undefined): Promise<number> {
  const q = from === undefined ? '' : `?from=${from}`;
  const bundle = `${url.replace(/\/+$/, '')}/v1/logs/${encodeURIComponent(log)}/bundle${q}`;
  try {
    return await downloadToFile(bundle, out, { progress: progressLine(process.stderr, `cookwala export ${log}`) });
  } catch (e) {
    if (e instanceof DownloadRefused) throw new ProtocolError('not_found', `GET …/bundle answered ${e.status}: ${e.body}`);
    throw e;
  }
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      url: { type: 'string' },
      log: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
    });
    const from = values.from === undefined ? undefined : Number(values.from);
    if (from !== undefined && (!/^[1-9][0-9]*$/.test(values.from!) || !Number.isSafeInteger(from)))
      throw new UsageError('--from is a seq (a positive integer)');
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.log) throw new UsageError('--log ORIGIN is required');
    if (!values.out) throw new UsageError('--out FILE is required');
    if (values.url && values.data) throw new UsageError('give --data or --url, not both');
    if (values.url && !/^https?:\/\//.test(values.url)) throw new UsageError('--url is an http(s) URL');
    try {
      if (values.url) {
        const probe = await expectSequencer(values.url, values.log);
        if (!probe.ok) {
          process.stderr.write(`cookwala export: ${probe.detail}\n`);
          return 2;
        }
        const bytes = await httpExport(values.url, values.log, values.out, from);
        process.stdout.write(`wrote ${values.out} (${bytes} bytes) from ${values.url}\n`);
        return 0;
      }
      const dir = values.data ?? DEFAULT_DIRS.sequencer;
      const claim = await claimDataDir(dir, 'sequencer', { create: false, createWith: `cookwala init --data ${dir}` });
      if (!claim.ok) {
        process.stderr.write(`cookwala export: ${claim.reason}\n`);
        return 2;
      }
      const src = { ...(await openExportSource(dir, values.log)), from };
      try {
        const summary: Partial<ExportSummary> = {};
        const bytes = await writeAtomically(values.out, bundleLines(src, summary));
        process.stdout.write(
          `wrote ${values.out}: ${summary.log} through seq ${summary.seq}, ${summary.checkpoints} checkpoints, ${summary.erased} erased payloads (${bytes} bytes)\n`,
        );
        return 0;
      } finally {
        await src.close();
      }
    } catch (e) {
      return reportReadError('export', e, values.url);
    }
  });
}

/**
 * The failures of a command that reads a log from a data directory or a sequencer URL (`export`,
 * `proof`): a reason code is printed with exit 1 (no such entry), or 2 when the environment is
 * the fault (a running sequencer holds the store: use --url; an unreachable URL); anything else
 * is thrown on.
 */
export function reportReadError(command: string, e: unknown, url: string | undefined): number {
  if (e instanceof ProtocolError) {
    const hint = e.code === 'store_locked' ? ' (a running sequencer holds the store: use --url http://127.0.0.1:PORT)' : '';
    process.stderr.write(`cookwala ${command}: ${e.code}: ${e.detail}${hint}\n`);
    return e.code === 'store_locked' || (e.code === 'not_found' && /is missing/.test(e.detail)) ? 2 : 1;
  }
  if (e instanceof TypeError && /fetch failed/.test(e.message)) {
    process.stderr.write(`cookwala ${command}: ${describeFetchError(e, url ?? '', '--url')}\n`);
    return 2;
  }
  if (e instanceof DownloadFailed) {
    process.stderr.write(`cookwala ${command}: ${e.message}: nothing was written; retry, or check --url\n`);
    return 2;
  }
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code)) {
    process.stderr.write(`cookwala ${command}: ${url ?? 'the sequencer'} could not be read to the end (${code}): retry, or check --url\n`);
    return 2;
  }
  throw e;
}
