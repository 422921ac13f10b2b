// verifier/bundle/verify-bundle.ts: the whole offline check of an audit bundle in one call, for a
// library user (docs/design.md §8; docs/auditors.md "The verifier as a library"): the policy and
// the key cache read strictly (their JSON text or value), the bundle from its text, its bytes, or a
// stream of chunks (a Node stream, a WHATWG ReadableStream, any async iterable), cut into lines
// by line-split.ts and fed to the streaming verifier of verifier.ts, exactly as `cookwala verify`
// and the verifier page feed it. The result is the report `cookwala verify --json` prints, or a
// Failure (with its reason code) when the policy or the key cache is unusable, as the CLI's exit 2.
// For text or bytes the checkpoint seqs are read ahead from the tail (tail-seqs.ts), as the CLI does
// for a file; a stream is read once, as the CLI reads a pipe. Left out: files and worker threads
// (auditor/ does both); signatures are checked inline unless a `verifyBatch` is given.
// Invariant: nothing in the bundle is trusted because the bundle says so; trust comes only from
// the policy and the key cache given here.

import { createBundleVerifier } from './verifier.ts';
import type { BundleReport } from './report.ts';
import type { VerifyBatch } from './signature-batches.ts';
import { createLineSplitter } from './line-split.ts';
import { readCheckpointSeqsFromTail } from './tail-seqs.ts';
import { decodeUtf8 } from '../encoding/wire.ts';
import { parseJson } from '../encoding/strict-json.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../documents/policy.ts';
import { readDocument } from '../documents/read.ts';
import type { KeyRecord } from '../signing/keys.ts';
import { fail, ok, type Result } from '../errors.ts';

/** A bundle: its text, its bytes, or its bytes as a stream of chunks. */
export type BundleInput =
  | string
  | Uint8Array
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>
  | { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void } };

export interface VerifyBundleOptions {
  /** The log's WitnessPolicy: its JSON text, or the parsed value (read strictly either way). */
  policy: string | unknown;
  /** The auditor's KeyCache (`{"kind":"KeyCache","keys":[…]}`): text or value; optional. */
  keys?: string | unknown;
  /** Refuse entries after the last checkpoint that meets the policy (quorum_not_met). */
  requireWitnessed?: boolean;
  /** Accept 0.2.0 bare-hash signatures (legacy_signature otherwise). */
  allowLegacy?: boolean;
  /** Raw signature checks in batches (a worker pool, WebCrypto); inline by default. */
  verifyBatch?: VerifyBatch;
}

/** No valid line comes near this; a longer one is skipped unread (body_too_large), as in the CLI. */
const MAX_LINE_BYTES = 16 << 20;

function readValue(input: unknown, what: string): Result<unknown> {
  if (typeof input !== 'string') return ok(input);
  const j = parseJson(input);
  return j.ok ? j : fail(j.code, `the ${what} is refused: ${j.detail}`);
}

function readPolicy(input: unknown): Result<WitnessPolicy> {
  const v = readValue(input, 'policy');
  return v.ok ? readWitnessPolicy(v.value) : v;
}

function readKeys(input: unknown): Result<KeyRecord[]> {
  if (input === undefined) return ok([]);
  const v = readValue(input, 'key cache');
  if (!v.ok) return v;
  const r = readDocument('KeyCache', v.value);
  return r.ok ? ok(r.value.all()) : r;
}

const encoder = new TextEncoder();

async function* chunksOf(input: BundleInput): AsyncIterable<Uint8Array> {
  if (typeof input === 'string') yield encoder.encode(input);
  else if (input instanceof Uint8Array) yield input;
  else if ('getReader' in input) {
    const reader = input.getReader();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        if (r.value) yield r.value;
      }
    } finally {
      reader.releaseLock();
    }
  } else for await (const c of input as AsyncIterable<Uint8Array | string>) yield typeof c === 'string' ? encoder.encode(c) : c;
}

/** The header's checkpoint count, and their seqs read back from the end of the bytes. */
async function seqsAhead(bytes: Uint8Array): Promise<number[] | undefined> {
  const nl = bytes.indexOf(0x0a);
  const first = decodeUtf8(bytes.subarray(0, nl < 0 ? bytes.length : nl));
  if (!first.ok) return undefined;
  const h = parseJson(first.value);
  const count = h.ok ? (h.value as { checkpoints?: unknown } | null)?.checkpoints : undefined;
  if (!Number.isSafeInteger(count) || (count as number) <= 0) return undefined;
  return readCheckpointSeqsFromTail(bytes.length, async (a, b) => bytes.subarray(a, b), count as number).catch(() => undefined);
}

/**
 * Verifies an audit bundle offline against a witness policy (and a key cache): the report of
 * `cookwala verify --json` (`valid`, `exitCode` 0 or 1, every failure with its kind and seq), or a
 * Failure when the policy or key cache is unusable.
 */
export async function verifyBundle(bundle: BundleInput, opts: VerifyBundleOptions): Promise<Result<BundleReport>> {
  const policy = readPolicy(opts.policy);
  if (!policy.ok) return policy;
  const keys = readKeys(opts.keys);
  if (!keys.ok) return keys;
  const bytes = typeof bundle === 'string' ? encoder.encode(bundle) : bundle instanceof Uint8Array ? bundle : undefined;
  const v = createBundleVerifier({
    policy: policy.value,
    keys: keys.value,
    allowLegacy: opts.allowLegacy,
    requireWitnessed: opts.requireWitnessed,
    verifyBatch: opts.verifyBatch,
    checkpointSeqs: bytes && (await seqsAhead(bytes)),
  });
  const lines = createLineSplitter(MAX_LINE_BYTES, (line, flags) => {
    if (v.stopped) return false;
    if (line === undefined) return v.line('', flags);
    const text = decodeUtf8(line);
    return text.ok ? v.line(text.value, flags) : v.line(new TextDecoder().decode(line), { ...flags, notUtf8: true });
  });
  for await (const chunk of chunksOf(bytes ?? bundle)) if (!(await lines.push(chunk))) return ok(await v.end());
  await lines.end();
  return ok(await v.end());
}
