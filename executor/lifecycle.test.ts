// Table-driven: every (from, to) pair of states is tried; exactly the pairs of the spec's transition table are
// legal, every other pair is `illegal_transition`, and the seq moves by one only on a legal change.
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_STATES,
  INITIAL,
  SAFETY_STATES,
  STATES,
  TRANSITIONS,
  canTransition,
  isFinal,
  transition,
  type ExecutionState,
} from './lifecycle.ts';

// Written out independently of TRANSITIONS, from the spec's table, so a typo in the table fails here.
const LEGAL: Array<[ExecutionState, ExecutionState]> = [
  ['accepted', 'preparing'],
  ['preparing', 'running'],
  ['running', 'completed'],
  ['running', 'paused'],
  ['paused', 'running'],
  ['running', 'needs_human'],
  ['needs_human', 'running'],
  ['accepted', 'stopping'],
  ['preparing', 'stopping'],
  ['running', 'stopping'],
  ['paused', 'stopping'],
  ['needs_human', 'stopping'],
  ['stopping', 'stopped'],
  ['accepted', 'refused'],
  ['preparing', 'failed'],
  ['running', 'failed'],
  ['paused', 'failed'],
  ['needs_human', 'failed'],
  ['stopping', 'failed'],
];
const legal = new Set(LEGAL.map(([a, b]) => `${a}>${b}`));

describe('transition table', () => {
  const pairs = STATES.flatMap((from) => STATES.map((to) => [from, to] as const));
  it.each(pairs)('%s -> %s', (from, to) => {
    const r = transition({ status: from, seq: 7 }, to);
    if (legal.has(`${from}>${to}`)) {
      expect(r).toEqual({ ok: true, value: { from, to, seq: 8 } });
      expect(canTransition(from, to)).toBe(true);
    } else {
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe('illegal_transition');
        expect(r.detail).toContain(from);
      }
      expect(canTransition(from, to)).toBe(false);
    }
  });

  it('lists exactly the legal pairs', () => {
    const table = Object.entries(TRANSITIONS).flatMap(([a, bs]) => bs.map((b) => `${a}>${b}`));
    expect(new Set(table)).toEqual(legal);
    expect(table.length).toBe(LEGAL.length);
  });

  it('final states are exactly completed, stopped, refused, failed', () => {
    expect(STATES.filter(isFinal).sort()).toEqual(['completed', 'failed', 'refused', 'stopped']);
  });

  it('a final state names itself as final', () => {
    const r = transition({ status: 'completed', seq: 4 }, 'running');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toBe('completed is final');
  });

  it('an unknown target state is illegal, not a crash', () => {
    const r = transition({ status: 'running', seq: 3 }, 'exploded' as ExecutionState);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('illegal_transition');
  });

  it('starts at accepted, seq 1; a bad seq is a programmer error', () => {
    expect(INITIAL).toEqual({ status: 'accepted', seq: 1 });
    expect(() => transition({ status: 'accepted', seq: 0 }, 'preparing')).toThrow(TypeError);
  });

  it('a whole mission moves the seq one by one', () => {
    const path: ExecutionState[] = ['preparing', 'running', 'paused', 'running', 'needs_human', 'running', 'stopping', 'stopped'];
    let cur = { ...INITIAL };
    for (const to of path) {
      const r = transition(cur, to);
      if (!r.ok) throw new Error(r.detail);
      cur = { status: to, seq: r.value.seq };
    }
    expect(cur).toEqual({ status: 'stopped', seq: 9 });
  });

  it('safety reports and active states', () => {
    expect([...SAFETY_STATES].sort()).toEqual(['failed', 'stopped', 'stopping']);
    for (const s of ACTIVE_STATES) expect(isFinal(s)).toBe(false);
  });
});
