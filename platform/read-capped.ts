// platform/read-capped.ts: an HTTP answer's body read with a bound (docs/design.md §14: every byte
// from outside is bounded): the CLI commands and the sequencer's witness client read answers of
// other machines through it, so a server that sends without end costs at most the bound. Leaves out:
// large downloads, which stream to a file (download.ts). Invariant: never holds more than maxBytes.

/** The body of `res` as UTF-8 text, refused (an Error) once it passes `maxBytes`. */
export async function readTextCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > maxBytes) {
      await reader.cancel();
      throw new Error(`reply over ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
