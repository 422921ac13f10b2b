// executor/lifecycle.ts: the execution lifecycle of Cookwala Core 0.2 §7 as one explicit transition
// table: accepted -> preparing -> running -> completed; running <-> paused; running -> needs_human ->
// running; (accepted|preparing|running|paused|needs_human) -> stopping -> stopped; accepted ->
// refused; (preparing|running|paused|needs_human|stopping) -> failed. completed, stopped, refused and
// failed are final. Pure: no I/O, no clock. Leaves out who may ask for a change (api.ts) and what
// the hardware does (runner.ts). Invariant: a change that the table does not list is a Result
// failure `illegal_transition`, never a silent no-op, and every change bumps the status seq by one
// (seq 1 is `accepted`), which is the CloudEvent `cookwalaseq` and the HTTP ETag.

import { fail, ok, type ReasonCode, type Result } from '../verifier/index.ts';

export const STATES = [
  'accepted',
  'preparing',
  'running',
  'paused',
  'needs_human',
  'stopping',
  'completed',
  'stopped',
  'refused',
  'failed',
] as const;
export type ExecutionState = (typeof STATES)[number];

export const TRANSITIONS: Readonly<Record<ExecutionState, readonly ExecutionState[]>> = {
  accepted: ['preparing', 'stopping', 'refused'],
  preparing: ['running', 'stopping', 'failed'],
  running: ['completed', 'paused', 'needs_human', 'stopping', 'failed'],
  paused: ['running', 'stopping', 'failed'],
  needs_human: ['running', 'stopping', 'failed'],
  stopping: ['stopped', 'failed'],
  completed: [],
  stopped: [],
  refused: [],
  failed: [],
};

/** States that report what a local safety function already did (§6.3: `cookwalalatency: local_safety`). */
export const SAFETY_STATES: ReadonlySet<ExecutionState> = new Set(['stopping', 'stopped', 'failed']);

/** States in which the hardware may be doing something (heat, motion). */
export const ACTIVE_STATES: ReadonlySet<ExecutionState> = new Set(['preparing', 'running', 'paused', 'needs_human', 'stopping']);

export function isState(x: unknown): x is ExecutionState {
  return typeof x === 'string' && (STATES as readonly string[]).includes(x);
}

export function isFinal(s: ExecutionState): boolean {
  return TRANSITIONS[s].length === 0;
}

export function canTransition(from: ExecutionState, to: ExecutionState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Why a state was entered. Refusals and failures carry a reason code from verifier/errors.ts; the other
 *  states carry one of the causes below, so a reader can tell a person's stop from a local one. */
export const CAUSES = ['stop_requested', 'local_stop', 'paused_locally', 'pause_requested', 'human_check', 'resumed', 'step_done'] as const;
export type Cause = (typeof CAUSES)[number];
export interface Reason {
  code: ReasonCode | Cause;
  detail?: string;
}

export interface StatusChange {
  from: ExecutionState;
  to: ExecutionState;
  /** The status seq after the change (= cookwalaseq of its event). */
  seq: number;
}

/** Check one change against the table; the new seq is the old one plus one. */
export function transition(from: { status: ExecutionState; seq: number }, to: ExecutionState): Result<StatusChange> {
  if (!isState(to)) return fail('illegal_transition', `unknown state ${String(to)}`);
  if (!canTransition(from.status, to)) {
    const allowed = TRANSITIONS[from.status];
    const detail =
      allowed.length === 0 ? `${from.status} is final` : `${from.status} -> ${to} is not allowed (allowed: ${allowed.join(', ')})`;
    return fail('illegal_transition', detail, { from: from.status, to });
  }
  if (!Number.isSafeInteger(from.seq) || from.seq < 1) throw new TypeError(`status seq must be a positive integer, got ${from.seq}`);
  return ok({ from: from.status, to, seq: from.seq + 1 });
}

/** The one way an execution begins: `accepted` at seq 1. */
export const INITIAL: { status: ExecutionState; seq: number } = Object.freeze({ status: 'accepted', seq: 1 });
