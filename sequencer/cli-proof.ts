// sequencer/cli-proof.ts: `cookwala proof (--data DIR | --url URL) --log ORIGIN --seq N --out FILE`
// (docs/design.md §8): writes the EventProof of one entry (verifier/bundle/event-proof.ts): the entry, its event
// unless erased, its RFC 6962 inclusion proof in the latest checkpoint that covers it and meets the
// witness policy (the published one, over HTTP), and the KeyRecord that signed it as the sequencer
// signed it. `cookwala verify-event FILE --policy POLICY` then checks it offline in O(log n).
// From a data directory the store is read directly (a running sequencer holds its lock: use --url,
// which reads GET …/checkpoint, …/entries, …/proof/inclusion, …/events/{seq} and …/keys).
// `--format tlog-proof` writes the same proof as a c2sp.org/tlog-proof@v1 file instead
// (verifier/c2sp/tlog-proof.ts: `extra` = the entry JSON, the checkpoint as a signed note);
// verify-event reads either form.
// Exit 0 written, 1 no such entry or no checkpoint covers it yet, 2 the input or the environment is
// unusable (bad flags, not a sequencer's DIR or URL, store locked: one line naming the flag).

import { writeFile } from 'node:fs/promises';
import { parseFlags, runCli, UsageError, readTextCapped } from '../platform/index.ts';
import { ProtocolError } from '../verifier/index.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/index.ts';
import { verifyCheckpoint, type Checkpoint } from '../verifier/documents/index.ts';
import { buildEventProof, type EventProof } from '../verifier/bundle/index.ts';
import { formatTlogProof } from '../verifier/c2sp/index.ts';
import type { Entry } from '../verifier/documents/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { openExportSource, reportReadError } from './cli-export.ts';
import { claimDataDir, DEFAULT_DIRS } from '../platform/index.ts';
import { expectSequencer } from '../platform/index.ts';

const USAGE = `usage: cookwala proof (--data DIR | --url URL) --log ORIGIN --seq N --out FILE [--format event-proof|tlog-proof]

Write one event with its inclusion proof in a witnessed checkpoint and its signing key, for
\`cookwala verify-event FILE --policy POLICY\`. --format tlog-proof writes a C2SP
c2sp.org/tlog-proof@v1 file (extra = the entry JSON; the checkpoint as a signed note with its
cosignature/v1 lines) that any tlog-proof verifier with the log and witness vkeys can check.`;

function signerRecord(entry: Entry, sequencerKey: KeyRecord, deviceKeys: readonly KeyRecord[]): KeyRecord[] {
  const kid = entry.eventSignature.kid;
  if (kid === sequencerKey.kid) return [sequencerKey];
  const k = deviceKeys.find((x) => x.kid === kid);
  return k ? [k] : [];
}

async function fromDataDir(dir: string, log: string, seq: number): Promise<EventProof> {
  const src = await openExportSource(dir, log);
  try {
    const entry = await src.store.getEntry(seq);
    if (!entry) throw new ProtocolError('not_found', `${log} has no entry ${seq}`);
    let best: Checkpoint | undefined;
    for await (const cp of src.store.checkpoints()) {
      if (cp.seq >= seq && (!src.policy || verifyCheckpoint(cp, src.policy).ok)) best = cp;
    }
    if (!best) throw new ProtocolError('not_found', `no ${src.policy ? 'witnessed ' : ''}checkpoint covers seq ${seq} yet`);
    const proof = await src.store.inclusionProof(seq, best.seq);
    const p = await src.store.getPayload(seq);
    const event = p && 'event' in p ? p.event : undefined;
    return buildEventProof({ entry, event, proof, checkpoint: best, keys: signerRecord(entry, src.sequencerKey, src.deviceKeys) });
  } finally {
    await src.close();
  }
}

async function getJson(url: string, okStatus: number[] = [200]): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  const text = await readTextCapped(res, 16 << 20);
  if (!okStatus.includes(res.status)) throw new ProtocolError('not_found', `GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  if (!text.length) return { status: res.status, body: undefined };
  const j = parseJson(text.split('\n')[0], { maxDepth: MAX_JSON_DEPTH + 1 }); // the sequencer's answer, read as I-JSON too
  if (!j.ok) throw ProtocolError.from({ ...j, detail: `GET ${url}: ${j.detail}` });
  return { status: res.status, body: j.value };
}

async function fromUrl(url: string, log: string, seq: number): Promise<EventProof> {
  const base = `${url.replace(/\/+$/, '')}/v1/logs/${encodeURIComponent(log)}`;
  const cp = (await getJson(`${base}/checkpoint`)).body as Checkpoint;
  if (cp.seq < seq) throw new ProtocolError('not_found', `the published checkpoint is at seq ${cp.seq}; it does not cover seq ${seq} yet`);
  const entry = (await getJson(`${base}/entries?from=${seq}&to=${seq}`)).body as Entry;
  if (!entry || entry.seq !== seq) throw new ProtocolError('not_found', `${log} has no entry ${seq}`);
  const inc = (await getJson(`${base}/proof/inclusion?seq=${seq}&size=${cp.seq}`)).body as { proof: string[] };
  const ev = await getJson(`${base}/events/${seq}`, [200, 410]);
  const event = ev.status === 200 ? (ev.body as CloudEvent) : undefined;
  const keys = ((await getJson(`${base}/keys`)).body as { keys: KeyRecord[] }).keys;
  const wk = ((await getJson(`${url.replace(/\/+$/, '')}/.well-known/cookwala.json`)).body as { keys: KeyRecord[] }).keys;
  const seqKey = wk.find((k) => k.role === 'sequencer') ?? wk[0];
  return buildEventProof({ entry, event, proof: inc.proof, checkpoint: cp, keys: signerRecord(entry, seqKey, keys) });
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      url: { type: 'string' },
      log: { type: 'string' },
      seq: { type: 'string' },
      out: { type: 'string' },
      format: { type: 'string' },
    });
    const format = values.format ?? 'event-proof';
    if (format !== 'event-proof' && format !== 'tlog-proof') throw new UsageError('--format is event-proof or tlog-proof');
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.log || !values.out || !values.seq) throw new UsageError('--log, --seq and --out are required');
    const seq = Number(values.seq);
    if (!/^[1-9][0-9]{0,15}$/.test(values.seq) || !Number.isSafeInteger(seq)) throw new UsageError('--seq is a positive integer');
    if (values.url && values.data) throw new UsageError('give --data or --url, not both');
    const dir = values.data ?? DEFAULT_DIRS.sequencer;
    const env = values.url
      ? await expectSequencer(values.url, values.log)
      : await claimDataDir(dir, 'sequencer', { create: false, createWith: `cookwala init --data ${dir}` });
    if (!env.ok) {
      process.stderr.write(`cookwala proof: ${'reason' in env ? env.reason : env.detail}\n`);
      return 2;
    }
    try {
      const proof = values.url ? await fromUrl(values.url, values.log, seq) : await fromDataDir(dir, values.log, seq);
      if (format === 'tlog-proof') {
        const t = formatTlogProof({ entry: proof.entry, proof: proof.inclusion.proof, checkpoint: proof.checkpoint });
        if (!t.ok)
          throw ProtocolError.from({ ...t, detail: `the checkpoint at seq ${proof.checkpoint.seq} has no tlog-proof form: ${t.detail}` });
        await writeFile(values.out, t.value);
      } else await writeFile(values.out, JSON.stringify(proof, null, 2) + '\n');
      process.stdout.write(
        `wrote ${values.out}: seq ${seq} in the checkpoint at seq ${proof.checkpoint.seq} (${proof.inclusion.proof.length} proof hashes${proof.event ? '' : ', payload erased'})\n`,
      );
      return 0;
    } catch (e) {
      return reportReadError('proof', e, values.url);
    }
  });
}
