// witness/server/note-cosigner.ts: the witness's C2SP identity (docs/design.md §4, §7a): its Ed25519
// witness key used as a C2SP tlog-cosignature v1 cosigner (signature type 0x04) under a key name,
// and the C2SP form of a log's key: a sequencer KeyRecord (EdDSA) read as the signed-note vkey
// `<origin>+<key id>+<base64(0x01 || key)>`. Specs: c2sp.org tlog-cosignature and signed-note at
// C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9.
// It makes: a signature line `<name> base64(key ID || u64 timestamp || Ed25519 sig)` over
// "cosignature/v1\ntime <t>\n" + the checkpoint body bytes as received (verifier/c2sp/note/cosignature.ts
// is the one encoder of those bytes), and the JSON object the libp2p reply carries,
// {alg:"cosignature/v1", kid:"<name>+<key id hex>", signedAt (whole seconds), sig (base64url of
// the 64-byte signature)}. Left out: ML-DSA-44 cosignatures (0x06) and subtree signing.
// Invariant: the same key signs JCS headers (which start with `{`) and cosignature/v1 messages
// (which start with `cosignature/v1\n`), so neither can be mistaken for the other; a timestamp is
// never 0 (tlog-witness forbids omitting it).

import { concatBytes, formatTime, toBase64url } from '../../verifier/encoding/index.ts';
import type { Signer } from '../../verifier/signing/index.ts';
import {
  cosignatureMessage,
  encodeCosignature,
  formatVerifierKey,
  noteKeyId,
  SIG_COSIGNATURE_V1,
  toBase64Std,
  isValidKeyName,
} from '../../verifier/c2sp/note/index.ts';

import type { NoteCosignatureObject } from '../wire/messages.ts';

export type { NoteCosignatureObject };

export interface NoteCosignature {
  /** The signature line without the em dash prefix and the newline: `<name> <base64>`. */
  line: string;
  timestamp: number;
  object: NoteCosignatureObject;
}

export interface WitnessCosigner {
  readonly name: string;
  readonly keyId: string;
  /** The cosigner's vkey (type 0x04), what a log or policy lists for this witness. */
  readonly vkey: string;
  /** Cosign a checkpoint body (its exact bytes, ending in newline) at `nowMs`. */
  cosign(body: Uint8Array, nowMs: number): NoteCosignature;
  /** cosign in two halves, for a signature made elsewhere (signing-worker.ts): the bytes to sign… */
  message(body: Uint8Array, nowMs: number): { timestamp: number; msg: Uint8Array };
  /** …and the cosignature from the 64-byte signature over them; cosign = finish(message(…)). */
  finish(timestamp: number, signature: Uint8Array): NoteCosignature;
}

export function createWitnessCosigner(name: string, signer: Signer): WitnessCosigner {
  if (signer.alg !== 'EdDSA') throw new TypeError('a cosignature/v1 cosigner needs an Ed25519 witness key');
  if (!isValidKeyName(name)) throw new TypeError(`invalid C2SP key name ${JSON.stringify(name)}`);
  const keyId = noteKeyId(name, SIG_COSIGNATURE_V1, signer.publicKey);
  const idBytes = Uint8Array.from(keyId.match(/../g)!.map((h) => parseInt(h, 16)));
  const vkey = formatVerifierKey(name, SIG_COSIGNATURE_V1, signer.publicKey);
  const kid = `${name}+${keyId}`;
  // Whole seconds: consecutive cosignatures mostly share one, so its RFC 3339 form is kept.
  let lastTs = -1;
  let lastSignedAt = '';
  const signedAtOf = (ts: number): string => {
    if (ts !== lastTs) {
      lastSignedAt = formatTime(ts * 1000);
      lastTs = ts;
    }
    return lastSignedAt;
  };
  const message = (body: Uint8Array, nowMs: number) => {
    const timestamp = Math.max(1, Math.floor(nowMs / 1000));
    return { timestamp, msg: cosignatureMessage(body, timestamp) };
  };
  const finish = (timestamp: number, signature: Uint8Array): NoteCosignature => {
    const line = `${name} ${toBase64Std(concatBytes(idBytes, encodeCosignature({ timestamp, signature })))}`;
    return {
      line,
      timestamp,
      object: { alg: 'cosignature/v1', kid, signedAt: signedAtOf(timestamp), sig: toBase64url(signature) },
    };
  };
  return {
    name,
    keyId,
    vkey,
    message,
    finish,
    cosign(body, nowMs) {
      const m = message(body, nowMs);
      return finish(m.timestamp, signer.sign(m.msg));
    },
  };
}

/** The C2SP vkey of a Cookwala log (origin as key name, sequencer Ed25519 key as type 0x01): one definition, checkpoint-c2sp.ts. */
export { logVkeyOf } from '../../verifier/documents/index.ts';
