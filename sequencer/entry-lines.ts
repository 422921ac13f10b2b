// sequencer/entry-lines.ts: the NDJSON entry lines of a plain seq range, for the entries route (docs/design.md
// §10) and the bundle export, written from the stored records (logstore/json-lines.ts) in Buffers of about 64 KiB: each
// entry's line and, with payloads=1, its payload as a bundle Payload line (docs/design.md §8), none
// when the store holds none (erased). The entry and payload scans are walked side by side in seq
// order as testkit/entries-with-payloads.ts walks the decoded ones; the bundle export (export.ts) writes its
// entries with it too. Left out: the filtered and newest-first queries (entries-query.ts) and what
// a missing payload means (the export's `onMissing` looks again; the route sends the entry alone).
// Invariant: the bytes are those of JSON.stringify of each decoded entry and encodeLine of each
// Payload line, in seq order; the payload scan is closed however the caller stops.

import { createLineWriter, LineBuffer, type LogStore, type StoredRecord } from '../logstore/index.ts';

/** Called for an entry the payload scan holds no payload for; it may write that entry's Payload line to `w`. */
export type OnMissingPayload = (seq: number, w: LineBuffer) => Promise<void>;

/**
 * Lines of entries from..to (inclusive), with their payloads when `withPayloads`; `log` is the
 * store's log name. `onMissing` (the export) gets a second look at an entry without a payload.
 */
export async function* entryLines(
  store: Pick<LogStore, 'rawEntries' | 'rawPayloads'>,
  log: string,
  from: number,
  to: number,
  withPayloads: boolean,
  onMissing?: OnMissingPayload,
): AsyncGenerator<Buffer> {
  if (from > to) return;
  const lines = createLineWriter(log);
  const w = new LineBuffer();
  const payloads = withPayloads ? store.rawPayloads(from, to)[Symbol.asyncIterator]() : undefined;
  // The payload scan's current batch and place in it; `done` once it ended.
  let batch: StoredRecord[] = [];
  let i = 0;
  let done = false;
  try {
    for await (const entries of store.rawEntries(from, to)) {
      for (const { seq, value } of entries) {
        lines.entry(w, value, seq);
        if (payloads) {
          for (;;) {
            while (i < batch.length && batch[i].seq < seq) i++;
            if (i < batch.length || done) break;
            const r = await payloads.next();
            if (r.done) done = true;
            else {
              batch = r.value;
              i = 0;
            }
          }
          if (i < batch.length && batch[i].seq === seq) lines.payload(w, batch[i++].value, seq);
          else if (onMissing) await onMissing(seq, w);
        }
        const chunk = w.full();
        if (chunk) yield chunk;
      }
    }
    const rest = w.take();
    if (rest.length) yield rest;
  } finally {
    await payloads?.return?.();
  }
}
