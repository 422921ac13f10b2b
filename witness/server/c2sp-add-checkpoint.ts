// witness/server/c2sp-add-checkpoint.ts: the witness's decision for one C2SP tlog-witness
// `add-checkpoint` request (c2sp.org/tlog-witness at C2SP/C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9, "add-checkpoint"), as pure request logic over the
// bytes received, the shared state store, the trusted log keys, our cosigner and a clock; no HTTP
// types (c2sp-http.ts adapts it). Body: `old <size>\n`, 0..63 base64 consistency proof lines, an
// empty line, a signed tlog-checkpoint note. Checks, in the spec's order, each a fixed status:
//   malformed body or note                                    400 malformed_note / bad_request
//   origin not admitted                                        404 unknown_log
//   no signature by a trusted log key / a known key's bad one  403 unknown_key / bad_signature
//   old > checkpoint size                                      400 bad_request
//   old != the size we last cosigned (0 if never)              409 conflict, body `<size>\n`
//   size 0 with a root other than the empty tree's             422 inconsistent
//   old 0 with a non-empty proof; a proof that fails            422 inconsistent
//   old = size = stored with another root (the 2026-07 text)   422 fork_detected
// then the durable compare-and-update, then the cosignature/v1 line. The spec text at the pinned
// commit does say "If the old size matches the checkpoint size, the witness MUST check that the
// root hashes are also identical ... 422", as docs/design.md §7a's "2026-07 change" has it.
// Invariants: the same per-origin lock and the same versioned commit as the libp2p protocol
// (add-checkpoint.ts), so both protocols move one state forward and never back; the cosignature
// leaves only after the state is synced; the note is verified over the bytes received, parsed once
// (verifyParsedNote takes parseNote's result; a second time only when a pool verdict fails and the
// check runs again inline, off-thread-verify.ts). The state keeps the signed checkpoint we cosigned
// (text, the log's verified signature lines, our line).
// A refused checkpoint that is validly signed by the log (422) is handed to onEvidence. A same-size
// fork against a cosigned note we kept is also stored as a NoteForkProof (the note we cosigned and
// the one refused, each with the log's verified signature lines; verifier/documents/note-fork-proof.ts)
// and handed to onFork once new, so `GET /v1/forks` lists it and `cookwala verify-fork` proves it.
// With deps.offThread the note's signatures are checked on a worker, with the inline result; with
// deps.signWorker our line is signed on a worker once decided (the same bytes; still before the commit).
// With deps.mldsaCosigner (mldsa-cosigner.ts) an ML-DSA-44 line follows the cosignature/v1 one, both
// in the answer and in the kept note, as litewitness answers; it is signed on the event loop.
// Left out: sign-subtree (optional in the spec), rate limits (the transport's), bastions.

import { fail, ok, type Failure, type Result } from '../../verifier/index.ts';
import { formatHash, formatTime } from '../../verifier/encoding/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { EMPTY_ROOT, verifyConsistency, type Hash32 } from '../../verifier/merkle/index.ts';
import { parseCheckpointBody, parseNote, verifyParsedNote, type NoteVerifier } from '../../verifier/c2sp/note/index.ts';
import { hashFromBase64StdBytes } from '../wire/hash-text.ts';
import type { LogState, StateStore } from './state.ts';
import type { KeyedLock } from './mutex.ts';
import type { WitnessCosigner } from './note-cosigner.ts';
import type { MldsaCosigner } from './mldsa-cosigner.ts';
import { parseHash } from '../../verifier/encoding/index.ts';
import type { OffThreadVerifier } from './off-thread-verify.ts';
import { signWith, type SigningWorker } from './signing-worker.ts';
import type { Signer } from '../../verifier/signing/index.ts';
import { buildNoteForkProof, type NoteForkProof } from '../../verifier/documents/index.ts';

/** The most consistency proof lines a client may send (tlog-witness). */
export const MAX_C2SP_PROOF_LINES = 63;
/** Largest request body accepted: a checkpoint with many signatures and a full proof fit easily. */
export const MAX_C2SP_BODY_BYTES = 128 * 1024;

export interface C2spAddCheckpointRequest {
  oldSize: number;
  proof: Hash32[];
  /** The signed note, exactly the bytes received after the empty line. */
  note: Uint8Array;
}

export interface C2spWitnessDeps {
  state: StateStore;
  /** The note verifiers trusted for an origin; undefined when the origin is not admitted. */
  logKeys: { get(origin: string): readonly NoteVerifier[] | undefined };
  cosigner: WitnessCosigner;
  /** The optional ML-DSA-44 cosigner (type 0x06): its line comes after the cosignature/v1 one. */
  mldsaCosigner?: MldsaCosigner;
  /** Milliseconds since the epoch. */
  clock: () => number;
  lock?: KeyedLock;
  hooks?: { afterCheck?: (origin: string) => Promise<void> };
  /** A validly signed checkpoint that was refused as inconsistent or in conflict (may prove misbehaviour). */
  onEvidence?: (e: { origin: string; code: string; detail: string; note: string }) => void;
  /** A same-size fork proved by two signed notes, stored (synced) and new to this witness. */
  onFork?: (fp: NoteForkProof) => Promise<void> | void;
  backend?: CryptoBackend;
  /**
   * The log's note signatures checked on a worker (off-thread-verify.ts; same result as inline).
   * The registry's note verifiers must then be made with offThread.backend.
   */
  offThread?: OffThreadVerifier;
  /** Our cosignature/v1 signed on a worker (signing-worker.ts) holding `signer`'s key, the cosigner's; same bytes. */
  signWorker?: { worker: SigningWorker; signer: Signer };
}

export interface C2spCosigned {
  origin: string;
  size: number;
  /** The response body: our cosignature/v1 line(s), each `— <name> <base64>\n`. */
  lines: string;
}

const OLD_RE = /^old (0|[1-9][0-9]*)$/;
const MAX_ATTEMPTS = 3;

function malformed(detail: string): Failure {
  return fail('malformed_note', detail);
}

/** The body's first line as text (printable ASCII only, else a NUL that matches nothing) and where the next begins. */
function firstLine(body: Uint8Array): { text: string; next: number } | undefined {
  const nl = body.indexOf(0x0a);
  if (nl < 0) return undefined;
  let s = '';
  for (let i = 0; i < nl && i < 64; i++) {
    const c = body[i];
    if (c < 0x20 || c > 0x7e) return { text: '\u0000', next: nl + 1 };
    s += String.fromCharCode(c);
  }
  // "old " and at most 16 digits fit in 64 characters; a longer line is refused as it reads.
  if (nl > 64) s += '\u0000';
  return { text: s, next: nl + 1 };
}

/** Split a request body into old size, proof and note bytes; strict (every line ends in \n). */
export function parseC2spAddCheckpointBody(body: Uint8Array): Result<C2spAddCheckpointRequest> {
  if (!(body instanceof Uint8Array)) return fail('bad_request', 'the body is bytes');
  if (body.length > MAX_C2SP_BODY_BYTES) return fail('body_too_large', `a body of ${body.length} bytes exceeds ${MAX_C2SP_BODY_BYTES}`);
  const first = firstLine(body);
  if (first === undefined) return fail('bad_request', 'the body has no old size line ending in a newline');
  let pos = first.next;
  const m = OLD_RE.exec(first.text);
  if (!m)
    return fail(
      'bad_request',
      `the first line is not "old <size>" (decimal, no leading zeros): ${JSON.stringify(first.text.slice(0, 40))}`,
    );
  const oldSize = Number(m[1]);
  if (!Number.isSafeInteger(oldSize)) return fail('bad_request', `old size ${m[1].slice(0, 30)} is beyond 2^53 - 1`);
  const proof: Hash32[] = [];
  for (;;) {
    const nl = body.indexOf(0x0a, pos);
    if (nl < 0) return fail('bad_request', 'no empty line after the consistency proof');
    const start = pos;
    pos = nl + 1;
    if (nl === start) break;
    if (proof.length === MAX_C2SP_PROOF_LINES) return fail('bad_request', `more than ${MAX_C2SP_PROOF_LINES} consistency proof lines`);
    // Exactly the lines fromBase64Std decodes to 32 bytes (witness/wire/hash-text.ts), in one pass
    // over the body's bytes (no string per line).
    const h = hashFromBase64StdBytes(body, start, nl);
    if (h === undefined) return fail('bad_request', `consistency proof line ${proof.length + 1} is not the base64 of a 32-byte hash`);
    proof.push(h as Hash32);
  }
  if (pos >= body.length) return malformed('no checkpoint after the empty line');
  return ok({ oldSize, proof, note: body.slice(pos) });
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

type Decision = { kind: 'cosign'; expectedVersion: number; sameSize: boolean } | { kind: 'refuse'; failure: Failure; evidence: boolean };

// A module function, not a closure in decide(): tsx names every closure it creates (keepNames), a
// defineProperty per request.
function refuse(failure: Failure, evidence = true): Decision {
  return { kind: 'refuse', failure, evidence };
}

function decide(
  req: Pick<C2spAddCheckpointRequest, 'oldSize' | 'proof'>,
  size: number,
  root: Uint8Array,
  state: LogState | undefined,
): Decision {
  const stored = state?.seq ?? 0;
  if (req.oldSize !== stored)
    return refuse(fail('conflict', `old ${req.oldSize}, the witness last cosigned size ${stored}`, { knownSeq: stored }), false);
  if (size === 0 && !bytesEqual(root, EMPTY_ROOT))
    return refuse(fail('inconsistent', 'a checkpoint of size 0 has the root of the empty tree'));
  if (req.oldSize === 0) {
    if (req.proof.length !== 0) return refuse(fail('inconsistent', 'old size 0 takes an empty consistency proof'));
    return { kind: 'cosign', expectedVersion: state?.version ?? 0, sameSize: size === 0 && state !== undefined };
  }
  const oldRoot = parseHash(state!.root);
  if (!oldRoot.ok) return refuse(fail('witness_unavailable', `stored root of ${state!.log} unreadable`), false);
  if (size === req.oldSize && !bytesEqual(root, oldRoot.value)) {
    return refuse(
      fail('fork_detected', `size ${size}: root ${formatHash(root)} differs from the cosigned ${state!.root}`, { knownSeq: stored }),
    );
  }
  const c = verifyConsistency(req.oldSize, size, req.proof, oldRoot.value, root as Hash32);
  if (!c.ok) return refuse(fail('inconsistent', `consistency ${req.oldSize} -> ${size}: ${c.detail}`));
  return { kind: 'cosign', expectedVersion: state!.version, sameSize: size === stored };
}

/** What a body says once its note verified: all that the decision, the signature and the commit need. */
interface CheckedRequest {
  oldSize: number;
  proof: Hash32[];
  origin: string;
  size: number;
  rootHash: Uint8Array;
  /** The bytes our cosignature covers (the note's text, as received). */
  textBytes: Uint8Array;
  /** The signed checkpoint we keep: its text, then the log signature lines that verified. */
  signedText: string;
}

/**
 * Parse a body and verify its note (synchronous; the note's signatures through `backend`). Only
 * what the rest needs leaves it, so the parsed note and its intermediates are garbage before the
 * request's first wait (on the pool, the lock, the signer, the synced commit) and are never
 * carried across one: what a request holds while it waits is what the collector copies. (The
 * body itself stays held by the HTTP route until the answer.)
 */
function checkBody(body: Uint8Array, deps: C2spWitnessDeps, backend: CryptoBackend | undefined): Result<CheckedRequest> {
  const req = parseC2spAddCheckpointBody(body);
  if (!req.ok) return req;
  const parsed = parseNote(req.value.note);
  if (!parsed.ok) return parsed;
  const cp = parseCheckpointBody(parsed.value.text);
  if (!cp.ok) return malformed(cp.detail);
  const { origin, size, rootHash } = cp.value;
  const keys = deps.logKeys.get(origin);
  if (!keys || keys.length === 0) return fail('unknown_log', `this witness does not follow ${origin}`);
  // unknown_key (no trusted signature) and bad_signature (a known key's fails) are 403.
  const v = verifyParsedNote(parsed.value, keys, { backend });
  if (!v.ok) return v;
  const verified = new Set(v.value.verified.map((s) => `${s.name}+${s.keyId}`));
  const logLines = [
    ...new Set(parsed.value.signatures.filter((s) => verified.has(`${s.name}+${s.keyId}`)).map((s) => `\u2014 ${s.line}\n`)),
  ];
  return ok({
    oldSize: req.value.oldSize,
    proof: req.value.proof,
    origin,
    size,
    rootHash,
    textBytes: parsed.value.textBytes,
    signedText: `${parsed.value.text}\n${logLines.join('')}`,
  });
}

/** Decide one add-checkpoint body; on ok the state is durable and the lines may be sent. */
export async function processC2spAddCheckpoint(body: Uint8Array, deps: C2spWitnessDeps): Promise<Result<C2spCosigned>> {
  // A body that cannot be parsed, or names a log we do not follow, asks for no signature check
  // and is answered at once; the pool's verdicts stand only when every signature verified
  // (off-thread-verify.ts decides it again inline otherwise).
  const checked = deps.offThread
    ? await deps.offThread.check((backend) => checkBody(body, deps, backend))
    : checkBody(body, deps, deps.backend);
  if (!checked.ok) return checked;
  const req = checked.value;
  const { origin, size, rootHash, signedText } = req;
  if (req.oldSize > size) return fail('bad_request', `old size ${req.oldSize} is above the checkpoint size ${size}`);

  const lock = deps.lock ?? deps.state.lock;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const release = await lock.acquire(origin);
    try {
      const state = await deps.state.get(origin);
      const d = decide(req, size, rootHash, state);
      if (d.kind === 'refuse') {
        if (d.evidence) deps.onEvidence?.({ origin, code: d.failure.code, detail: d.failure.detail, note: signedText });
        // Both notes verified under the log's key at one size with different roots: a proof anyone can check.
        if (d.failure.code === 'fork_detected' && state?.note !== undefined) {
          const fp = buildNoteForkProof(origin, state.note, signedText);
          if (await deps.state.putFork(fp)) await deps.onFork?.(fp);
        }
        return d.failure;
      }
      await deps.hooks?.afterCheck?.(origin);
      const now = deps.clock();
      // Decided: sign now (on the worker when there is one); committed before it is answered.
      let c;
      if (deps.signWorker) {
        const m = deps.cosigner.message(req.textBytes, now);
        const [s] = await signWith(deps.signWorker.worker, deps.signWorker.signer, [m.msg]);
        c = deps.cosigner.finish(m.timestamp, s);
      } else c = deps.cosigner.cosign(req.textBytes, now);
      const pq = deps.mldsaCosigner?.cosign({ origin, size, rootHash }, now);
      const lines = `\u2014 ${c.line}\n${pq ? `\u2014 ${pq.line}\n` : ''}`;
      const next: Omit<LogState, 'version'> = {
        log: origin,
        seq: size,
        root: formatHash(rootHash),
        updatedAt: formatTime(now),
        note: `${signedText}${lines}`,
        noteCosignature: c.line,
      };
      // The same tree again keeps what the libp2p protocol knew about it (head, JSON checkpoint).
      if (d.sameSize && state) {
        for (const k of ['head', 'checkpoint', 'cosignature'] as const)
          if (state[k] !== undefined) (next as Record<string, unknown>)[k] = state[k];
      }
      if (state?.descriptorHash !== undefined) next.descriptorHash = state.descriptorHash;
      const committed = await deps.state.commit(next, d.expectedVersion);
      if (committed.ok) return ok({ origin, size, lines });
      if (attempt === MAX_ATTEMPTS) {
        const s = await deps.state.get(origin);
        return fail('conflict', `state of ${origin} kept moving; retry`, { knownSeq: s?.seq ?? 0 });
      }
    } finally {
      release();
    }
  }
  return fail('conflict', 'unreachable');
}

export interface C2spHttpAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * The tlog-witness status for a result (fixed by the spec, not by the reason table: a same-size
 * fork is 422 here, 409 in the JSON protocol). Error bodies are one text line `<code>: <detail>`;
 * the 409 body is exactly the size and a newline, typed text/x.tlog.size.
 */
export function c2spAnswer(r: Result<C2spCosigned>): C2spHttpAnswer {
  if (r.ok) return { status: 200, contentType: 'text/plain; charset=utf-8', body: r.value.lines };
  if (r.code === 'conflict')
    return { status: 409, contentType: 'text/x.tlog.size', body: `${typeof r.knownSeq === 'number' ? r.knownSeq : 0}\n` };
  const status: Record<string, number> = {
    unknown_log: 404,
    unknown_key: 403,
    bad_signature: 403,
    inconsistent: 422,
    fork_detected: 422,
    body_too_large: 413,
    witness_unavailable: 503,
  };
  const detail = r.detail.replace(/[\r\n]+/g, ' ').slice(0, 500);
  return { status: status[r.code] ?? 400, contentType: 'text/plain; charset=utf-8', body: `${r.code}: ${detail}\n` };
}
