// witness/wire/identity.ts: the persisted libp2p identity (docs/design.md §7): an Ed25519 private key in the
// data directory (libp2p protobuf encoding, file mode 0600), so a witness keeps its PeerId, and
// so its multiaddr in other nodes' bootstrap lists, across restarts. Created once, never replaced:
// an unreadable key file is an error, not a reason to mint a new identity.

import { chmod, readFile, writeFile } from 'node:fs/promises';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';

export async function loadOrCreatePeerKey(path: string): Promise<PrivateKey> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (bytes) return privateKeyFromProtobuf(new Uint8Array(bytes));
  const key = await generateKeyPair('Ed25519');
  // 'wx': never overwrite a key another process wrote meanwhile.
  await writeFile(path, privateKeyToProtobuf(key), { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return key;
}
