// The witness connection (connection.ts) over real libp2p nodes on 127.0.0.1: requests made in one
// event-loop turn leave in one write, and so do the requests a caller makes while a chunk of replies
// is being read (one new request per reply, as a sequencer keeping a window full does), rather than
// one or two per write. Replies are still matched to their requests in order. The serving end is a
// bare frame channel that counts the chunks its stream receives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Stream } from '@libp2p/interface';
import { createP2pNode, fullAddrs, type P2pNode } from '../wire/p2p-node.ts';
import { createFrameChannel } from '../wire/frame-channel.ts';
import { encodeMessage, WITNESS_PROTOCOL } from '../wire/messages.ts';
import { createWitnessConnection, type WitnessConnection } from './connection.ts';

const N = 8;
let server: P2pNode;
let client: P2pNode;
let conn: WitnessConnection;
/** Chunks seen by the serving stream when each frame was read. */
const chunksAtFrame: number[] = [];
let releaseReplies: () => void = () => {};
let firstRoundRead: () => void = () => {};

beforeAll(async () => {
  server = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: ['/ip4/127.0.0.1/tcp/0'] });
  client = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] });
  await server.handle(WITNESS_PROTOCOL, (stream: Stream) => {
    let chunks = 0;
    stream.addEventListener('message', () => chunks++);
    const ch = createFrameChannel(stream);
    void (async () => {
      // Two rounds of N requests; the first round is answered in one write, when the test says.
      for (let round = 0; round < 2; round++) {
        const got: string[] = [];
        for (let i = 0; i < N; i++) {
          const f = await ch.next();
          if (!('frame' in f)) return;
          chunksAtFrame.push(chunks);
          got.push((JSON.parse(new TextDecoder().decode(f.frame)) as { i: string }).i);
        }
        if (round === 0) {
          const release = new Promise<void>((r) => (releaseReplies = r));
          firstRoundRead();
          await release;
        }
        await ch.sendMany(got.map((i) => encodeMessage({ ok: false, code: 'conflict', detail: `reply ${i}` })));
      }
    })();
  });
  conn = createWitnessConnection(client, fullAddrs(server)[0]);
});

afterAll(async () => {
  await conn?.close();
  await client?.stop();
  await server?.stop();
});

describe('witness connection', () => {
  it('sends the requests of one turn, and those made while a chunk of replies is read, in one write each', async () => {
    const detail = (r: Awaited<ReturnType<WitnessConnection['request']>>) => (r.ok && !r.value.ok ? r.value.detail : 'unexpected');
    const read = new Promise<void>((r) => (firstRoundRead = r));
    // A request made as each first-round reply arrives (a window kept full).
    const second: Array<Promise<string>> = [];
    const first = Array.from({ length: N }, (_, i) =>
      conn.request({ type: 'probe', i: `a${i}` }).then((r) => {
        second.push(conn.request({ type: 'probe', i: `b${i}` }).then(detail));
        return detail(r);
      }),
    );
    // The first round arrives in full before it is answered.
    await read;
    releaseReplies();
    expect(await Promise.all(first)).toEqual(Array.from({ length: N }, (_, i) => `reply a${i}`));
    // Every first-round reply's callback has run: the second round has been asked.
    expect(second).toHaveLength(N);
    expect(await Promise.all(second)).toEqual(Array.from({ length: N }, (_, i) => `reply b${i}`));
    // Each round came in one chunk: every frame of a round was read with the same chunk count.
    expect(new Set(chunksAtFrame.slice(0, N)).size).toBe(1);
    expect(new Set(chunksAtFrame.slice(N)).size).toBe(1);
    expect(chunksAtFrame[N]).toBe(chunksAtFrame[0] + 1);
  });
});
