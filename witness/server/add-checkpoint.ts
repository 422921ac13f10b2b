// witness/server/add-checkpoint.ts: the witness's decision for one add-checkpoint request (docs/design.md §7,
// C2SP tlog-witness semantics), as pure request logic over injected state, keys and clock; no
// transport types. Order of checks: admitted log (`unknown_log`) -> sequencer signature with the
// admitted key (`bad_signature`) -> first contact (oldSeq 0 and a descriptor signed by that key)
// -> same seq (identical: fresh cosignature; different: `fork_detected` with a ForkProof, stored
// and handed to onFork) -> older seq or oldSeq != stored (`conflict` with knownSeq) -> consistency
// proof oldSeq->seq from the stored root and the head's inclusion proof at seq (`inconsistent`)
// -> durable compare-and-set -> cosign.
// Invariants: a cosignature is made only once the request is decided, and answered only after the
// state that holds it is durable (synced); a log's lock is held from reading the state to the
// commit, and the commit's version check still refuses a writer that raced through the window
// (then the request is decided again on the new state).
// A proven fork takes precedence over `conflict`: the caller learns what we can prove.
// With a C2SP cosigner in deps, the same cosignature is also made as cosignature/v1 over the
// checkpoint's C2SP body (processAddCheckpointBoth; docs/design.md §4). A state advanced by a C2SP note
// (c2sp-add-checkpoint.ts, same lock and commit) has no head: the same-seq check compares roots.
// With deps.offThread the sequencer signature (and the log's note signature, when the checkpoint
// carries one) is checked on a worker, with the inline result; with
// deps.signWorker our signatures are made on a worker once decided (the same bytes; still before the commit).
// Left out: rate limiting (the transport's job) and C2SP's text wire format (c2sp-add-checkpoint.ts).

import { fail, ok, type Result } from '../../verifier/index.ts';
import { formatHash, formatTime, parseHash, utf8 } from '../../verifier/encoding/index.ts';
import type { Signature, Signer } from '../../verifier/signing/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { verifyCheckpointSequencerSignature, type Checkpoint } from '../../verifier/documents/index.ts';
import { cosignatureHeaderBytes, cosignatureOf } from './checkpoint-cosigner.ts';
import { signWith, type SigningWorker } from './signing-worker.ts';
import { buildForkProof, type ForkProof } from '../../verifier/documents/index.ts';
import { EMPTY_ROOT, hashLeaf, verifyConsistency, verifyInclusion, type Hash32 } from '../../verifier/merkle/index.ts';
import { verifyLogDescriptor, type LogDescriptor } from '../../verifier/documents/index.ts';
import type { AddCheckpointRequest } from '../wire/messages.ts';
import type { LogState, StateStore } from './state.ts';
import type { KeyedLock } from './mutex.ts';
import type { WitnessCosigner } from './note-cosigner.ts';
import type { NoteCosignatureObject } from '../wire/messages.ts';
import type { OffThreadVerifier } from './off-thread-verify.ts';
import { formatCheckpointBody } from '../../verifier/c2sp/note/index.ts';
import { NOTE_ED25519, noteSignatureLine, verifyCheckpointNoteSignature, type C2spSignature } from '../../verifier/documents/index.ts';

export interface AdmittedLog {
  log: string;
  sequencer: KeyRecord;
}

export interface WitnessDeps {
  state: StateStore;
  /** The logs this witness follows, by configuration. */
  logs: { get(log: string): AdmittedLog | undefined };
  signer: Signer;
  /** Milliseconds since the epoch (injectable for tests). */
  clock: () => number;
  /** Defaults to the state store's per-log lock. */
  lock?: KeyedLock;
  hooks?: { afterCheck?: (req: AddCheckpointRequest) => Promise<void> };
  /** Called once per newly stored ForkProof (gossip publishes it). */
  onFork?: (fp: ForkProof) => void | Promise<void>;
  /** Our C2SP cosigner: when given, every cosignature also comes as cosignature/v1 (docs/design.md §4). */
  cosigner?: WitnessCosigner;
  backend?: CryptoBackend;
  /** The sequencer's signature checked on a worker (off-thread-verify.ts); same result as inline. */
  offThread?: OffThreadVerifier;
  /** Our cosignatures signed on a worker holding `signer`'s key (signing-worker.ts); same bytes as inline. */
  signWorker?: SigningWorker;
}

/** How often a request is decided again after losing the compare-and-set to a racing writer. */
const MAX_ATTEMPTS = 3;

const emptyRootHash = (): string => formatHash(EMPTY_ROOT);

function hashes(list: string[]): Result<Hash32[]> {
  const out: Hash32[] = [];
  for (const h of list) {
    const b = parseHash(h);
    if (!b.ok) return b;
    out.push(b.value);
  }
  return ok(out);
}

/** Same tree; a state advanced by a C2SP note knows no head, so only its root can be compared. */
function sameTree(a: { head: string; root: string }, b: { head?: string; root: string }): boolean {
  return (b.head === undefined || a.head === b.head) && a.root === b.root;
}

/** The first checkpoint of a log: oldSeq 0, a descriptor signed by the admitted key. */
function checkFirstContact(req: AddCheckpointRequest, key: KeyRecord, deps: WitnessDeps): Result<LogDescriptor> {
  if (req.oldSeq !== 0) return fail('conflict', `no state for ${req.checkpoint.log}: send oldSeq 0 with the descriptor`, { knownSeq: 0 });
  const d = req.descriptor;
  if (!d) return fail('invalid_document', 'the first checkpoint of a log comes with its descriptor');
  const v = verifyLogDescriptor(d, key, { log: req.checkpoint.log, backend: deps.backend });
  if (!v.ok) return v.code === 'unknown_key' || v.code === 'key_role_mismatch' ? fail('bad_signature', `descriptor: ${v.detail}`) : v;
  if (req.checkpoint.seq === 0 && (req.checkpoint.head !== d.hash || req.checkpoint.root !== emptyRootHash())) {
    return fail('inconsistent', 'a checkpoint at seq 0 has the descriptor hash as head and the empty root');
  }
  return ok(d);
}

/** Consistency oldSeq -> seq from the stored root, and the head as leaf seq-1 of the new root. */
function checkProofs(req: AddCheckpointRequest, oldRoot: string): Result<true> {
  const cp = req.checkpoint;
  const root2 = parseHash(cp.root);
  if (!root2.ok) return root2;
  const consistency = hashes(req.consistency);
  if (!consistency.ok) return consistency;
  if (req.oldSeq === 0) {
    if (consistency.value.length !== 0) return fail('inconsistent', 'a consistency proof from the empty tree is empty');
  } else {
    const root1 = parseHash(oldRoot);
    if (!root1.ok) return root1;
    const c = verifyConsistency(req.oldSeq, cp.seq, consistency.value, root1.value, root2.value);
    if (!c.ok) return fail('inconsistent', `consistency ${req.oldSeq} -> ${cp.seq}: ${c.detail}`);
  }
  const headProof = hashes(req.headProof);
  if (!headProof.ok) return headProof;
  const head = parseHash(cp.head);
  if (!head.ok) return head;
  const inc = verifyInclusion(hashLeaf(head.value), cp.seq - 1, cp.seq, headProof.value, root2.value);
  if (!inc.ok) return fail('inconsistent', `head ${cp.head} is not leaf ${cp.seq} of root ${cp.root}: ${inc.detail}`);
  return ok(true);
}

type NextState = Omit<LogState, 'version' | 'cosignature' | 'updatedAt'>;
type Decision =
  | { kind: 'cosign'; next: NextState; expectedVersion: number }
  | { kind: 'fork'; fp?: ForkProof }
  | { kind: 'refuse'; failure: Result<never> };

function decide(req: AddCheckpointRequest, admitted: AdmittedLog, state: LogState | undefined, deps: WitnessDeps): Decision {
  const cp = req.checkpoint;
  const base = { log: cp.log, seq: cp.seq, root: cp.root, head: cp.head, checkpoint: stripCosignatures(cp) };
  if (!state) {
    const d = checkFirstContact(req, admitted.sequencer, deps);
    if (!d.ok) return { kind: 'refuse', failure: d };
    if (cp.seq > 0) {
      const p = checkProofs(req, emptyRootHash());
      if (!p.ok) return { kind: 'refuse', failure: p };
    }
    return { kind: 'cosign', next: { ...base, descriptorHash: d.value.hash }, expectedVersion: 0 };
  }
  if (cp.seq === state.seq) {
    // Without a stored JSON checkpoint (the state came from a C2SP note) the fork is refused but
    // cannot be written as a ForkProof; the note is in the state for whoever needs it.
    if (!sameTree(cp, state))
      return { kind: 'fork', fp: state.checkpoint ? buildForkProof(state.checkpoint, stripCosignatures(cp)) : undefined };
    // The same tree again: a fresh cosignature (C2SP: re-cosigning keeps timestamps fresh). The
    // checkpoint stored is the one cosigned now, whose hash may differ (x- members), so the stored
    // pair (checkpoint, cosignature) always verifies.
    // A note cosigned at this size stays valid (the same tree), so the monitoring read keeps it.
    const kept = state.note !== undefined ? { note: state.note, noteCosignature: state.noteCosignature } : {};
    return { kind: 'cosign', next: { ...base, descriptorHash: state.descriptorHash, ...kept }, expectedVersion: state.version };
  }
  // A descriptor sent again must be the one first seen: another genesis under the same key is
  // another log wearing this origin.
  if (req.descriptor && state.descriptorHash && req.descriptor.hash !== state.descriptorHash) {
    return {
      kind: 'refuse',
      failure: fail(
        'descriptor_mismatch',
        `descriptor ${req.descriptor.hash} is not the one this witness follows (${state.descriptorHash})`,
        { knownSeq: state.seq },
      ),
    };
  }
  if (cp.seq < state.seq)
    return { kind: 'refuse', failure: fail('conflict', `seq ${cp.seq} is older than the cosigned ${state.seq}`, { knownSeq: state.seq }) };
  if (req.oldSeq !== state.seq)
    return { kind: 'refuse', failure: fail('conflict', `oldSeq ${req.oldSeq}, the witness has ${state.seq}`, { knownSeq: state.seq }) };
  const p = checkProofs(req, state.root);
  if (!p.ok) return { kind: 'refuse', failure: p };
  return { kind: 'cosign', next: { ...base, descriptorHash: state.descriptorHash }, expectedVersion: state.version };
}

/** The checkpoint with only the sequencer's signature: what the state and fork proofs keep. */
export function stripCosignatures(cp: Checkpoint): Checkpoint {
  return { ...cp, signature: cp.signature.slice(0, 1) };
}

export async function processAddCheckpoint(req: AddCheckpointRequest, deps: WitnessDeps): Promise<Result<Signature>> {
  const r = await processAddCheckpointBoth(req, deps);
  return r.ok ? ok(r.value.cosignature) : r;
}

/** The log's verified note-ed25519 signature line in a JSON checkpoint, if it carries one. */
function logNoteLine(cp: Checkpoint, admitted: AdmittedLog, backend?: CryptoBackend): string | undefined {
  for (const s of cp.signature as ReadonlyArray<{ alg: string }>) {
    if (s.alg !== NOTE_ED25519) continue;
    const sig = s as C2spSignature;
    if (!verifyCheckpointNoteSignature(cp, sig, admitted.sequencer, { backend }).ok) continue;
    const line = noteSignatureLine(sig);
    if (line.ok) return line.value;
  }
  return undefined;
}

/** The C2SP body of a Cookwala checkpoint (docs/design.md §7a: origin, seq, base64 root, no extensions). */
export function c2spBodyOf(cp: Pick<Checkpoint, 'log' | 'seq' | 'root'>): string {
  const root = parseHash(cp.root);
  if (!root.ok) throw new TypeError('checkpoint root is not a hash string');
  return formatCheckpointBody({ origin: cp.log, size: cp.seq, rootHash: root.value, extensions: [] });
}

/** processAddCheckpoint with, when deps.cosigner is set, the cosignature/v1 form as well. */
export async function processAddCheckpointBoth(
  req: AddCheckpointRequest,
  deps: WitnessDeps,
): Promise<Result<{ cosignature: Signature; noteCosignature?: NoteCosignatureObject }>> {
  const cp = req.checkpoint;
  const admitted = deps.logs.get(cp.log);
  if (!admitted) return fail('unknown_log', `this witness does not follow ${cp.log}`);
  // The sequencer's signature and, with a cosigner, the log's own note signature (which our
  // sequencers send with every checkpoint): both checked in one pass, on the worker when there is one.
  const logSignatures = (backend?: CryptoBackend): Result<{ hash: string; logLine: string | undefined }> => {
    const s = verifyCheckpointSequencerSignature(cp, admitted.sequencer, { backend });
    if (!s.ok) return s;
    return ok({ hash: s.value.hash, logLine: deps.cosigner ? logNoteLine(cp, admitted, backend) : undefined });
  };
  const sig = deps.offThread ? await deps.offThread.check(logSignatures) : logSignatures(deps.backend);
  if (!sig.ok) return fail('bad_signature', `${sig.code}: ${sig.detail}`);

  const lock = deps.lock ?? deps.state.lock;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const release = await lock.acquire(cp.log);
    try {
      const state = await deps.state.get(cp.log);
      const d = decide(req, admitted, state, deps);
      if (d.kind === 'refuse') return d.failure;
      if (d.kind === 'fork') {
        if (d.fp && (await deps.state.putFork(d.fp))) await deps.onFork?.(d.fp);
        const extra = d.fp ? { knownSeq: state!.seq, forkProof: d.fp } : { knownSeq: state!.seq };
        return fail(
          'fork_detected',
          `seq ${cp.seq}: head/root ${cp.head}/${cp.root} differ from the cosigned ${state!.head ?? '(no head: cosigned as a C2SP note)'}/${state!.root}`,
          extra,
        );
      }
      await deps.hooks?.afterCheck?.(req);
      const now = deps.clock();
      const signedAt = formatTime(now);
      // Decided: sign now (on the worker when there is one, both signatures in one message); the
      // signatures go into the state record, which is committed before anything is answered.
      const header = cosignatureHeaderBytes(deps.signer, sig.value.hash, signedAt);
      const body = c2spBodyOf(cp);
      const noteMsg = deps.cosigner?.message(utf8(body), now);
      const sigs = await signWith(deps.signWorker, deps.signer, noteMsg ? [header, noteMsg.msg] : [header]);
      const cosignature = cosignatureOf(deps.signer, signedAt, sigs[0]);
      const note = noteMsg && deps.cosigner!.finish(noteMsg.timestamp, sigs[1]);
      const next: Omit<LogState, 'version'> = { ...d.next, cosignature, updatedAt: signedAt };
      if (note) {
        // With the log's own note signature in the checkpoint (docs/design.md §4), the monitoring read can
        // serve this checkpoint as a signed note: the log's line, then ours.
        const logLine = sig.value.logLine;
        if (logLine !== undefined) {
          next.note = `${body}\n${logLine}\u2014 ${note.line}\n`;
          next.noteCosignature = note.line;
        } else if (next.note === undefined) next.noteCosignature = note.line;
      }
      const committed = await deps.state.commit(next, d.expectedVersion);
      // Only now, durable, may the cosignature leave.
      if (committed.ok) return ok(note ? { cosignature, noteCosignature: note.object } : { cosignature });
      if (attempt === MAX_ATTEMPTS) return fail('conflict', `state of ${cp.log} kept moving; retry`, { knownSeq: state?.seq ?? 0 });
    } finally {
      release();
    }
  }
  return fail('conflict', 'unreachable');
}
