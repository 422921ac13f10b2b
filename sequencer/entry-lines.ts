// sequencer/entry-lines.ts: the NDJSON body of the entries route over a plain seq range (docs/design.md
// §10), written from the stored records (logstore json-lines.ts) in Buffers of about 64 KiB: each
// entry's line and, with payloads=1, its payload as a bundle Payload line (docs/design.md §8), none
// when the store holds none (erased). The entry and payload scans are walked side by side in seq
// order as entries-with-payloads.ts walks the decoded ones. Left out: the filtered and newest-first
// queries (entries-query.ts) and the export's second look at a missing payload (export.ts).
// Invariant: the bytes are those of JSON.stringify of each decoded entry and encodeLine of each
// Payload line, in seq order; the payload scan is closed however the caller stops.

import { createLineWriter, LineBuffer, type LogStore } from '../logstore/index.ts';

/** Lines of entries from..to (inclusive), with their payloads when `withPayloads`; `log` is the store's log name. */
export async function* entryLines(
  store: Pick<LogStore, 'rawEntries' | 'rawPayloads'>,
  log: string,
  from: number,
  to: number,
  withPayloads: boolean,
): AsyncGenerator<Buffer> {
  if (from > to) return;
  const lines = createLineWriter(log);
  const w = new LineBuffer();
  const payloads = withPayloads ? store.rawPayloads(from, to)[Symbol.asyncIterator]() : undefined;
  try {
    let p = payloads ? await payloads.next() : undefined;
    for await (const { seq, value } of store.rawEntries(from, to)) {
      lines.entry(w, value, seq);
      if (payloads && p) {
        while (!p.done && p.value.seq < seq) p = await payloads.next();
        if (!p.done && p.value.seq === seq) {
          lines.payload(w, p.value.value, seq);
          p = await payloads.next();
        }
      }
      const chunk = w.full();
      if (chunk) yield chunk;
    }
    const rest = w.take();
    if (rest.length) yield rest;
  } finally {
    await payloads?.return?.();
  }
}
