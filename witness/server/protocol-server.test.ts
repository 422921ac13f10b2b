// serveStream (protocol-server.ts) over a real @libp2p/utils stream pair: requests decided out of
// order are still answered in request order, and replies already decided leave together in one
// write (write coalescing) without changing what the client reads; no more than maxInFlightBytes of
// unanswered requests are read; the client's
// requests of one turn (witness/client/connection.ts) likewise leave as one chunk and are read as separate frames.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { streamPair } from '@libp2p/utils';
import { serveStream } from './protocol-server.ts';
import { createFrameChannel } from '../wire/frame-channel.ts';
import { encodeMessage, parseReply, type Reply } from '../wire/messages.ts';

const te = new TextEncoder();
const td = new TextDecoder();

describe('serveStream', () => {
  it('answers in request order whatever order the decisions finish in, coalescing decided replies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 40 })
          .chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))),
        async ([n, order]) => {
          const [a, b] = await streamPair();
          const decided: Array<(r: Reply) => void> = [];
          const arrived: number[] = [];
          let allArrived!: () => void;
          const all = new Promise<void>((r) => (allArrived = r));
          const served = serveStream(
            b,
            'peer',
            (frame) =>
              new Promise<Reply>((resolve) => {
                const i = Number(td.decode(frame));
                decided[i] = resolve;
                arrived.push(i);
                if (arrived.length === n) allArrived();
              }),
            { maxInFlight: 64 },
          );
          const client = createFrameChannel(a);
          // All requests in one write, as witness/client/connection.ts sends the requests of one turn.
          await client.sendMany(Array.from({ length: n }, (_, i) => te.encode(String(i))));
          await all;
          const chunks: number[] = [];
          a.addEventListener('message', (e) => chunks.push((e as unknown as { data: { byteLength: number } }).data.byteLength));
          for (const i of order) decided[i]({ ok: false, code: 'conflict', detail: `reply ${i}` } as Reply);
          const got: string[] = [];
          for (let i = 0; i < n; i++) {
            const f = await client.next();
            if (!('frame' in f)) throw new Error(`no reply ${i}`);
            const r = parseReply(f.frame);
            got.push(r.ok && !r.value.ok ? r.value.detail : 'unreadable');
          }
          expect(got).toEqual(Array.from({ length: n }, (_, i) => `reply ${i}`));
          // Decided in one turn, the n replies left in one write.
          expect(chunks.length).toBe(1);
          await client.close();
          await served;
        },
      ),
      { numRuns: 25 },
    );
  });

  it('reads no further while the unanswered frames hold maxInFlightBytes, and on once the oldest is answered', async () => {
    const [a, b] = await streamPair();
    const events: string[] = [];
    const answer: Array<() => void> = [];
    let arrivals = 0;
    let onArrival: () => void = () => {};
    const served = serveStream(
      b,
      'peer',
      (frame) =>
        new Promise<Reply>((resolve) => {
          const i = Number(td.decode(frame).trim());
          events.push(`in ${i}`);
          answer[i] = () => {
            events.push(`out ${i}`);
            resolve({ ok: false, code: 'conflict', detail: `reply ${i}` } as Reply);
          };
          arrivals++;
          onArrival();
        }),
      { maxInFlightBytes: 1000 },
    );
    const client = createFrameChannel(a);
    const frames = Array.from({ length: 10 }, (_, i) => te.encode(String(i).padEnd(300)));
    const wireBytes = frames.reduce((n, f) => n + f.length + 2, 0); // 2-byte length prefixes
    let delivered = 0;
    const allDelivered = new Promise<void>((r) =>
      b.addEventListener('message', (e) => {
        delivered += (e as unknown as { data: { byteLength: number } }).data.byteLength;
        if (delivered >= wireBytes) r();
      }),
    );
    const arrived = (n: number) => new Promise<void>((r) => (onArrival = () => arrivals >= n && r()));
    const firstFour = arrived(4);
    // Ten 300-byte requests at once: four (1,200 bytes) reach the handler, then one per answer.
    await client.sendMany(frames);
    await firstFour;
    await allDelivered;
    // Every byte is at the server and reading buffered bytes takes no macrotask: it stopped at four.
    await new Promise((r) => setImmediate(r));
    expect(arrivals).toBe(4);
    for (let i = 0; i < 6; i++) {
      const next = arrived(5 + i);
      answer[i]();
      await next;
    }
    for (let i = 6; i < 10; i++) answer[i]();
    const got: string[] = [];
    for (let i = 0; i < 10; i++) {
      const f = await client.next();
      const r = 'frame' in f ? parseReply(f.frame) : undefined;
      got.push(r?.ok && !r.value.ok ? r.value.detail : 'unreadable');
    }
    expect(got).toEqual(Array.from({ length: 10 }, (_, i) => `reply ${i}`));
    // Request j >= 4 reached the handler only after request j - 4 was answered.
    for (let j = 4; j < 10; j++) expect(events.indexOf(`in ${j}`)).toBeGreaterThan(events.indexOf(`out ${j - 4}`));
    await client.close();
    await served;
  });

  it('a frame channel sends several frames in one write and refuses one over the limit before writing any', async () => {
    const [a, b] = await streamPair();
    const chunks: number[] = [];
    b.addEventListener('message', (e) => chunks.push((e as unknown as { data: { byteLength: number } }).data.byteLength));
    const tx = createFrameChannel(a, { maxFrame: 100 });
    const rx = createFrameChannel(b, { maxFrame: 100 });
    await expect(tx.sendMany([encodeMessage({ x: 1 }), new Uint8Array(101)])).rejects.toThrow(RangeError);
    await tx.sendMany([encodeMessage({ x: 1 }), encodeMessage({ x: 2 }), encodeMessage({ x: 3 })]);
    const frames: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const f = await rx.next();
      frames.push('frame' in f ? JSON.parse(td.decode(f.frame)) : f);
    }
    expect(frames).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
    expect(chunks.length).toBe(1);
    await tx.close();
    await rx.close();
  });
});
