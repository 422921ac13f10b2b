// The pure judgement of a group (sequencer/group-plan.ts), without a store: entries chain from the
// given head with no gap; a twin inside the group is a 200 and writes nothing, a twin with another
// eventHash a duplicate_id_conflict; a stored hit is left for the committer (fromStore); a subject
// out of order and an event outside its time window are refused and flagged, and write nothing.
import { expect, it } from 'vitest';
import { plan, type Candidate } from './group-plan.ts';
import { fail, ok } from '../verifier/index.ts';
import { deviceKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { decodeCookwalasig, eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';

const LOG = 'test.example/group-plan';
const dev = deviceKey(2);
const HEAD = { seq: 7, hash: 'sha256:' + 'ab'.repeat(32) };
const AT = '2026-12-01T10:00:00.000Z';

function cand(ce: CloudEvent): Candidate {
  const s = signed(ce, dev);
  const h = eventHash(s);
  const sig = decodeCookwalasig(s.cookwalasig!);
  if (!h.ok || !sig.ok) throw new Error('fixture');
  return { ce: s, eventHash: h.value, signature: sig.value };
}
const ev = (id: string, subject?: string, cookwalaseq?: number, data: unknown = { id }) =>
  cand(makeEvent({ source: dev.owner, id, subject, cookwalaseq, data }));

it('chains new entries from the head, in order, and answers a twin in the group from its entry', () => {
  const a = ev('a', 's', 1);
  const b = ev('b', 's', 2);
  const p = plan(LOG, HEAD, [a, b, a], [], new Map(), AT);
  expect(p.appends.map((x) => x.entry.seq)).toEqual([8, 9]);
  expect(p.appends[0].entry.prev).toBe(HEAD.hash);
  expect(p.appends[1].entry.prev).toBe(p.appends[0].entry.hash);
  expect(p.appends.every((x) => x.entry.sequencedAt === AT && x.entry.log === LOG)).toBe(true);
  expect(p.outcomes.map((o) => (o.ok ? [o.status, o.seq] : o.code))).toEqual([
    [201, 8],
    [201, 9],
    [200, 8],
  ]);
  expect(p.subjects.get('s')).toBe(2);
  expect(p.outOfOrder || p.timeRefused).toBe(false);
});

it('refuses a twin with another eventHash, leaves stored hits to the committer, and flags order and time refusals', () => {
  const a = ev('a');
  const other = ev('a', undefined, undefined, { changed: true });
  const stored = ev('s1');
  const late = { ...ev('late'), timeCheck: () => fail('delivery_too_late', 'too late') };
  const inTime = { ...ev('ok'), timeCheck: () => ok(true as const) };
  const gap = ev('g', 'subj', 5);
  const found = [undefined, undefined, { seq: 3, eventHash: stored.eventHash }, undefined, undefined, undefined];
  const p = plan(LOG, HEAD, [a, other, stored, late, inTime, gap], found, new Map([['subj', 3]]), AT);
  expect(Array.from(p.outcomes, (o) => (o === undefined ? 'fromStore' : o.ok ? o.status : o.code))).toEqual([
    201,
    'duplicate_id_conflict',
    'fromStore',
    'delivery_too_late',
    201,
    'out_of_order',
  ]);
  expect(p.fromStore).toEqual([[2, 3]]);
  expect(p.appends.map((x) => x.entry.seq)).toEqual([8, 9]);
  expect(p.timeRefused).toBe(true);
  expect(p.outOfOrder).toBe(true);
  expect(p.subjects.get('subj')).toBe(3);
});
