// A log's publisher gets the log's own open store (hosted-log.ts → app.ts publishing →
// publisherFor): a checkpoint published while the log opens (at start, or on a policy reload)
// never finds "the store of … is not open yet", which the witness client used to report as a
// witness_error and a quorum_lost, so an alert fired on a configuration change.
import { describe, expect, it } from 'vitest';
import { startSequencer } from '../testkit/index.ts';
import { TEST_LOG } from '../testkit/sequencer.ts';
import type { PublisherStore } from '../witness/client/publisher.ts';

describe('the publisher of a log', () => {
  it('is handed the log store it publishes from, already open', async () => {
    const seen: Array<PublisherStore | undefined> = [];
    const t = await startSequencer({
      deps: {
        publisherFor: (_origin, _policy, store) => {
          seen.push(store);
          // The store answers at once: the log's descriptor is there before any publish.
          expect(store?.descriptor()?.log).toBe(TEST_LOG);
          return undefined;
        },
      },
    });
    try {
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((s) => s !== undefined)).toBe(true);
    } finally {
      await t.seq.close();
    }
  });
});
