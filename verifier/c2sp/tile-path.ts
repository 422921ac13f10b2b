// verifier/c2sp/tile-path.ts: the path of a tile in the tlog-tiles read API (c2sp.org/tlog-tiles at
// C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): a tile index is written in groups of three
// decimal digits, every group but the last prefixed with `x`. One spelling, used by the sequencer's
// tile routes (to serve and to refuse any other spelling), the monitor and `cookwala tiles`.
// Leaves out: fetching and hashing tiles. Invariant: each index has exactly one spelling.

/** The tlog-tiles spelling of a tile index: 1234067 -> x001/x234/067. */
export function formatTileIndex(n: number): string {
  const els: string[] = [];
  do {
    els.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return els.map((e, i) => (i < els.length - 1 ? `x${e}` : e)).join('/');
}
