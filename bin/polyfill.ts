// Node 20 lacks Promise.withResolvers, which libp2p 3 calls (docs/design.md §15). Loaded before anything
// imports libp2p: by the CLI entry point and by vitest's setup. Nothing else runs at import time.
const P = Promise as unknown as { withResolvers?: unknown };
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (v: T | PromiseLike<T>) => void;
    let reject!: (e?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
export {};
