// tools/soak-load.ts: the soak's load (docs/design.md §14, §5): four device clients in this process, each
// sending in turn a single structured event, a batch of two, a binary-mode event, and a retry of
// one of its acknowledged events under a new Idempotency-Key (which must be answered 200 with the
// seq first acknowledged). A request whose answer is lost (a kill) or answered 5xx is resent
// unchanged until answered, so every event the sequencer acknowledged is recorded here with its
// seq and hash for the audit. Left out: the processes and the kills (tools/soak-procs.ts,
// tools/soak.ts) and the checks (tools/soak-audit.ts). Invariant: an event is recorded as
// acknowledged only from a 200 or 201 answer that carries its seq. Never imported by production
// code.

import type { TestKey } from '../testkit/index.ts';
import { eventStream } from '../testkit/index.ts';
import type { AuditAck } from './soak-audit.ts';

export type LoadMode = 'single' | 'batch' | 'binary' | 'retry';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SoakLoad {
  /** Every acknowledged event, in the order the answers came. */
  readonly acks: AuditAck[];
  /** Resolves at the next acknowledgement (or once the load stops). */
  moreAcks(): Promise<void>;
  /** Stops the clients (each ends after its request in flight); `done` then settles. */
  halt(): void;
  readonly stopped: boolean;
  readonly done: Promise<void[]>;
}

export function startSoakLoad(o: {
  /** The events route of the log. */
  url: string;
  devices: readonly TestKey[];
  rnd: () => number;
  fail: (s: string) => void;
  /** Counted per mode as answers come (the soak's summary). */
  byMode: Record<LoadMode, number>;
}): SoakLoad {
  const { rnd, fail } = o;
  const acks: AuditAck[] = [];
  let stop = false;
  const progress = new Set<() => void>();
  const acksOf = new Map<string, AuditAck[]>();
  const acked = (a: AuditAck, mode: LoadMode) => {
    acks.push(a);
    const mine = acksOf.get(a.ce.source);
    if (mine) mine.push(a);
    else acksOf.set(a.ce.source, [a]);
    o.byMode[mode]++;
    for (const l of [...progress]) l();
  };
  const moreAcks = () =>
    new Promise<void>((r) => {
      const n = acks.length;
      const f = () => {
        if (acks.length > n || stop) {
          progress.delete(f);
          r();
        }
      };
      progress.add(f);
    });
  /** Send until answered (a lost answer is resent unchanged); the answer's status and JSON. */
  const send = async (headers: Record<string, string>, body: string): Promise<{ status: number; json: any }> => {
    for (let attempt = 0; ; attempt++) {
      if (stop) return { status: 0, json: {} };
      try {
        const res = await fetch(o.url, { method: 'POST', headers, body });
        const json = await res.json().catch(() => ({}));
        if (res.status === 503 || res.status >= 500) {
          await sleep(20);
          continue;
        }
        return { status: res.status, json };
      } catch {
        if (attempt > 5000) throw new Error('the sequencer never came back');
        await sleep(20);
      }
    }
  };
  const client = async (d: TestKey, idx: number) => {
    const s = eventStream(d);
    let n = 0;
    while (!stop) {
      const mode = (['single', 'batch', 'binary', 'retry'] as const)[n % 4];
      const key = `${d.record.kid}-${n++}`;
      if (mode === 'retry') {
        const mine = acksOf.get(d.owner) ?? [];
        if (mine.length === 0) continue;
        const a = mine[Math.floor(rnd() * mine.length)];
        const r = await send({ 'content-type': 'application/cloudevents+json', 'idempotency-key': `${key}-again` }, JSON.stringify(a.ce));
        if (r.status === 0) break;
        if (r.status !== 200 || r.json.seq !== a.seq)
          fail(`a retry of ${a.ce.id} (acknowledged at ${a.seq}) answered ${r.status} seq ${r.json.seq} ${r.json.code ?? ''}`);
        else o.byMode.retry++;
        continue;
      }
      if (mode === 'batch') {
        const evs = [s.next(`soak-${idx}`), s.next(`soak-${idx}`)];
        const r = await send({ 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': key }, JSON.stringify(evs));
        if (r.status === 0) break;
        const results = (r.json.results ?? []) as Array<{ status: number; seq: number; hash: string; code?: string }>;
        results.forEach((x, i) =>
          x.status === 201 || x.status === 200
            ? acked({ ce: evs[i], seq: x.seq, hash: x.hash }, 'batch')
            : fail(`batch item ${x.status} ${x.code}`),
        );
        continue;
      }
      const ce = s.next(`soak-${idx}`);
      let headers: Record<string, string> = { 'content-type': 'application/cloudevents+json', 'idempotency-key': key };
      let body = JSON.stringify(ce);
      if (mode === 'binary') {
        headers = { 'idempotency-key': key, 'content-type': ce.datacontenttype ?? 'application/json' };
        for (const [k, v] of Object.entries(ce))
          if (k !== 'data' && k !== 'data_base64' && k !== 'datacontenttype') headers[`ce-${k}`] = String(v);
        body = JSON.stringify(ce.data);
      }
      const r = await send(headers, body);
      if (r.status === 0) break;
      if (r.status === 201 || r.status === 200) acked({ ce, seq: r.json.seq, hash: r.json.hash }, mode);
      else fail(`${mode} event answered ${r.status} ${r.json.code}: ${r.json.detail}`);
    }
  };
  const done = Promise.all(o.devices.map((d, i) => client(d, i)));
  return {
    acks,
    moreAcks,
    halt() {
      stop = true;
    },
    get stopped() {
      return stop;
    },
    done,
  };
}
