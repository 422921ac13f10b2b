// The executor's sequencer client with several sequencer URLs (docs/failover.md): a 503 not_leader
// naming the leader sends the same request there at once (the outbox sees the leader's answer,
// and the client stays with it); a not_leader without a leader, or a network fault, moves on to
// the next URL; two processes naming each other forever end after a bounded number of hops with
// the last answer; a named leader that is not an http(s) URL is not followed; keys are registered
// with every given URL; `--sequencer` values as a comma list or repeated read the same.
import { describe, expect, it } from 'vitest';
import { createSequencerClient, sequencerUrls, type FetchLike } from './sequencer-client.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';

const LOG = 'x.example/missions/m-1';
const ev = { specversion: '1.0', id: 'e1', source: 'cookwala:device/d', type: 't' } as CloudEvent;

/** A fetch that answers per host from `hosts`, recording which host each request went to. */
function fakeFetch(hosts: Record<string, (path: string) => { status: number; body: unknown } | 'down'>) {
  const calls: string[] = [];
  const f: FetchLike = async (url) => {
    const u = new URL(url);
    calls.push(u.host);
    const a = hosts[u.host]?.(u.pathname) ?? 'down';
    if (a === 'down') throw new TypeError('fetch failed');
    return { status: a.status, text: async () => JSON.stringify(a.body) };
  };
  return { f, calls };
}
const ok = { status: 200, body: { results: [{ status: 201, seq: 1 }] } };
const notLeader = (leader?: string) => ({ status: 503, body: { code: 'not_leader', detail: 'standby', ...(leader ? { leader } : {}) } });

describe('sequencer client with several URLs', () => {
  it('follows the leader a 503 not_leader names, and stays with it', async () => {
    const { f, calls } = fakeFetch({ a: () => notLeader('http://b'), b: () => ok });
    const c = createSequencerClient({ url: 'http://a,http://b', log: LOG, fetch: f });
    expect(await c.postBatch([ev])).toEqual({ kind: 'results', results: [{ status: 201, seq: 1 }] });
    expect(calls).toEqual(['a', 'b']);
    expect(c.current?.()).toBe('http://b');
    await c.postBatch([ev]);
    expect(calls).toEqual(['a', 'b', 'b']);
  });

  it('follows a leader that was not among the given URLs', async () => {
    const { f, calls } = fakeFetch({ a: () => notLeader('http://c:8080/'), 'c:8080': () => ok });
    const c = createSequencerClient({ url: ['http://a'], log: LOG, fetch: f });
    expect((await c.postBatch([ev])).kind).toBe('results');
    expect(calls).toEqual(['a', 'c:8080']);
  });

  it('moves on after a network fault or a not_leader without a leader', async () => {
    const { f, calls } = fakeFetch({ a: () => 'down', b: () => notLeader(), c: () => ok });
    const c = createSequencerClient({ url: ['http://a', 'http://b', 'http://c'], log: LOG, fetch: f });
    expect((await c.postBatch([ev])).kind).toBe('results');
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('two processes naming each other: bounded hops, the last answer returned', async () => {
    const { f, calls } = fakeFetch({ a: () => notLeader('http://b'), b: () => notLeader('http://a') });
    const c = createSequencerClient({ url: 'http://a,http://b', log: LOG, fetch: f });
    expect(await c.postBatch([ev])).toMatchObject({ kind: 'error', status: 503, code: 'not_leader' });
    expect(calls.length).toBe(4);
  });

  it('a leader that is not an http(s) URL is not followed', async () => {
    const { f, calls } = fakeFetch({ a: () => notLeader('file:///etc/passwd') });
    const c = createSequencerClient({ url: 'http://a', log: LOG, fetch: f });
    expect(await c.postBatch([ev])).toMatchObject({ kind: 'error', status: 503 });
    expect(calls).toEqual(['a']);
  });

  it('registers the key with every given URL', async () => {
    const { f, calls } = fakeFetch({ a: () => ({ status: 201, body: {} }), b: () => ({ status: 200, body: {} }) });
    const c = createSequencerClient({ url: 'http://a, http://b/', log: LOG, fetch: f });
    expect(await c.registerKey({ kid: 'k' } as KeyRecord, 'tok')).toMatchObject({ status: 201 });
    expect(calls).toEqual(['a', 'b']);
  });

  it('reads --sequencer as a comma list or repeated, each URL once', () => {
    expect(sequencerUrls(['http://a/,http://b', 'http://b', ' http://c '])).toEqual(['http://a', 'http://b', 'http://c']);
    expect(sequencerUrls('http://a')).toEqual(['http://a']);
  });
});
