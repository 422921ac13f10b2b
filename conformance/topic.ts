// conformance/topic.ts: what a topic runner is. A topic owns one folder name of the vector layout
// (conformance/vectors/README.md), claims files in it by pattern, and scores every case on a Tally using
// the project's own code (never a second implementation). Topics are loaded lazily by name, so a
// verifier module that is not built yet fails its own topic, loudly, and no other.

import type { Tally } from './tally.ts';

export interface TopicRunner {
  /** Score every case found under `dir` (the topic folder). Throwing fails the topic, not the run. */
  run(dir: string, tally: Tally): Promise<void>;
}

export interface TopicEntry {
  name: string;
  /** The verifier modules the topic exercises, named in the message when one is missing. */
  uses: string[];
  load(): Promise<TopicRunner>;
}

export const TOPICS: readonly TopicEntry[] = [
  { name: 'jcs', uses: ['verifier/encoding/jcs.ts'], load: async () => (await import('./topics/jcs.ts')).jcsTopic },
  {
    name: 'ed25519',
    uses: ['verifier/crypto/node.ts', 'verifier/crypto/noble.ts'],
    load: async () => (await import('./topics/ed25519.ts')).ed25519Topic,
  },
  {
    name: 'ecdsa-p256',
    uses: ['verifier/crypto/node.ts', 'verifier/crypto/noble.ts'],
    load: async () => (await import('./topics/ecdsa-p256.ts')).ecdsaP256Topic,
  },
  { name: 'merkle', uses: ['verifier/merkle/index.ts'], load: async () => (await import('./topics/merkle.ts')).merkleTopic },
  {
    name: 'signed-note',
    uses: ['verifier/c2sp/note/index.ts'],
    load: async () => (await import('./topics/signed-note.ts')).signedNoteTopic,
  },
  {
    name: 'cloudevents',
    uses: ['verifier/cloudevent/read.ts'],
    load: async () => (await import('./topics/cloudevents.ts')).cloudeventsTopic,
  },
  { name: 'cookwala', uses: ['verifier/*.ts'], load: async () => (await import('./topics/cookwala.ts')).cookwalaTopic },
];
