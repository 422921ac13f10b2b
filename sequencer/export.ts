// sequencer/export.ts: the audit bundle writer (docs/design.md §8; the line order is in
// verifier/bundle/format.ts), streamed from a LogStore in constant memory: the header (seq = the
// head when the export starts, the number of checkpoints that follow), the descriptor, the
// sequencer's own KeyRecord then the registered device KeyRecords in kid order, every entry 1..seq
// with its payload line unless erased (entry-lines.ts writes them from the stored bytes), and the
// stored checkpoints up to seq that meet the witness policy (a checkpoint short of its quorum was
// signed but never published, so it is left out; with no policy all are exported). With `from`
// (`cookwala export --from SEQ`) an incremental bundle: entries, payloads and checkpoints from SEQ
// on, the header saying `from` (an auditor resumes with `cookwala verify --resume`).
// Invariant: the bundle describes one state of the log. Entries are fixed by the head read first;
// if an erasure lands while the export runs, a payload may be gone whose erasure entry lies past
// that head: the export then fails (ProtocolError 'conflict', "retry") instead of writing a bundle
// that would not verify. coalesceLines joins the lines into pieces of about 64 KiB for a socket:
// one write (one chunk of a chunked answer, one syscall) per line was the bundle route's limit, for
// curl and for a Node reader alike. Left out: HTTP (bundle-route.ts) and files (cli-export.ts).

import { ProtocolError } from '../verifier/index.ts';
import { buildBundleHeader, buildPayloadLine, encodeLine } from '../verifier/bundle/index.ts';
import { verifyCheckpoint, type Checkpoint } from '../verifier/documents/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import type { LineBuffer, LogStore } from '../logstore/index.ts';
import { entryLines } from './entry-lines.ts';

export interface BundleSource {
  store: LogStore;
  /** The sequencer's self-signed KeyRecord. */
  sequencerKey: KeyRecord;
  /** The log's registered device KeyRecords, signed by the sequencer (latest record per kid). */
  deviceKeys: readonly KeyRecord[];
  /** When given (and for this log), only checkpoints that meet it are exported. */
  policy?: WitnessPolicy;
  now?: () => number;
  /** An incremental bundle: entries and checkpoints from this seq on (header `from`); default 1. */
  from?: number;
}

export interface ExportSummary {
  log: string;
  seq: number;
  checkpoints: number;
  erased: number;
}

function published(cp: Checkpoint, seq: number, policy: WitnessPolicy | undefined): boolean {
  if (cp.seq > seq) return false;
  return policy === undefined || verifyCheckpoint(cp, policy).ok;
}

/**
 * The bundle as NDJSON: each line a string with its newline, but the entries and payloads, which
 * come in Buffers of whole lines (entry-lines.ts). `summary` is filled in as it goes.
 */
export async function* bundleLines(src: BundleSource, summary?: Partial<ExportSummary>): AsyncGenerator<string | Buffer> {
  const d = src.store.descriptor();
  if (!d) throw new ProtocolError('not_found', 'the store holds no log descriptor');
  const head = src.store.head();
  const seq = head.seq;
  const from = Math.max(1, src.from ?? 1);
  if (from > seq + 1) throw new ProtocolError('bad_request', `from ${from} is beyond the head ${seq} + 1`);
  const policy = src.policy && src.policy.log === d.log ? src.policy : undefined;
  // Checkpoints are few (one per interval) but come last, so they are counted in a first pass.
  const keep = new Set<number>();
  for await (const cp of src.store.checkpoints()) if (cp.seq >= from && published(cp, seq, policy)) keep.add(cp.seq);
  const exportedAt = formatTime((src.now ?? Date.now)());
  Object.assign(summary ?? {}, { log: d.log, seq, checkpoints: keep.size, erased: 0 });

  yield encodeLine(buildBundleHeader({ log: d.log, mode: d.mode, seq, checkpoints: keep.size, exportedAt, from }));
  yield encodeLine(d);
  yield encodeLine(src.sequencerKey);
  const devices = src.deviceKeys.filter((k) => k.kid !== src.sequencerKey.kid).sort((a, b) => (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0));
  for (const k of devices) yield encodeLine(k);

  if (seq >= from) {
    let erased = 0;
    // An entry the payload scan has no payload for: erased, or stored after the scan's snapshot.
    const onMissing = async (at: number, w: LineBuffer): Promise<void> => {
      const p = await src.store.getPayload(at);
      if (p && 'erased' in p && p.erased.erasureSeq !== undefined && p.erased.erasureSeq > seq) {
        throw new ProtocolError(
          'conflict',
          `payload ${at} was erased while the export ran (by entry ${p.erased.erasureSeq}, after the exported head ${seq}); retry the export`,
        );
      }
      if (p && 'event' in p) w.utf8(encodeLine(buildPayloadLine(at, p.event)));
      else erased++;
    };
    yield* entryLines(src.store, d.log, from, seq, true, onMissing);
    if (summary) summary.erased = erased;
  }

  let written = 0;
  for await (const cp of src.store.checkpoints()) {
    if (!keep.has(cp.seq)) continue;
    yield encodeLine(cp);
    written++;
  }
  if (written !== keep.size)
    throw new ProtocolError(
      'conflict',
      `the stored checkpoints changed while the export ran (${written} of ${keep.size}); retry the export`,
    );
}

/** A piece of about this many characters per write (COALESCE_CHARS or one line, whichever is longer). */
export const COALESCE_CHARS = 64 * 1024;

/**
 * The same bytes as `lines`, strings joined in pieces of at least `chars` characters (the last
 * may be shorter); a Buffer (already a piece of whole lines) goes out as it is, after the text
 * before it. Nothing is dropped or reordered.
 */
export async function* coalesceLines(lines: AsyncIterable<string | Buffer>, chars = COALESCE_CHARS): AsyncGenerator<string | Buffer> {
  let parts: string[] = [];
  let n = 0;
  for await (const line of lines) {
    if (typeof line !== 'string') {
      if (parts.length > 0) yield parts.join('');
      parts = [];
      n = 0;
      yield line;
      continue;
    }
    parts.push(line);
    n += line.length;
    if (n < chars) continue;
    yield parts.join('');
    parts = [];
    n = 0;
  }
  if (parts.length > 0) yield parts.join('');
}
