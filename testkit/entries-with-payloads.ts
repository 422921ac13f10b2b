// testkit/entries-with-payloads.ts: the entries of a seq range each with its payload, decoded: the
// reading of the merge that sequencer/entry-lines.ts does on the stored bytes for the bundle export
// (docs/design.md §8) and the entries route with payloads=1 (docs/design.md §10), kept as the
// oracle sequencer/entry-lines.test.ts holds those bytes to. The store's entry and payload
// iterators are walked side by side in seq order, in two sequential scans in constant memory.
// Left out: what a missing payload means (erased, or stored after the payload iterator's
// snapshot), which the export and the route decide. Invariant: every entry of the range is
// yielded once, in seq order, and a payload only with the entry of its own seq; the payload
// iterator is closed however the caller stops.

import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { Entry } from '../verifier/documents/index.ts';
import type { LogStore } from '../logstore/index.ts';

export interface EntryWithPayload {
  entry: Entry;
  /** The payload the store's payload scan holds for this seq; undefined when it has none. */
  payload: CloudEvent | undefined;
}

/** Entries from..to (inclusive) of `store`, each with its payload from the same range's payload scan. */
export async function* entriesWithPayloads(
  store: Pick<LogStore, 'entries' | 'payloads'>,
  from: number,
  to: number,
): AsyncGenerator<EntryWithPayload> {
  const payloads = store.payloads(from, to)[Symbol.asyncIterator]();
  try {
    let p = await payloads.next();
    for await (const entry of store.entries(from, to)) {
      while (!p.done && p.value.seq < entry.seq) p = await payloads.next();
      if (!p.done && p.value.seq === entry.seq) {
        const payload = p.value.event;
        p = await payloads.next();
        yield { entry, payload };
      } else yield { entry, payload: undefined };
    }
  } finally {
    await payloads.return?.();
  }
}
