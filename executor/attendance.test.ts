// Attendance (§6.6): available exactly when present or reachable within 60 s (the 60/61 edge);
// strict reading of the PUT body and of the --attendance flag; listeners hear each change and
// `since` moves only when availability flips.
import { describe, expect, it } from 'vitest';
import { createAttendance, isAvailable, parseAttendanceFlag, readAttendance } from './attendance.ts';

describe('attendance', () => {
  it('available = present, or reachable within one minute', () => {
    expect(isAvailable({ present: true })).toBe(true);
    expect(isAvailable({ present: false })).toBe(false);
    expect(isAvailable({ present: false, reachableWithinS: 60 })).toBe(true);
    expect(isAvailable({ present: false, reachableWithinS: 61 })).toBe(false);
  });
  it('reads the body strictly: unknown members (names!) refused, x- ignored, bad values refused', () => {
    expect(readAttendance({ present: true, 'x-vendor': 1 })).toEqual({ ok: true, value: { present: true } });
    expect(readAttendance({ present: false, reachableWithinS: 30 })).toEqual({ ok: true, value: { present: false, reachableWithinS: 30 } });
    const bad: Array<[unknown, string]> = [
      [{ present: true, name: 'Ana' }, 'unknown_field'],
      [{}, 'invalid_document'],
      [{ present: 1 }, 'invalid_document'],
      [{ present: false, reachableWithinS: 1.5 }, 'invalid_document'],
      [{ present: false, reachableWithinS: -1 }, 'invalid_document'],
      [[], 'invalid_document'],
      [null, 'invalid_document'],
    ];
    for (const [b, code] of bad) {
      const r = readAttendance(b);
      expect(!r.ok && r.code).toBe(code);
    }
  });
  it('parses the flag', () => {
    expect(parseAttendanceFlag('present')).toEqual({ ok: true, value: { present: true } });
    expect(parseAttendanceFlag('absent')).toEqual({ ok: true, value: { present: false } });
    expect(parseAttendanceFlag('reachable:45')).toEqual({ ok: true, value: { present: false, reachableWithinS: 45 } });
    for (const v of ['here', 'reachable:', 'reachable:-1', 'reachable:1e3']) expect(parseAttendanceFlag(v).ok).toBe(false);
  });
  it('tells listeners; since moves only when availability flips', () => {
    let now = 1000;
    const a = createAttendance(undefined, () => now);
    const heard: boolean[] = [];
    const off = a.onChange((avail) => heard.push(avail));
    expect(a.get()).toEqual({ present: false, available: false, since: 1000 });
    now = 2000;
    a.set({ present: true });
    now = 3000;
    a.set({ present: false, reachableWithinS: 10 }); // still available
    expect(a.get().since).toBe(2000);
    now = 4000;
    a.set({ present: false });
    expect([heard, a.get().since]).toEqual([[true, true, false], 4000]);
    off();
    a.set({ present: true });
    expect(heard).toHaveLength(3);
  });
});
