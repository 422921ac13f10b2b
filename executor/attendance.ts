// executor/attendance.ts: whether a responsible person is present at the device or reachable within
// one minute (Cookwala Core 0.2 §6.6). The device learns it from its owner (PUT /v1/attendance on
// the local API, or the --attendance flag / simulator option at start); a device maker may feed it
// from a presence sensor instead. It is held in memory only: after a restart nobody is declared,
// which is the safe default (an unattended-forbidden step is refused until someone says they are
// there). Pure state plus listeners; enforcement lives in plan.ts (refusal before start), runner.ts
// (before each step and while it runs) and service.ts (resume). Left out: how a person proves who
// they are (the owner token covers the device owner; a household's people are not modelled).
// Invariant: `available()` is true exactly when present, or reachable within REACHABLE_LIMIT_S.

import { fail, ok, type Result } from '../verifier/index.ts';

/** §6.6: "reachable within one minute". */
export const REACHABLE_LIMIT_S = 60;

export interface AttendanceState {
  /** Someone responsible is at the device now. */
  present: boolean;
  /** Not present, but reachable within this many seconds (absent = not reachable). */
  reachableWithinS?: number;
}

export type AttendanceListener = (available: boolean, s: AttendanceState) => void;

export interface Attendance {
  get(): AttendanceState & { available: boolean; since: number };
  set(s: AttendanceState): void;
  available(): boolean;
  onChange(l: AttendanceListener): () => void;
}

export const NOBODY: AttendanceState = Object.freeze({ present: false });

export function isAvailable(s: AttendanceState): boolean {
  return s.present || (s.reachableWithinS !== undefined && s.reachableWithinS <= REACHABLE_LIMIT_S);
}

/** Read `{present, reachableWithinS?}` strictly (unknown members refused, x- members ignored). */
export function readAttendance(json: unknown): Result<AttendanceState> {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return fail('invalid_document', 'the body is {"present": true|false, "reachableWithinS"?: seconds}');
  const o = json as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'present' && k !== 'reachableWithinS' && !k.startsWith('x-')) return fail('unknown_field', `$.${k}`);
  if (typeof o.present !== 'boolean') return fail('invalid_document', '$.present is true or false');
  const s: AttendanceState = { present: o.present };
  if (o.reachableWithinS !== undefined) {
    const r = o.reachableWithinS;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r > 86_400)
      return fail('invalid_document', '$.reachableWithinS is an integer number of seconds, 0-86400');
    s.reachableWithinS = r;
  }
  return ok(s);
}

/** `present`, `absent`, or `reachable:<seconds>` (the CLI flag). */
export function parseAttendanceFlag(v: string): Result<AttendanceState> {
  if (v === 'present') return ok({ present: true });
  if (v === 'absent') return ok({ present: false });
  const m = /^reachable:([0-9]{1,5})$/.exec(v);
  if (m) return ok({ present: false, reachableWithinS: Number(m[1]) });
  return fail('bad_request', '--attendance is present, absent or reachable:<seconds>');
}

export function createAttendance(initial: AttendanceState = NOBODY, now: () => number = Date.now): Attendance {
  let state: AttendanceState = { ...initial };
  let since = now();
  const listeners = new Set<AttendanceListener>();
  return {
    get: () => ({ ...state, available: isAvailable(state), since }),
    available: () => isAvailable(state),
    set(s) {
      const before = isAvailable(state);
      state = s.reachableWithinS === undefined ? { present: s.present } : { present: s.present, reachableWithinS: s.reachableWithinS };
      const after = isAvailable(state);
      if (after !== before) since = now();
      for (const l of [...listeners]) {
        try {
          l(after, state);
        } catch {
          // a listener's fault never undoes the change
        }
      }
    },
    onChange(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
  };
}
