// The witness gossips the checkpoints it cosigns (service.ts, docs/design.md §7), but only when some peer
// is on the checkpoint topic: with none, the flush publishes nothing (a publish would reach
// nobody, and gossipsub would still encode, hash and cache every message); once a peer is there,
// the next cosignature of the log goes out, cosigned. A real libp2p node and a real state store;
// the node's subscriber list and publish are observed (and the list stubbed) to see each flush.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness, type Witness } from './service.ts';
import { openStateStore, type StateStore } from './state.ts';
import { CHECKPOINT_TOPIC } from './gossip.ts';
import { encodeMessage } from '../wire/messages.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';
import { witnessSignatures, type Checkpoint } from '../../verifier/documents/checkpoint.ts';

const ORIGIN = 'example.org/gossip-publish';
const log = createFakeLog(ORIGIN);
const key = testKey('gossip-publish', 'witness');
let dir: string;
let state: StateStore;
let w: Witness;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-wgpub-');
  state = await openStateStore(join(dir, 'state'));
  w = createWitness(
    { state, signer: key.signer, keyRecord: key.keyRecord },
    {
      peerKey: await generateKeyPair('Ed25519'),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      logs: [{ log: ORIGIN, sequencer: log.keyRecord }],
      gossipDelayMs: 1,
    },
  );
  await w.start();
});

afterAll(async () => {
  await w?.stop();
  await state?.close();
  await removeDir(dir);
});

describe('gossip of cosigned checkpoints', () => {
  it('publishes nothing while no peer is on the topic, and the next cosignature once one is', async () => {
    const pubsub = w.node!.services.pubsub;
    const published: Array<{ topic: string; data: Uint8Array }> = [];
    let onPublish: () => void = () => {};
    pubsub.publish = (async (topic: string, data: Uint8Array) => {
      published.push({ topic, data });
      onPublish();
      return { recipients: [] };
    }) as typeof pubsub.publish;
    const realSubscribers = pubsub.getSubscribers.bind(pubsub);
    let peers: ReturnType<typeof realSubscribers> | undefined = undefined;
    let onFlush: () => void = () => {};
    pubsub.getSubscribers = ((topic: string) => {
      const r = peers ?? realSubscribers(topic);
      if (topic === CHECKPOINT_TOPIC) onFlush();
      return r;
    }) as typeof pubsub.getSubscribers;

    // No peer: the flush runs (it asks who is subscribed) and publishes nothing.
    expect(realSubscribers(CHECKPOINT_TOPIC)).toHaveLength(0);
    log.append(3);
    const flushed = new Promise<void>((r) => (onFlush = r));
    expect((await w.handleFrame(encodeMessage(await log.request(0)))).ok).toBe(true);
    await flushed;
    expect(published).toHaveLength(0);

    // A peer on the topic: the next cosignature is published, with our cosignature on it.
    peers = [w.node!.peerId];
    const sent = new Promise<void>((r) => (onPublish = r));
    log.append(2);
    const reply = await w.handleFrame(encodeMessage(await log.request(3)));
    expect(reply.ok).toBe(true);
    await sent;
    expect(published.map((p) => p.topic)).toEqual([CHECKPOINT_TOPIC]);
    const cp = JSON.parse(new TextDecoder().decode(published[0].data)) as Checkpoint;
    expect(cp.seq).toBe(5);
    expect(witnessSignatures(cp).map((s) => s.kid)).toEqual([key.signer.kid]);
  });
});
