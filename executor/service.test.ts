// The execution service on a real LevelDB: every (state, target) pair driven through service.change
// (legal: seq+1 and exactly one new signed event, in the log and the outbox; illegal:
// illegal_transition and nothing written), create/refuse/idempotency, If-Match, stop, and restart
// recovery (interrupted executions fail, a stop in progress completes, nothing resumes heating).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEventSignature } from '../verifier/cloudevent/read.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { STATES, TRANSITIONS, type ExecutionState } from './lifecycle.ts';
import { FRIES_BODY, SIMPLE_BODY, testExecutor } from '../testkit/executor.ts';
import type { Executor } from './executor.ts';

const dirs = tempDirs('cookwala-exec-svc-');
afterAll(() => dirs.cleanup());

// The shortest legal path from accepted to each state.
const PATH: Record<ExecutionState, ExecutionState[]> = {
  accepted: [],
  preparing: ['preparing'],
  running: ['preparing', 'running'],
  paused: ['preparing', 'running', 'paused'],
  needs_human: ['preparing', 'running', 'needs_human'],
  stopping: ['stopping'],
  completed: ['preparing', 'running', 'completed'],
  stopped: ['stopping', 'stopped'],
  refused: ['refused'],
  failed: ['preparing', 'failed'],
};

describe('service transitions (table-driven, real store)', () => {
  let ex: Executor;
  let keyRecord: KeyRecord;
  let n = 0;
  beforeAll(async () => {
    const t = await testExecutor(await dirs.make(), { consent: 'research_only' });
    ex = t.ex;
    keyRecord = t.device.keyRecord;
    await ex.start();
  });
  afterAll(() => ex.close());

  async function reach(state: ExecutionState) {
    const c = await ex.service.create(SIMPLE_BODY, `k-${++n}`);
    if (!c.ok) throw new Error(c.detail);
    let x = c.value.execution;
    for (const to of PATH[state]) {
      const r = await ex.service.change(x.id, to);
      if (!r.ok) throw new Error(`${x.status} -> ${to}: ${r.detail}`);
      x = r.value;
    }
    expect(x.status).toBe(state);
    expect(x.seq).toBe(PATH[state].length + 1);
    return x;
  }

  const pairs = STATES.flatMap((from) => STATES.map((to) => [from, to] as const));
  it.each(pairs)('%s -> %s', async (from, to) => {
    const x = await reach(from);
    const before = await ex.store.events(x.id);
    const pendingBefore = await ex.store.pendingCount();
    const r = await ex.service.change(x.id, to);
    const after = await ex.store.events(x.id);
    const now = await ex.service.get(x.id);
    if (TRANSITIONS[from].includes(to)) {
      expect(r.ok).toBe(true);
      expect(now).toMatchObject({ status: to, seq: x.seq + 1 });
      expect(after.length).toBe(before.length + 1);
      const ev = after[after.length - 1];
      expect(ev).toMatchObject({ type: `cookwala.execution.${to}`, subject: x.id, cookwalaseq: x.seq + 1 });
      expect(verifyEventSignature(ev, (k) => (k === keyRecord.kid ? keyRecord : undefined)).ok).toBe(true);
      expect(await ex.store.pendingCount()).toBe(pendingBefore + 1);
    } else {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('illegal_transition');
      expect(now).toEqual(x);
      expect(after).toEqual(before);
      expect(await ex.store.pendingCount()).toBe(pendingBefore);
    }
    // The device log is always seq 1..n in order.
    expect(after.map((e) => e.cookwalaseq)).toEqual(after.map((_, i) => i + 1));
  });

  it('If-Match: a stale seq is precondition_failed and changes nothing', async () => {
    const x = await reach('paused');
    const r = await ex.service.change(x.id, 'running', { ifMatch: x.seq - 1 });
    expect(!r.ok && [r.code, r.seq]).toEqual(['precondition_failed', x.seq]);
    expect((await ex.service.get(x.id))?.status).toBe('paused');
    expect((await ex.service.resume(x.id, x.seq)).ok).toBe(true);
  });

  it('concurrent changes of one execution are serialized: seq never repeats', async () => {
    const x = await reach('running');
    const rs = await Promise.all([
      ex.service.change(x.id, 'paused'),
      ex.service.change(x.id, 'running'),
      ex.service.change(x.id, 'paused'),
      ex.service.change(x.id, 'running'),
    ]);
    expect(rs.every((r) => r.ok)).toBe(true);
    const evs = await ex.store.events(x.id);
    expect(evs.map((e) => e.cookwalaseq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('unknown execution: not_found', async () => {
    const r = await ex.service.change('nope', 'running');
    expect(!r.ok && r.code).toBe('not_found');
    expect((await ex.service.stop('nope')).ok).toBe(false);
  });
});

describe('create', () => {
  it('refuses what it cannot run: accepted then refused, both signed, in one batch', async () => {
    const { ex } = await testExecutor(await dirs.make());
    const r = await ex.service.create(FRIES_BODY, 'fries-1');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const x = r.value.execution;
    expect(x).toMatchObject({ status: 'refused', seq: 2, step: 0, reason: { code: 'missing_sensor_no_fallback' } });
    const evs = await ex.store.events(x.id);
    expect(evs.map((e) => [e.type, e.cookwalaseq])).toEqual([
      ['cookwala.execution.accepted', 1],
      ['cookwala.execution.refused', 2],
    ]);
    expect(evs[1].data).toMatchObject({ reason: { code: 'missing_sensor_no_fallback' } });
    await ex.close();
  });
  it('is idempotent per key, across a restart; another body under the key is a conflict', async () => {
    const dir = await dirs.make();
    let { ex } = await testExecutor(dir);
    const a = await ex.service.create(SIMPLE_BODY, 'same');
    const b = await ex.service.create(JSON.parse(JSON.stringify(SIMPLE_BODY)), 'same');
    expect(a.ok && b.ok && [b.value.replayed, b.value.execution.id]).toEqual([true, a.ok && a.value.execution.id]);
    // Concurrent first requests with one key make one execution.
    const [c1, c2] = await Promise.all([ex.service.create(SIMPLE_BODY, 'race'), ex.service.create(SIMPLE_BODY, 'race')]);
    expect(c1.ok && c2.ok && c1.value.execution.id === c2.value.execution.id).toBe(true);
    expect(await ex.store.countExecutions()).toBe(2);
    await ex.close();
    ({ ex } = await testExecutor(dir));
    const again = await ex.service.create(SIMPLE_BODY, 'same');
    expect(again.ok && again.value.execution.id).toBe(a.ok && a.value.execution.id);
    const other = await ex.service.create(FRIES_BODY, 'same');
    expect(!other.ok && other.code).toBe('idempotency_conflict');
    const bad = await ex.service.create({ recipe: { id: 'x', steps: [] } }, 'bad');
    expect(!bad.ok && bad.code).toBe('invalid_document');
    expect(await ex.store.lookupIdempotency('bad')).toBeUndefined();
    await ex.close();
  });
});

describe('stop and recovery', () => {
  it('stop without hardware: stopping and stopped at once, local_safety; a stop of a final execution answers its state', async () => {
    const { ex } = await testExecutor(await dirs.make());
    const c = await ex.service.create(SIMPLE_BODY, 'k');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    const s = await ex.service.stop(id);
    expect(s.ok && [s.value.changed, s.value.execution.status, s.value.execution.seq]).toEqual([true, 'stopped', 3]);
    const evs = await ex.store.events(id);
    expect(evs.slice(1).map((e) => [e.type, e.cookwalalatency])).toEqual([
      ['cookwala.execution.stopping', 'local_safety'],
      ['cookwala.execution.stopped', 'local_safety'],
    ]);
    expect(evs[2].data).toMatchObject({ reason: { code: 'stop_requested' } });
    const again = await ex.service.stop(id);
    expect(again.ok && again.value.changed).toBe(false);
    const done = await ex.service.create(FRIES_BODY, 'k2');
    if (!done.ok) throw new Error(done.detail);
    // Stopping what has ended is not an error: the answer is the state it ended in (§6.2).
    const r = await ex.service.stop(done.value.execution.id);
    expect(r.ok && [r.value.changed, r.value.execution.status, r.value.execution.seq]).toEqual([false, 'refused', 2]);
    await ex.close();
  });

  it('after a restart: running/paused/needs_human/preparing fail as interrupted, stopping completes, accepted waits', async () => {
    const dir = await dirs.make();
    let { ex } = await testExecutor(dir);
    const mk = async (path: ExecutionState[]) => {
      const c = await ex.service.create(SIMPLE_BODY, `k-${path.join('-')}`);
      if (!c.ok) throw new Error(c.detail);
      for (const to of path) await ex.service.change(c.value.execution.id, to);
      return c.value.execution.id;
    };
    const ids = {
      running: await mk(['preparing', 'running']),
      paused: await mk(['preparing', 'running', 'paused']),
      needs_human: await mk(['preparing', 'running', 'needs_human']),
      preparing: await mk(['preparing']),
      stopping: await mk(['stopping']),
      accepted: await mk([]),
      completed: await mk(['preparing', 'running', 'completed']),
    };
    await ex.close(); // the "crash": nothing more is written
    ({ ex } = await testExecutor(dir));
    const n = await ex.start();
    expect(n).toEqual({ failed: 4, stopped: 1, restarted: 1 });
    for (const k of ['running', 'paused', 'needs_human', 'preparing'] as const) {
      expect(await ex.service.get(ids[k])).toMatchObject({ status: 'failed', reason: { code: 'interrupted' } });
      const evs = await ex.store.events(ids[k]);
      expect(evs[evs.length - 1]).toMatchObject({
        type: 'cookwala.execution.failed',
        cookwalalatency: 'local_safety',
        cookwalaseq: evs.length,
      });
    }
    expect((await ex.service.get(ids.stopping))?.status).toBe('stopped');
    expect((await ex.service.get(ids.accepted))?.status).toBe('accepted');
    expect((await ex.service.get(ids.completed))?.seq).toBe(4);
    // A second restart changes nothing more.
    await ex.close();
    ({ ex } = await testExecutor(dir));
    expect(await ex.start()).toEqual({ failed: 0, stopped: 0, restarted: 1 });
    await ex.close();
  });
});
