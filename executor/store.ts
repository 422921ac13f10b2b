// executor/store.ts: the device's durable state in one LevelDB under its data dir (docs/design.md §9):
// executions, the idempotency index of POST /v1/executions, every signed event (the device's own
// log, served by GET …/log), the outbox of events still to deliver, dead letters, and meta (consent,
// outbox counter). Invariant: a status change, its event and its outbox record are written in ONE
// batch with sync:true before anyone is told (commit()), so after a crash either the change and its
// event both exist or neither does; the outbox never holds an event the device does not.
// Deliveries are recorded without sync: losing one only causes a resend, which the sequencer
// answers as a duplicate. Key layout (strings, ordered):
//   x!<id>                execution record            a!<id>        index of non-final executions
//   i!<idempotency key>   {id, bodyHash}               m!consent     {dataset, epoch}
//   e!<subject>!<seq:10>  {counter, event, queued}     m!counter     last outbox counter
//   m!purged              counter at the last consent withdrawal (older records never re-enter)
//   v!<counter:16>        device-level event (no subject, e.g. cookwala.consent.withdrawn)
//   o!<counter:16>        outbox record {event, always?}  (counter order = creation order)
//   d!<counter:16>        dead letter {event, code, detail, at}
// An event's outbox key is fixed at creation and kept in its e! record, so a resend after an
// `out_of_order` answer puts it back at its original place in the queue (before its successors).

import { Level } from 'level';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { ExecutionState, Reason } from './lifecycle.ts';
import type { Plan } from './plan.ts';
import type { Dataset, ExecutionRequest } from './request.ts';
import { openLevel } from '../platform/index.ts';

export interface ExecutionRecord {
  id: string;
  recipe: ExecutionRequest['recipe'];
  /** The execution's own consent (narrows the device's; absent = follow the device). */
  consent?: { dataset: Dataset };
  /** The consent epoch at creation: its events leave the device only within that epoch. */
  epoch: number;
  plan?: Plan;
  status: ExecutionState;
  seq: number;
  reason?: Reason;
  step?: number;
  createdAt: string;
  updatedAt: string;
}

export interface ConsentState {
  dataset: Dataset;
  /** Bumped by every withdrawal; older executions never leave the device again. */
  epoch: number;
}

export interface NewEvent {
  event: CloudEvent;
  /** Put it in the outbox (false: kept only in the device's own log). */
  enqueue: boolean;
  /** The consent epoch of its execution: enqueued only if that is still the current epoch
   *  (judged inside the serialized commit, so a concurrent withdrawal cannot be slipped past). */
  epoch?: number;
  /** Deliver even while consent is none (only the withdrawal notice). */
  always?: boolean;
}

export interface Commit {
  execution?: ExecutionRecord;
  idempotency?: { key: string; bodyHash: string };
  events?: NewEvent[];
  consent?: ConsentState;
  /** Drop every pending outbox record (consent withdrawn); they stay in the device's own log. */
  purgeOutbox?: boolean;
}

export interface OutboxRecord {
  key: string;
  counter: number;
  event: CloudEvent;
  always: boolean;
}

export interface DeadLetter {
  key: string;
  event: CloudEvent;
  code: string;
  detail: string;
  at: string;
}

export interface ExecutorStore {
  readonly dir: string;
  consent(): ConsentState;
  getExecution(id: string): Promise<ExecutionRecord | undefined>;
  activeExecutions(): Promise<ExecutionRecord[]>;
  countExecutions(): Promise<number>;
  /** Every execution id, in key order (for audits and tests; a device holds few). */
  executionIds(): Promise<string[]>;
  lookupIdempotency(key: string): Promise<{ id: string; bodyHash: string } | undefined>;
  commit(c: Commit): Promise<void>;
  events(subject: string): Promise<CloudEvent[]>;
  deviceEvents(): Promise<CloudEvent[]>;
  /** Pending outbox records in queue order; `alwaysOnly` while consent is none. */
  pending(limit: number, alwaysOnly: boolean): Promise<OutboxRecord[]>;
  pendingCount(): Promise<number>;
  /** Where an event of the device's log stands: `local` = it may never leave (opted out or withdrawn). */
  isPending(subject: string, cookwalaseq: number): Promise<'pending' | 'dead' | 'delivered' | 'local' | 'unknown'>;
  delivered(keys: string[]): Promise<void>;
  /** Put events of `subject` with seq in [from, to) back into the outbox at their original places. */
  requeue(subject: string, from: number, to: number): Promise<number>;
  deadLetter(rec: OutboxRecord, code: string, detail: string, at: string): Promise<void>;
  deadLetters(): Promise<DeadLetter[]>;
  close(): Promise<void>;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const eKey = (subject: string, seq: number) => `e!${subject}!${pad(seq, 10)}`;
const oKey = (counter: number) => `o!${pad(counter, 16)}`;

type Val = Record<string, unknown>;
type Op = { type: 'put'; key: string; value: Val } | { type: 'del'; key: string };

export async function openExecutorStore(dir: string): Promise<ExecutorStore> {
  const db = new Level<string, Val>(dir, { valueEncoding: 'json' });
  await openLevel(db, dir, 'executor store');
  let consent = ((await db.get('m!consent')) as unknown as ConsentState | undefined) ?? { dataset: 'none', epoch: 0 };
  let counter = ((await db.get('m!counter')) as { n: number } | undefined)?.n ?? 0;
  // Records created up to this counter were withdrawn from the outbox; they never go back in.
  let purgedUpTo = ((await db.get('m!purged')) as { n: number } | undefined)?.n ?? 0;

  async function range(prefix: string, limit = -1): Promise<Array<[string, Val]>> {
    const out: Array<[string, Val]> = [];
    for await (const kv of db.iterator({ gt: prefix, lt: prefix + '\xff', limit })) out.push(kv);
    return out;
  }

  let commitChain: Promise<unknown> = Promise.resolve();
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = commitChain.then(fn);
    commitChain = run.catch(() => undefined);
    return run;
  }
  async function commitNow(c: Commit): Promise<void> {
    const ops: Op[] = [];
    let next = counter;
    if (c.purgeOutbox) {
      for (const [k] of await range('o!')) ops.push({ type: 'del', key: k });
      ops.push({ type: 'put', key: 'm!purged', value: { n: counter } });
    }
    if (c.execution) {
      const x = c.execution;
      ops.push({ type: 'put', key: `x!${x.id}`, value: x as unknown as Val });
      const final = ['completed', 'stopped', 'refused', 'failed'].includes(x.status);
      ops.push(final ? { type: 'del', key: `a!${x.id}` } : { type: 'put', key: `a!${x.id}`, value: {} });
    }
    if (c.idempotency)
      ops.push({ type: 'put', key: `i!${c.idempotency.key}`, value: { id: c.execution?.id, bodyHash: c.idempotency.bodyHash } });
    for (const ne of c.events ?? []) {
      const n = ++next;
      const ev = ne.event;
      const queued = ne.enqueue && (ne.epoch === undefined || ne.epoch === (c.consent ?? consent).epoch);
      const value = { counter: n, event: ev, queued };
      if (typeof ev.subject === 'string' && typeof ev.cookwalaseq === 'number')
        ops.push({ type: 'put', key: eKey(ev.subject, ev.cookwalaseq), value });
      else ops.push({ type: 'put', key: `v!${pad(n, 16)}`, value });
      if (queued) ops.push({ type: 'put', key: oKey(n), value: ne.always ? { event: ev, always: true } : { event: ev } });
    }
    if (next !== counter) ops.push({ type: 'put', key: 'm!counter', value: { n: next } });
    if (c.consent) ops.push({ type: 'put', key: 'm!consent', value: c.consent as unknown as Val });
    if (ops.length === 0) return;
    await db.batch(ops, { sync: true });
    if (c.purgeOutbox) purgedUpTo = counter;
    counter = next;
    if (c.consent) consent = c.consent;
  }

  const store: ExecutorStore = {
    dir,
    consent: () => consent,
    getExecution: async (id) => (await db.get(`x!${id}`)) as unknown as ExecutionRecord | undefined,
    async activeExecutions() {
      const ids = (await range('a!')).map(([k]) => k.slice(2));
      const recs = await db.getMany(ids.map((id) => `x!${id}`));
      return recs.filter((r): r is Val => r !== undefined) as unknown as ExecutionRecord[];
    },
    async countExecutions() {
      let n = 0;
      for await (const _k of db.keys({ gt: 'x!', lt: 'x!\xff' })) n++;
      return n;
    },
    async executionIds() {
      const out: string[] = [];
      for await (const k of db.keys({ gt: 'x!', lt: 'x!\xff' })) out.push(k.slice(2));
      return out;
    },
    lookupIdempotency: async (key) => (await db.get(`i!${key}`)) as { id: string; bodyHash: string } | undefined,
    // Commits are serialized device-wide: the consent epoch they judge is the one they write under.
    commit: (c) => serial(() => commitNow(c)),
    async events(subject) {
      return (await range(`e!${subject}!`)).map(([, v]) => v.event as CloudEvent);
    },
    async deviceEvents() {
      return (await range('v!')).map(([, v]) => v.event as CloudEvent);
    },
    async pending(limit, alwaysOnly) {
      const out: OutboxRecord[] = [];
      // Bounded: at most `limit` records are returned; with alwaysOnly the scan stops at the first few
      // hundred keys, since the only always-record (the withdrawal) is written after a purge.
      for await (const [k, v] of db.iterator({ gt: 'o!', lt: 'o!\xff', limit: alwaysOnly ? 1000 : limit })) {
        if (alwaysOnly && v.always !== true) continue;
        out.push({ key: k, counter: Number(k.slice(2)), event: v.event as CloudEvent, always: v.always === true });
        if (out.length >= limit) break;
      }
      return out;
    },
    async pendingCount() {
      let n = 0;
      for await (const _k of db.keys({ gt: 'o!', lt: 'o!\xff' })) n++;
      return n;
    },
    async isPending(subject, seq) {
      const e = (await db.get(eKey(subject, seq))) as { counter: number; queued?: boolean } | undefined;
      if (!e) return 'unknown';
      if (e.queued === false || e.counter <= purgedUpTo) return 'local';
      if ((await db.get(oKey(e.counter))) !== undefined) return 'pending';
      if ((await db.get(`d!${pad(e.counter, 16)}`)) !== undefined) return 'dead';
      return 'delivered';
    },
    async delivered(keys) {
      if (keys.length) await db.batch(keys.map((key) => ({ type: 'del' as const, key })));
    },
    requeue: (subject, from, to) =>
      serial(async () => {
        const ops: Op[] = [];
        for await (const [, v] of db.iterator({ gte: eKey(subject, from), lt: eKey(subject, to) })) {
          const n = v.counter as number;
          if (v.queued === false || n <= purgedUpTo) continue; // never meant to leave, or withdrawn
          if ((await db.get(`d!${pad(n, 16)}`)) !== undefined) continue;
          ops.push({ type: 'put', key: oKey(n), value: { event: v.event as Val } });
        }
        if (ops.length) await db.batch(ops, { sync: true });
        return ops.length;
      }),
    deadLetter: (rec, code, detail, at) =>
      serial(async () => {
        const n = pad(rec.counter, 16);
        await db.batch(
          [
            { type: 'del', key: rec.key },
            { type: 'put', key: `d!${n}`, value: { event: rec.event as unknown as Val, code, detail, at } },
          ],
          { sync: true },
        );
      }),
    async deadLetters() {
      return (await range('d!')).map(([k, v]) => ({
        key: k,
        event: v.event as CloudEvent,
        code: v.code as string,
        detail: v.detail as string,
        at: v.at as string,
      }));
    },
    close: () => serial(() => db.close()),
  };
  return store;
}
