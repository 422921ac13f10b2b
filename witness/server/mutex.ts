// witness/server/mutex.ts: a keyed mutex (one FIFO lock per key, e.g. per log origin). The witness holds
// a log's lock from reading its state to the durable commit, so requests for one log are decided
// one at a time while requests for different logs run (and group-commit) together. The state
// store's version check stays the last line of defence; the lock only avoids wasted work.
// Invariant: the map holds a key only while someone holds or waits for its lock (bounded memory).

export interface KeyedLock {
  /** Wait for the key's lock; call the returned function exactly once to release it. */
  acquire(key: string): Promise<() => void>;
  /** Keys currently held or awaited (for tests and metrics). */
  readonly size: number;
}

export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  return {
    get size() {
      return tails.size;
    },
    async acquire(key) {
      const prev = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      const tail = prev.then(() => mine);
      tails.set(key, tail);
      await prev;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        release();
        if (tails.get(key) === tail) tails.delete(key);
      };
    },
  };
}

/** A lock that never waits: lets a test show the version check alone keeps one winner. */
export const noLock: KeyedLock = { size: 0, acquire: async () => () => {} };
