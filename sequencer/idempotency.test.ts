// Idempotency-Key cache: replay of the same fingerprint (also while the first is in flight),
// conflict on another fingerprint, forgetting answers not worth replaying, kept answers as their
// JSON bytes, LRU bounds on keys and on bytes; and the fingerprint covers method, path, content
// type, every ce-* header and the body.
import { describe, expect, it } from 'vitest';
import { createIdempotencyCache, requestFingerprint } from './idempotency.ts';

describe('idempotency cache', () => {
  it('replays the answer for the same fingerprint, waiting for an in-flight first request', async () => {
    const c = createIdempotencyCache(10);
    const a = c.begin('log', 'k1', 'fp');
    expect(a.kind).toBe('new');
    const b = c.begin('log', 'k1', 'fp');
    expect(b.kind).toBe('replay');
    if (a.kind !== 'new' || b.kind !== 'replay') throw new Error();
    const sent = a.finish({ status: 201, body: { seq: 7 } }, true);
    // kept as the JSON bytes sent, which the waiter and every later replay get
    expect(sent.status).toBe(201);
    expect(JSON.parse(sent.raw!.toString('utf8'))).toEqual({ seq: 7 });
    expect(await b.answer).toBe(sent);
    const c2 = c.begin('log', 'k1', 'fp');
    expect(c2.kind === 'replay' && (await c2.answer).raw).toEqual(sent.raw);
  });

  it('answers conflict for another fingerprint; keys are scoped', () => {
    const c = createIdempotencyCache(10);
    const a = c.begin('log', 'k', 'fp1');
    if (a.kind === 'new') a.finish({ status: 201, body: {} }, true);
    expect(c.begin('log', 'k', 'fp2').kind).toBe('conflict');
    expect(c.begin('other', 'k', 'fp2').kind).toBe('new');
  });

  it('forgets answers not kept, so a retry is judged afresh', async () => {
    const c = createIdempotencyCache(10);
    const a = c.begin('log', 'k', 'fp');
    const waiter = c.begin('log', 'k', 'fp');
    if (a.kind !== 'new' || waiter.kind !== 'replay') throw new Error();
    const sent = a.finish({ status: 409, body: { code: 'out_of_order' } }, false);
    expect(sent).toEqual({ status: 409, body: { code: 'out_of_order' } }); // sent as it is, not kept
    expect((await waiter.answer).status).toBe(409); // the waiter still gets the answer
    expect(c.begin('log', 'k', 'other').kind).toBe('new'); // but the key is free again
  });

  it('is bounded, evicting the least recently used', () => {
    const c = createIdempotencyCache(3);
    for (const k of ['a', 'b', 'c']) {
      const s = c.begin('l', k, 'fp');
      if (s.kind === 'new') s.finish({ status: 201, body: k }, true);
    }
    c.begin('l', 'a', 'fp'); // touch a
    const d = c.begin('l', 'd', 'fp');
    if (d.kind === 'new') d.finish({ status: 201, body: 'd' }, true);
    expect(c.size).toBe(3);
    expect(c.begin('l', 'b', 'x').kind).toBe('new'); // b was evicted
    expect(c.begin('l', 'a', 'x').kind).toBe('conflict'); // a survived
  });

  it('is bounded in bytes: the oldest kept answers go first, one too large for the bound is not kept', () => {
    const c = createIdempotencyCache(100, 2_000);
    const keep = (k: string, size: number) => {
      const s = c.begin('l', k, 'fp');
      if (s.kind !== 'new') throw new Error(k);
      return s.finish({ status: 200, body: { results: 'x'.repeat(size) } }, true);
    };
    keep('a', 500);
    keep('b', 500);
    expect(c.size).toBe(2);
    expect(c.bytes).toBeGreaterThan(1_000);
    expect(c.bytes).toBeLessThanOrEqual(2_000);
    keep('c', 500); // over 2,000 bytes with a: a goes
    expect(c.begin('l', 'a', 'other').kind).toBe('new');
    expect(c.begin('l', 'b', 'other').kind).toBe('conflict');
    const big = keep('big', 5_000); // larger than the bound: answered, not kept
    expect(big.raw!.length).toBeGreaterThan(5_000);
    expect(c.begin('l', 'big', 'other').kind).toBe('new');
    expect(c.bytes).toBeLessThanOrEqual(2_000);
  });
});

describe('request fingerprint', () => {
  const base = requestFingerprint(
    'POST',
    '/v1/logs/l/events',
    { 'content-type': 'application/json', 'ce-id': '1', 'ce-source': 's', 'x-other': 'a' },
    Buffer.from('{}'),
  );
  it('is stable and ignores headers other than content type and ce-*', () => {
    expect(
      requestFingerprint(
        'POST',
        '/v1/logs/l/events',
        { 'x-other': 'b', 'ce-source': 's', 'ce-id': '1', 'content-type': 'application/json' },
        Buffer.from('{}'),
      ),
    ).toBe(base);
  });
  it('changes with the body, a ce-* header, the content type or the path', () => {
    expect(
      requestFingerprint(
        'POST',
        '/v1/logs/l/events',
        { 'content-type': 'application/json', 'ce-id': '1', 'ce-source': 's' },
        Buffer.from('{ }'),
      ),
    ).not.toBe(base);
    expect(
      requestFingerprint(
        'POST',
        '/v1/logs/l/events',
        { 'content-type': 'application/json', 'ce-id': '2', 'ce-source': 's' },
        Buffer.from('{}'),
      ),
    ).not.toBe(base);
    expect(
      requestFingerprint('POST', '/v1/logs/l/events', { 'content-type': 'text/plain', 'ce-id': '1', 'ce-source': 's' }, Buffer.from('{}')),
    ).not.toBe(base);
    expect(
      requestFingerprint(
        'POST',
        '/v1/logs/m/events',
        { 'content-type': 'application/json', 'ce-id': '1', 'ce-source': 's' },
        Buffer.from('{}'),
      ),
    ).not.toBe(base);
  });
});
