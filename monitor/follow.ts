// monitor/follow.ts: one followed log, advanced one step at a time (docs/monitoring.md). A step
// reads the served checkpoint (a Cookwala log's from its sequencer, or from its static copy when
// the config names no url) and verifies it under the policy (served.ts); then, against the
// state of the last step (state.ts): a smaller size than verified is a rollback, the same size
// with another root a fork (a ForkProof file when both sides are JSON checkpoints signed by the
// sequencer), a larger one is extended: the Merkle frontier of the last verified tree is grown
// with the new leaves (recomputed from the entries of a Cookwala log, entries-step.ts, or read
// from the level-0 hash tiles of any C2SP log, tiles.ts) and its root must equal the new root.
// That equality is the consistency proof, computed from what the log serves rather than taken
// from its proof endpoint: the old tree is a prefix of the new one exactly when the compact range
// extends to it. When it does not, the old frontier's nodes are compared with the nodes of the
// served tree read from its hash tiles, and the first that differs names the range of entries
// that changed (rewrite_detected, divergence.ts). Only a connected step is committed, and the state file is
// written before the step reports checkpoint_verified; a long catch-up also keeps its place after
// each page of entries (`pending`, entries_progress), so a killed monitor redoes at most one page.
// A payload found erased waits in the state for its erasure entry (erasures.ts) and is reported
// as payload_missing when its bound passes first. Staleness: the newest cosignature of the served
// checkpoint (or the last time the log answered) older than staleAfterMs. Left out: the comparison with other views (split-view.ts),
// the loop and the HTTP side (service.ts). Invariant: the state never holds a checkpoint that does
// not connect to the one before it.

import { createFrontier, EMPTY_ROOT } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { VerifyBatch } from '../verifier/bundle/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import type { Logger } from '../platform/index.ts';
import { FetchFailed, type HttpGet } from './http-get.ts';
import { readC2spCheckpoint, readCookwalaCheckpoint, type LogKind, type ServedView } from './served.ts';
import { createTileReader, TileError } from './tiles.ts';
import { forkFinding, locateRewrite, rewriteFinding } from './divergence.ts';
import { checkEntries, readDescriptor, type Descriptor } from './entries-step.ts';
import { createIdWindow, DEFAULT_ID_WINDOW } from './id-window.ts';
import {
  createErasureWaits,
  DEFAULT_ERASURE_WITHIN_ENTRIES,
  DEFAULT_ERASURE_WITHIN_MS,
  MAX_WAITING_ERASURES,
  type ErasureWaitState,
  type WaitingErasure,
} from './erasures.ts';
import { emptyState, encodeFrontier, frontierNodes, loadState, saveState, withRecent, type LogState, type PendingPage } from './state.ts';
import type { MonitorEvent, MonitorMetrics } from './events.ts';

export interface FollowedLog {
  origin: string;
  kind: LogKind;
  /** Cookwala logs: the sequencer's base URL; without it the log is read whole from its static copy at `tiles`. */
  url?: string;
  /** The tlog-tiles prefix, ending in '/'. */
  tiles: string;
  policy: WitnessPolicy;
  keyCache: readonly KeyRecord[];
  staleAfterMs: number;
  idWindow?: number;
  maxSubjects?: number;
  /** Entries read and checked per page (at most 10,000); a long catch-up keeps its place after each. */
  pageEntries?: number;
  /** How long a payload found erased may wait for its erasure entry: verified entries, ms (erasures.ts). */
  erasureWithinEntries?: number;
  erasureWithinMs?: number;
}

export interface FollowDeps {
  get: HttpGet;
  /** Device signature checks in batches (the CLI's worker pool); inline by default. */
  verifyBatch?: VerifyBatch;
  log: Logger;
  metrics: MonitorMetrics;
  stateDir: string;
  now: () => number;
}

export interface Finding {
  event: MonitorEvent;
  seq?: number;
  detail: string;
  [k: string]: unknown;
}

export interface StepResult {
  findings: Finding[];
  /** The view served this step, when it verified. */
  served?: ServedView;
  verified?: { size: number; entries: number };
}

export const DEFAULT_MAX_SUBJECTS = 10_000;

export interface Follower {
  readonly origin: string;
  readonly config: FollowedLog;
  step(): Promise<StepResult>;
  /** The committed state (undefined before the first step loaded it). */
  state(): LogState | undefined;
  readonly lastServed: ServedView | undefined;
}

const EMPTY = formatHash(EMPTY_ROOT);

export function createFollower(cfg: FollowedLog, deps: FollowDeps): Follower {
  let state: LogState | undefined;
  let descriptor: Descriptor | undefined;
  let lastAnswerMs = deps.now();
  let lastServed: ServedView | undefined;
  const labels = { log: cfg.origin };

  async function load(): Promise<LogState> {
    if (state) return state;
    const s = await loadState(deps.stateDir, cfg.origin);
    if (!s.ok) throw new Error(s.detail);
    state = s.value ?? emptyState(cfg.origin, EMPTY);
    return state;
  }

  async function served(): Promise<ReturnType<typeof readCookwalaCheckpoint>> {
    return cfg.kind === 'cookwala'
      ? readCookwalaCheckpoint(deps.get, source, cfg.policy)
      : readC2spCheckpoint(deps.get, cfg.tiles, cfg.policy);
  }

  // A Cookwala log without a sequencer URL is read whole from its static copy under `tiles`.
  const source = cfg.url !== undefined ? { base: cfg.url } : { copy: cfg.tiles };

  const locate = (s: LogState, size: number) => locateRewrite(deps.get, cfg.tiles, s, size);
  const fork = (s: LogState, v: ServedView) => forkFinding(deps.stateDir, cfg.origin, s, v);

  const erasureBounds = {
    withinEntries: cfg.erasureWithinEntries ?? DEFAULT_ERASURE_WITHIN_ENTRIES,
    withinMs: cfg.erasureWithinMs ?? DEFAULT_ERASURE_WITHIN_MS,
  };
  const erasureWaits = (from: ErasureWaitState | undefined) => createErasureWaits(from, erasureBounds);

  /** Payloads whose erasure entry did not come within the bound: payload_missing, as the full audit says it. */
  function missingPayloads(due: WaitingErasure[]): Finding[] {
    return due.map(([seq, , size, at]) => ({
      event: 'entry_invalid',
      seq,
      code: 'payload_missing',
      detail: `entry ${seq} has no payload (found at checkpoint ${size}, ${new Date(at).toISOString()}) and no cookwala.log.erased entry names it`,
    }));
  }

  async function extend(s: LogState, v: ServedView, now: number): Promise<{ next?: LogState; findings: Finding[]; entries: number }> {
    const findings: Finding[] = [];
    if (cfg.kind === 'c2sp') {
      const tiles = createTileReader(deps.get, cfg.tiles, v.size);
      let leaves;
      try {
        leaves = await tiles.leafHashes(s.size, v.size);
      } catch (e) {
        if (!(e instanceof TileError)) throw e;
        return { findings: [{ event: 'entry_invalid', seq: v.size, code: 'tile_invalid', detail: e.message }], entries: 0 };
      }
      const f = createFrontier(s.size, frontierNodes(s));
      for (const h of leaves) f.push(h);
      const root = formatHash(f.root());
      if (root !== v.root) {
        const range = await locate(s, v.size);
        return { findings: [rewriteFinding(s, v, range)], entries: 0 };
      }
      return { next: { ...s, size: v.size, root, note: v.note, frontier: encodeFrontier(f.nodes()) }, findings, entries: leaves.length };
    }
    if (!descriptor) {
      const d = await readDescriptor(deps.get, {
        ...source,
        policy: cfg.policy,
        keyCache: cfg.keyCache,
        verifyBatch: deps.verifyBatch,
      });
      if (!d.ok)
        return { findings: [{ event: 'checkpoint_invalid', code: d.code, detail: `the log descriptor: ${d.detail}` }], entries: 0 };
      descriptor = d.value;
    }
    // A catch-up killed part-way goes on from its last checked page (state.ts `pending`).
    const p = s.pending && s.pending.seq > s.size && s.pending.seq < v.size ? s.pending : undefined;
    const ids = createIdWindow(cfg.idWindow ?? DEFAULT_ID_WINDOW, p ? p.ids : s.ids);
    const waits = erasureWaits(p ? p.erasures : s.erasures);
    const resume = p
      ? { seq: p.seq, hash: p.head, frontier: frontierNodes(p), subjects: p.subjects, clock: p.clock }
      : s.size === 0
        ? undefined
        : { seq: s.size, hash: s.head ?? '', frontier: frontierNodes(s), subjects: s.subjects, clock: s.clock };
    const maxSubjects = cfg.maxSubjects ?? DEFAULT_MAX_SUBJECTS;
    const out = await checkEntries(
      deps.get,
      { ...source, policy: cfg.policy, keyCache: cfg.keyCache, verifyBatch: deps.verifyBatch },
      descriptor,
      resume,
      v.size,
      ids,
      {
        pageEntries: cfg.pageEntries,
        earlierMissing: waits,
        onPage: ({ at, entries, unexplained }) => {
          waits.setFound(unexplained, v.size, now);
          const pending: PendingPage = {
            seq: at.seq,
            head: at.hash,
            frontier: encodeFrontier(at.frontier),
            subjects: at.subjects.slice(-maxSubjects),
            clock: at.clock,
            ids: ids.snapshot(),
            erasures: waits.snapshot(),
          };
          return async () => {
            await saveState(deps.stateDir, { ...s, pending });
            deps.log.info({ event: 'entries_progress', log: cfg.origin, seq: at.seq, entries }, `entries through ${at.seq} checked`);
          };
        },
      },
    );
    if (!out.ok) return { findings: [{ event: 'entry_invalid', seq: s.size + 1, code: out.code, detail: out.detail }], entries: 0 };
    const o = out.value;
    waits.setFound(o.unexplained, v.size, now);
    for (const f of o.failures) findings.push({ event: 'entry_invalid', seq: f.seq, code: f.kind, detail: f.detail ?? f.kind });
    if (o.root !== v.root) {
      // New entries that hash to other leaves than the log's tree holds are already named above;
      // when none is, or the first new entry does not link to the verified head (the history
      // before it was re-chained), the old tree itself is not a prefix of the new one.
      const linked = !o.failures.some((f) => f.kind === 'chain_broken' && f.seq === s.size + 1);
      const inRange = o.failures.some((f) => f.kind === 'entry_hash_mismatch' || f.kind === 'chain_broken');
      if (!inRange || !linked) findings.push(rewriteFinding(s, v, await locate(s, v.size)));
      else
        findings.push({
          event: 'rewrite_detected',
          seq: v.size,
          detail: `the entries served do not give the root of checkpoint ${v.size}`,
        });
      return { findings, entries: 0 };
    }
    if (o.head !== v.head) {
      findings.push({
        event: 'entry_invalid',
        seq: v.size,
        code: 'head_mismatch',
        detail: `checkpoint ${v.size} names head ${v.head}, entry ${v.size} hashes to ${o.head}`,
      });
      return { findings, entries: 0 };
    }
    const subjects = [...o.resume.subjects].slice(-maxSubjects);
    findings.push(...missingPayloads(waits.due(v.size, now)));
    if (waits.dropped > 0 && !(s.erasures?.dropped ?? 0))
      deps.log.warn(
        { event: 'erasures_capped', log: cfg.origin, seq: v.size, dropped: waits.dropped },
        `more than ${MAX_WAITING_ERASURES} payloads wait for their erasure entries; the ones past that are not matched`,
      );
    return {
      next: {
        ...s,
        size: v.size,
        root: v.root,
        head: o.head,
        checkpoint: v.checkpoint,
        frontier: encodeFrontier(o.resume.frontier),
        subjects,
        clock: o.resume.clock,
        ids: ids.snapshot(),
        erasures: waits.snapshot(),
        pending: undefined,
      },
      findings,
      entries: o.entries,
    };
  }

  return {
    origin: cfg.origin,
    config: cfg,
    get lastServed() {
      return lastServed;
    },
    state: () => state,
    async step() {
      const s = await load();
      const now = deps.now();
      let r;
      try {
        r = await served();
      } catch (e) {
        if (!(e instanceof FetchFailed)) throw e;
        if (now - lastAnswerMs > cfg.staleAfterMs)
          return {
            findings: [
              { event: 'checkpoint_stale', seq: s.size, detail: `the log has not answered for ${now - lastAnswerMs} ms: ${e.message}` },
            ],
          };
        return { findings: [] };
      }
      lastAnswerMs = now;
      if (!r.ok) {
        if (r.code === 'quorum_not_met') {
          const x = r as { seq?: number; witnesses?: string[]; view?: ServedView };
          const found: Finding[] = [{ event: 'quorum_lost', seq: x.seq, witnesses: x.witnesses, detail: r.detail }];
          const v = x.view;
          if (v && v.size === s.size && s.size > 0 && v.root !== s.root) found.push(await fork(s, v));
          return { findings: found };
        }
        return { findings: [{ event: 'checkpoint_invalid', code: r.code, detail: r.detail }] };
      }
      const v = r.value;
      lastServed = v;
      deps.metrics.set('cookwala_monitor_served_size', v.size, labels);
      deps.metrics.set('cookwala_monitor_lag_entries', Math.max(0, v.size - s.size), labels);
      const findings: Finding[] = [];
      const newest = Number.isFinite(v.newestCosignatureMs) ? v.newestCosignatureMs : s.verifiedAt;
      if (newest > 0 && now - newest > cfg.staleAfterMs)
        findings.push({
          event: 'checkpoint_stale',
          seq: v.size,
          detail: `the newest cosignature of checkpoint ${v.size} is ${now - newest} ms old`,
        });
      if (v.size < s.size) {
        const known = s.recent.find((x) => x.size === v.size);
        if (known && known.root === v.root)
          findings.push({
            event: 'checkpoint_stale',
            seq: v.size,
            detail: `the log serves checkpoint ${v.size}, older than the verified ${s.size}`,
          });
        else
          findings.push({
            event: 'rewrite_detected',
            seq: v.size,
            detail: `the log serves size ${v.size}, below the verified ${s.size}, with an unknown root`,
          });
        return { findings, served: v };
      }
      if (v.size === s.size) {
        if (v.root !== s.root && !(s.size === 0 && v.root === EMPTY)) findings.push(await fork(s, v));
        else if (s.erasures?.waiting.length) {
          // A quiet log: the time bound of a payload still waiting for its erasure entry.
          const waits = erasureWaits(s.erasures);
          const due = waits.due(s.size, now);
          if (due.length > 0) {
            const next: LogState = { ...s, erasures: waits.snapshot() };
            await saveState(deps.stateDir, next);
            state = next;
            findings.push(...missingPayloads(due));
          }
        }
        return { findings, served: v };
      }
      const x = await extend(s, v, now);
      findings.push(...x.findings);
      if (!x.next) return { findings, served: v };
      const next: LogState = { ...x.next, recent: withRecent(s.recent, { size: v.size, root: v.root }), verifiedAt: now };
      await saveState(deps.stateDir, next);
      state = next;
      deps.metrics.set('cookwala_monitor_verified_size', next.size, labels);
      deps.metrics.set('cookwala_monitor_verified_time_seconds', Math.floor(now / 1000), labels);
      deps.metrics.set('cookwala_monitor_lag_entries', 0, labels);
      deps.metrics.inc('cookwala_monitor_entries_verified_total', labels, x.entries);
      return { findings, served: v, verified: { size: next.size, entries: x.entries } };
    },
  };
}
