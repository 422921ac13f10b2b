// The simulated hardware on a manual clock: a mission runs through every planned step for its
// duration; a person-verified step waits in needs_human; a local pause keeps the remaining time;
// a stop halts at once and confirms `stopped` only after cutHeatMs; late timers of a halted run
// do nothing; a fault fails the execution as a local safety report. Attendance (§6.6): the person
// leaving mid-saute holds the step in needs_human (person_required, local_safety) with its time
// left kept; a resume is refused while nobody is there; a step needing a person that comes up
// while nobody is there is held before it starts.
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testkit/tmp.ts';
import { createSimulatedHardware, type SimulatedHardware } from './runner.ts';
import { testExecutor } from '../testkit/executor.ts';
import type { Executor, ExecutorDeps } from './executor.ts';
import type { ManualClock } from '../testkit/clock.ts';

const dirs = tempDirs('cookwala-exec-runner-');
afterAll(() => dirs.cleanup());

const BODY = {
  recipe: {
    id: 'pasta',
    steps: [
      { op: 'cw.op.boil', params: { tempC: 98, durationS: 100 } },
      { op: 'cw.op.check', params: { durationS: 10 } },
      { op: 'cw.op.rest', params: { durationS: 50 } },
    ],
  },
};

async function setup() {
  let hw: SimulatedHardware | undefined;
  const t = await testExecutor(await dirs.make(), {
    attendance: { present: true },
    deps: {
      hardware: (svc, clock, limits, attendance) =>
        (hw = createSimulatedHardware(svc, clock, { prepareMs: 1000, preheatMs: 5000, spinDownMs: limits.limits.cutHeatMs, attendance })),
    },
  });
  await t.ex.start();
  return { ...t, hw: hw as SimulatedHardware };
}

async function flush(ex: Executor): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await ex.service.settle();
    await new Promise((r) => setImmediate(r));
  }
}
async function advance(ex: Executor, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await flush(ex);
}
/** Timers are armed when the previous change is written, so the start is advanced in its steps. */
async function toRunning(ex: Executor, clock: ManualClock): Promise<void> {
  await advance(ex, clock, 1000);
  await advance(ex, clock, 5000);
}
async function status(ex: Executor, id: string) {
  const x = await ex.service.get(id);
  return [x?.status, x?.seq, x?.step];
}

describe('simulated hardware', () => {
  it('runs a mission: steps take their time; a person confirms the check step', async () => {
    const { ex, clock } = await setup();
    const c = await ex.service.create(BODY, 'm');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await advance(ex, clock, 999);
    expect(await status(ex, id)).toEqual(['accepted', 1, undefined]);
    await advance(ex, clock, 1);
    expect(await status(ex, id)).toEqual(['preparing', 2, undefined]);
    await advance(ex, clock, 5000);
    expect(await status(ex, id)).toEqual(['running', 3, 0]);
    await advance(ex, clock, 100_000 + 9_999); // boil done, check step not yet
    expect(await status(ex, id)).toEqual(['running', 3, 0]);
    await advance(ex, clock, 1);
    expect(await status(ex, id)).toEqual(['needs_human', 4, 1]);
    await advance(ex, clock, 3_600_000); // nobody came: it waits, it does not guess
    expect(await status(ex, id)).toEqual(['needs_human', 4, 1]);
    expect((await ex.service.resume(id, 4)).ok).toBe(true);
    await flush(ex);
    await advance(ex, clock, 49_999);
    expect((await status(ex, id))[0]).toBe('running');
    await advance(ex, clock, 1);
    expect(await status(ex, id)).toEqual(['completed', 6, 2]);
    expect(clock.pending()).toBe(0);
    await ex.close();
  });

  it('a local pause keeps the remaining time of the step', async () => {
    const { ex, clock, hw } = await setup();
    const c = await ex.service.create(BODY, 'm');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await toRunning(ex, clock);
    await advance(ex, clock, 40_000); // 40 s into the 100 s boil
    const p = await hw.pauseLocally(id);
    expect(p.ok && [p.value.status, p.value.reason]).toEqual(['paused', { code: 'paused_locally' }]);
    await advance(ex, clock, 600_000);
    expect((await status(ex, id))[0]).toBe('paused');
    expect((await hw.pauseLocally(id)).ok).toBe(false);
    expect((await ex.service.resume(id, 4)).ok).toBe(true);
    await flush(ex);
    await advance(ex, clock, 59_999 + 10_000);
    expect((await status(ex, id))[0]).toBe('running');
    await advance(ex, clock, 1);
    expect(await status(ex, id)).toEqual(['needs_human', 6, 1]);
    await ex.close();
  });

  it('stop: halted at once, stopping written, stopped only after the heat is off; late timers are dead', async () => {
    const { ex, clock, hw } = await setup();
    const c = await ex.service.create(BODY, 'm');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await toRunning(ex, clock);
    await advance(ex, clock, 99_000);
    const s = await ex.service.stop(id);
    expect(s.ok && [s.value.execution.status, s.value.execution.seq]).toEqual(['stopping', 4]);
    await advance(ex, clock, 999);
    expect((await status(ex, id))[0]).toBe('stopping');
    await advance(ex, clock, 1);
    expect(await status(ex, id)).toEqual(['stopped', 5, 0]);
    await advance(ex, clock, 1_000_000); // the boil's end and everything after never fire
    expect((await ex.store.events(id)).map((e) => e.type.slice(19))).toEqual(['accepted', 'preparing', 'running', 'stopping', 'stopped']);
    expect(hw.runs()).toBe(0);
    await ex.close();
  });

  it('a stop before anything started completes at once; a fault fails as a safety report', async () => {
    const { ex, clock, hw } = await setup();
    const a = await ex.service.create(BODY, 'a');
    if (!a.ok) throw new Error(a.detail);
    const s = await hw.stopLocally(a.value.execution.id);
    expect(s.ok).toBe(true);
    expect(await status(ex, a.value.execution.id)).toEqual(['stopped', 3, undefined]);
    expect((await ex.service.get(a.value.execution.id))?.reason).toEqual({ code: 'local_stop' });
    const b = await ex.service.create(BODY, 'b');
    if (!b.ok) throw new Error(b.detail);
    await toRunning(ex, clock);
    const f = await hw.fault(b.value.execution.id, 'water sensor dropped out');
    expect(f.ok && f.value.reason).toEqual({ code: 'interrupted', detail: 'water sensor dropped out' });
    const evs = await ex.store.events(b.value.execution.id);
    expect(evs[evs.length - 1]).toMatchObject({ type: 'cookwala.execution.failed', cookwalalatency: 'local_safety' });
    await advance(ex, clock, 1_000_000);
    expect((await ex.service.get(b.value.execution.id))?.status).toBe('failed');
    await ex.close();
  });

  it('a shutdown is a local stop: stopping is written at close, stopped at the next start', async () => {
    const dir = await dirs.make();
    let hw: SimulatedHardware | undefined;
    const deps: Partial<ExecutorDeps> = {
      hardware: (svc, clock, limits) =>
        (hw = createSimulatedHardware(svc, clock, { prepareMs: 1000, preheatMs: 5000, spinDownMs: limits.limits.cutHeatMs })),
    };
    const t = await testExecutor(dir, { deps, attendance: { present: true } });
    await t.ex.start();
    const c = await t.ex.service.create(BODY, 'm');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await toRunning(t.ex, t.clock);
    expect(hw?.runs()).toBe(1);
    await t.ex.close();
    const again = await testExecutor(dir, { deps });
    expect((await again.ex.service.get(id))?.status).toBe('stopping');
    expect(await again.ex.start()).toEqual({ failed: 0, stopped: 1, restarted: 0 });
    expect((await again.ex.store.events(id)).map((e) => [e.type.slice(19), e.data])).toEqual([
      ['accepted', { recipe: 'pasta', verifiedBy: ['sensor:water_temp', 'human', 'time'] }],
      ['preparing', { recipe: 'pasta' }],
      ['running', { recipe: 'pasta', step: 0 }],
      ['stopping', { recipe: 'pasta', step: 0, reason: { code: 'local_stop' } }],
      ['stopped', { recipe: 'pasta', step: 0, reason: { code: 'local_stop', detail: 'completed after a device restart' } }],
    ]);
    await again.ex.close();
  });

  it('the person leaving mid-saute holds the step (needs_human, person_required); resume waits for them; the time left is kept', async () => {
    const { ex, clock } = await setup();
    const c = await ex.service.create(
      {
        recipe: {
          id: 'onions',
          steps: [
            { op: 'cw.op.saute', params: { tempC: 170, durationS: 100 } },
            { op: 'cw.op.rest', params: { durationS: 10 } },
          ],
        },
      },
      's',
    );
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await toRunning(ex, clock);
    await advance(ex, clock, 30_000);
    ex.attendance.set({ present: false });
    await flush(ex);
    const held = await ex.service.get(id);
    expect([held?.status, held?.seq, held?.step, held?.reason?.code]).toEqual(['needs_human', 4, 0, 'person_required']);
    const evs = await ex.store.events(id);
    expect(evs[evs.length - 1]).toMatchObject({ type: 'cookwala.execution.needs_human', cookwalalatency: 'local_safety' });
    await advance(ex, clock, 3_600_000); // nobody back: the step does not go on by itself
    expect((await status(ex, id))[0]).toBe('needs_human');
    const r = await ex.service.resume(id, 4);
    expect(!r.ok && r.code).toBe('person_required');
    expect((await status(ex, id))[1]).toBe(4);
    ex.attendance.set({ present: false, reachableWithinS: 45 }); // reachable within a minute counts
    expect((await ex.service.resume(id, 4)).ok).toBe(true);
    await flush(ex);
    await advance(ex, clock, 69_999); // 70 s of the saute were left
    expect(await status(ex, id)).toEqual(['running', 5, 0]);
    await advance(ex, clock, 1);
    await advance(ex, clock, 10_000);
    expect((await status(ex, id))[0]).toBe('completed');
    await ex.close();
  });

  it('a step that needs a person, reached while nobody is there, is held before it starts', async () => {
    const { ex, clock } = await setup();
    const c = await ex.service.create(
      {
        recipe: {
          id: 'sear-after-rest',
          steps: [
            { op: 'cw.op.rest', params: { durationS: 10 } },
            { op: 'cw.op.sear', params: { tempC: 220, durationS: 60 } },
          ],
        },
      },
      't',
    );
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    await toRunning(ex, clock);
    ex.attendance.set({ present: false, reachableWithinS: 300 }); // five minutes away is not reachable
    await flush(ex);
    expect((await status(ex, id))[0]).toBe('running'); // resting needs nobody
    await advance(ex, clock, 10_000);
    const x = await ex.service.get(id);
    expect([x?.status, x?.step, x?.reason?.code]).toEqual(['needs_human', 1, 'person_required']);
    await ex.close();
  });
});
