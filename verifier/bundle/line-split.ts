// verifier/bundle/line-split.ts: an audit bundle's bytes cut into lines (docs/design.md §8), for the CLI's
// file stream (auditor/bundle-file.ts) and the page's Blob stream (web/src/lib/line-reader.ts),
// so both feed the verifier the same lines with the same flags: lines end at the byte 0x0A and are
// cut before any decoding (a newline byte never occurs inside a multi-byte UTF-8 sequence); a line
// over the limit is never held whole (its bytes are counted and dropped as they stream by) and is
// flagged tooLong; a last line without a newline is flagged unterminated. The callers decode and
// check UTF-8, each with its platform's fastest means. Memory: the chunk being cut and at most
// `maxLineBytes` of a pending line.
// Left out: reading (the callers' streams), what a line means (verifier.ts).

/** The flags bundle-verifier.ts takes with each line. */
export interface LineFlags {
  unterminated?: boolean;
  notUtf8?: boolean;
  /** The line was longer than the limit; its bytes were skipped, not held. */
  tooLong?: boolean;
}

/**
 * What a line goes to: its bytes, or undefined for a line over the limit (then flags.tooLong).
 * undefined: go on; false: stop; a promise: await it, then go on.
 */
export type LineSink = (line: Uint8Array | undefined, flags: LineFlags) => Promise<void> | undefined | false;

export interface LineSplitter {
  /** Cut one chunk (the splitter keeps no reference to it); false once the sink said stop. */
  push(chunk: Uint8Array): Promise<boolean>;
  /** The last line, when the bytes did not end in a newline. */
  end(): Promise<void>;
}

const NO_FLAGS: LineFlags = Object.freeze({});

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function createLineSplitter(maxLineBytes: number, sink: LineSink): LineSplitter {
  let carry: Uint8Array[] = [];
  let carried = 0;
  let skipping = false;
  // A line whose sink returns no promise costs no promise and no await.
  const emit = (line: Uint8Array, flags: LineFlags): Promise<void> | undefined | false => {
    const r = skipping ? sink(undefined, { ...flags, tooLong: true }) : sink(line, flags);
    skipping = false;
    return r;
  };
  return {
    async push(chunk) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0) break;
        let line = chunk.subarray(start, nl);
        if (carried + line.length > maxLineBytes) skipping = true;
        else if (carried > 0) line = concat([...carry, line], carried + line.length);
        carry = [];
        carried = 0;
        start = nl + 1;
        const r = emit(line, NO_FLAGS);
        if (r === false) return false;
        if (r) await r;
      }
      if (start < chunk.length && !skipping) {
        const rest = new Uint8Array(chunk.length - start);
        rest.set(chunk.subarray(start));
        carry.push(rest);
        carried += chunk.length - start;
        if (carried > maxLineBytes) {
          skipping = true;
          carry = [];
          carried = 0;
        }
      }
      return true;
    },
    async end() {
      if (carried > 0 || skipping) await emit(concat(carry, carried), { unterminated: true });
    },
  };
}
