// verifier/c2sp/note/checkpoint.ts: C2SP tlog-checkpoint note bodies: line 1 the origin (non-empty),
// line 2 the tree size in decimal without leading zeros, line 3 the base64 RFC 6962 root hash
// (32 bytes), then optional non-empty extension lines, every line ending in newline. It leaves out
// the signatures around the body (signed.ts) and any meaning of extension lines (kept opaque).
// Invariant: parse and format are inverse: a body parses only if formatCheckpointBody of the result
// gives back the same text, so one checkpoint has one spelling. Tree sizes above 2^53 - 1 are
// refused (the Merkle code uses JS numbers).

import { fail, ok, type Result } from '../../errors.ts';
import { fromBase64Std, toBase64Std } from './base64.ts';
import { textProblem } from './text.ts';

export interface CheckpointBody {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  extensions: string[];
}

const SIZE_RE = /^(0|[1-9][0-9]*)$/;

export function parseCheckpointBody(text: string, opts: { origin?: string } = {}): Result<CheckpointBody> {
  if (typeof text !== 'string') return fail('malformed_note', 'a checkpoint body is text');
  const bad = textProblem(text);
  if (bad) return fail('malformed_note', `checkpoint: ${bad}`);
  if (!text.endsWith('\n')) return fail('malformed_note', 'checkpoint: the body does not end in a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) return fail('malformed_note', `checkpoint: ${lines.length} lines, at least 3 needed (origin, size, root hash)`);
  const [origin, sizeLine, hashLine, ...extensions] = lines;
  if (origin === '') return fail('malformed_note', 'checkpoint: empty origin line');
  if (!SIZE_RE.test(sizeLine))
    return fail('malformed_note', `checkpoint: tree size ${JSON.stringify(sizeLine.slice(0, 40))} is not a decimal without leading zeros`);
  const size = Number(sizeLine);
  if (!Number.isSafeInteger(size)) return fail('malformed_note', `checkpoint: tree size ${sizeLine} is beyond 2^53 - 1`);
  const hash = fromBase64Std(hashLine);
  if (!hash.ok || hash.value.length !== 32) return fail('malformed_note', 'checkpoint: the root hash line is not the base64 of 32 bytes');
  const empty = extensions.findIndex((e) => e === '');
  if (empty >= 0) return fail('malformed_note', `checkpoint: extension line ${empty + 1} is empty`);
  if (opts.origin !== undefined && origin !== opts.origin) {
    return fail('origin_mismatch', `checkpoint origin ${JSON.stringify(origin)} is not ${JSON.stringify(opts.origin)}`, { origin });
  }
  return ok({ origin, size, rootHash: hash.value, extensions });
}

export function formatCheckpointBody(c: CheckpointBody): string {
  const lineOk = (l: string) => l !== '' && textProblem(l) === undefined && !l.includes('\n');
  if (!lineOk(c.origin) || !Number.isSafeInteger(c.size) || c.size < 0 || c.rootHash.length !== 32) {
    throw new TypeError('a checkpoint needs a one-line origin, a safe size and a 32-byte root');
  }
  for (const e of c.extensions) if (!lineOk(e)) throw new TypeError('extension lines are non-empty single lines of note text');
  return [c.origin, String(c.size), toBase64Std(c.rootHash), ...c.extensions].map((l) => l + '\n').join('');
}
