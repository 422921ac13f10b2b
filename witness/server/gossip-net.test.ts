// Gossip over real libp2p in one process: rogue -> w1 -> w2 (a line). Invalid messages are
// rejected by w1 and never reach w2; valid ones are forwarded; a checkpoint that conflicts with
// what w2 cosigned becomes a ForkProof that every witness stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { verifyForkProof } from '../../verifier/documents/fork-proof.ts';
import { createWitness, type Witness } from './service.ts';
import { openStateStore, type StateStore } from './state.ts';
import { createP2pNode, type P2pNode } from '../wire/p2p-node.ts';
import { CHECKPOINT_TOPIC, FORK_TOPIC, TOPICS } from './gossip.ts';
import { encodeMessage } from '../wire/messages.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { waitFor } from '../../testkit/wait.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';

const ORIGIN = 'example.org/gossip';
const log = createFakeLog(ORIGIN);
let dir: string;
const states: StateStore[] = [];
const ws: Witness[] = [];
let rogue: P2pNode;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-wgossip-');
  let prev: string | undefined;
  for (const i of [1, 2]) {
    const k = testKey(`gossip-w${i}`, 'witness');
    const st = await openStateStore(join(dir, `w${i}`));
    states.push(st);
    const w = createWitness(
      { state: st, signer: k.signer, keyRecord: k.keyRecord },
      {
        peerKey: await generateKeyPair('Ed25519'),
        listen: ['/ip4/127.0.0.1/tcp/0'],
        bootstrap: prev ? [prev] : [],
        logs: [{ log: ORIGIN, sequencer: log.keyRecord }],
        gossipDelayMs: 10,
      },
    );
    ws.push(w);
    prev = (await w.start()).multiaddrs[0];
  }
  rogue = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [], topics: TOPICS });
  for (const t of TOPICS) rogue.services.pubsub.subscribe(t);
  await rogue.dial(ws[0].node!.getMultiaddrs()[0]);
  // Wait until the line is a mesh: w1 sees both as topic peers.
  // Every hop must know its neighbour subscribes to both topics before anything is published,
  // or under load the first publications can go nowhere.
  const subs = (n: P2pNode, t: string) => n.services.pubsub.getSubscribers(t).length;
  await waitFor(
    () => (TOPICS.every((t) => subs(ws[0].node!, t) >= 2 && subs(ws[1].node!, t) >= 1 && subs(rogue, t) >= 1) ? true : undefined),
    { timeoutMs: 20_000, what: 'gossip mesh' },
  );
});

afterAll(async () => {
  await rogue?.stop();
  for (const w of ws) await w.stop();
  for (const s of states) await s.close();
  await removeDir(dir);
});

const count = (w: Witness, topic: string, verdict: string) => w.metrics.value('cookwala_witness_gossip_total', { topic, verdict });

describe('gossip between witnesses', () => {
  it('rejects invalid messages without forwarding them, forwards valid ones, and spreads a fork', async () => {
    const pub = (topic: string, x: unknown) =>
      rogue.services.pubsub.publish(topic, typeof x === 'string' ? new TextEncoder().encode(x) : encodeMessage(x));
    log.append(5);
    const good = await log.checkpoint();
    const impostor = createFakeLog(ORIGIN, 'impostor');
    impostor.append(5);
    await pub(CHECKPOINT_TOPIC, 'not json at all');
    await pub(CHECKPOINT_TOPIC, { ...good, extra: 1 });
    await pub(CHECKPOINT_TOPIC, await impostor.checkpoint());
    await pub(FORK_TOPIC, { kind: 'ForkProof', log: ORIGIN, a: good, b: good });
    await waitFor(
      async () =>
        (await count(ws[0], CHECKPOINT_TOPIC, 'reject')) >= 3 && (await count(ws[0], FORK_TOPIC, 'reject')) >= 1 ? true : undefined,
      { timeoutMs: 10_000, what: 'w1 rejects' },
    );
    // A valid message after the invalid ones: when it has reached w2, the invalid ones would have too.
    await pub(CHECKPOINT_TOPIC, good);
    await waitFor(async () => ((await count(ws[1], CHECKPOINT_TOPIC, 'accept')) >= 1 ? true : undefined), {
      timeoutMs: 10_000,
      what: 'w2 receives the valid checkpoint',
    });
    expect(await count(ws[1], CHECKPOINT_TOPIC, 'reject')).toBe(0);
    expect(await count(ws[1], FORK_TOPIC, 'reject')).toBe(0);

    // w2 cosigns the real checkpoint; a conflicting one signed by the same key reaches w1 and w2.
    const r = await ws[1].handleFrame(encodeMessage(await log.request(0)));
    expect(r.ok).toBe(true);
    const alt = createFakeLog(ORIGIN);
    alt.append(5);
    await pub(CHECKPOINT_TOPIC, await alt.checkpoint());
    for (const w of ws) {
      const forks = await waitFor(
        async () => {
          const res = await w.app.inject({ method: 'GET', url: '/v1/forks' });
          const f = res.json().forks;
          return f.length > 0 ? f : undefined;
        },
        { timeoutMs: 10_000, what: 'fork known to every witness' },
      );
      expect(verifyForkProof(forks[0], log.keyRecord).ok).toBe(true);
    }
    // Nothing crashed: both still answer.
    for (const w of ws) expect((await w.app.inject({ method: 'GET', url: '/v1/logs' })).statusCode).toBe(200);
  });
});
