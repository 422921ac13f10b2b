// witness/wire/witness-info.ts: DIR/witness-info.json, what a witness operator hands to a
// sequencer operator: `{peerId, multiaddrs:[…/p2p/<peerId>], http?, keyRecord, c2sp?:{name, vkey}}`
// (c2sp: its cosignature/v1 identity, whose key must be keyRecord's: a witness is its key).
// `cookwala witness init` writes it from the configuration (a fixed --listen port gives the
// multiaddr the witness will have; port 0 is only known once it runs); `cookwala witness run`
// rewrites it with the addresses it actually listens on. It outlives the process: the file is
// the witness's business card, not a pid file. `cookwala policy add-witness --from` reads it
// (`readWitnessInfo`: strict, bounded, a KeyRecord of role witness). In wire/ because both the
// witness (which writes it) and the sequencer's side (which reads it) use it. Left out: signing the card
// (the KeyRecord inside is self-signed; the multiaddr is checked by the libp2p handshake).

import type { PrivateKey } from '@libp2p/interface';
import { fail, ok, type Result } from '../../verifier/index.ts';
import { readDocument } from '../../verifier/documents/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { witnessCosignatureKey } from '../../verifier/documents/index.ts';
import { witnessKeyAgreement } from '../../verifier/signing/index.ts';

export interface WitnessInfoCard {
  peerId: string;
  multiaddrs: string[];
  http?: string;
  keyRecord: KeyRecord;
  /** Its C2SP identity: cosignature/v1 key name and vkey (the same key as keyRecord's). */
  c2sp?: { name: string; vkey: string };
}

/** The libp2p peer id of a private key (base58btc of its identity multihash). */
export function peerIdOf(key: PrivateKey): string {
  return key.publicKey.toString();
}

/** The card as the configuration promises it: listen addresses with a fixed port, plus /p2p/. */
/** The parts of a WitnessConfig (witness/server/config.ts) the card is made from. */
export interface CardConfig {
  listen: string[];
  httpHost: string;
  httpPort: number;
}

export function infoFromConfig(
  config: CardConfig,
  peerKey: PrivateKey,
  keyRecord: KeyRecord,
): { info: WitnessInfoCard; unknownPorts: boolean } {
  const peerId = peerIdOf(peerKey);
  const fixed = config.listen.filter((a) => !/\/tcp\/0(\/|$)/.test(a));
  const info: WitnessInfoCard = {
    peerId,
    multiaddrs: fixed.map((a) => (a.includes('/p2p/') ? a : `${a}/p2p/${peerId}`)),
    ...(config.httpPort > 0
      ? { http: `http://${config.httpHost.includes(':') ? `[${config.httpHost}]` : config.httpHost}:${config.httpPort}` }
      : {}),
    keyRecord,
  };
  return { info, unknownPorts: fixed.length < config.listen.length || config.httpPort === 0 };
}

/** Read a witness-info.json (or a witness's /.well-known/cookwala.json plus what it told us). */
export function readWitnessInfo(json: unknown): Result<WitnessInfoCard> {
  const j = json as Record<string, unknown> | null;
  if (!j || typeof j !== 'object' || Array.isArray(j))
    return fail('invalid_document', 'a witness-info.json is {peerId, multiaddrs, keyRecord}');
  const key = readDocument('KeyRecord', j.keyRecord) as Result<KeyRecord>;
  if (!key.ok) return fail(key.code, `keyRecord: ${key.detail}`);
  if (key.value.role !== 'witness') return fail('key_role_mismatch', `keyRecord has role ${key.value.role}, not witness`);
  if (typeof j.peerId !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{20,128}$/.test(j.peerId))
    return fail('invalid_document', 'peerId is a libp2p peer id');
  const addrs = j.multiaddrs;
  if (!Array.isArray(addrs) || addrs.length > 64 || addrs.some((a) => typeof a !== 'string' || a.length > 1024 || !a.startsWith('/')))
    return fail('invalid_document', 'multiaddrs is an array of multiaddr strings');
  if (j.http !== undefined && (typeof j.http !== 'string' || !/^https?:\/\//.test(j.http)))
    return fail('invalid_document', 'http is an http(s) URL');
  let c2sp: WitnessInfoCard['c2sp'];
  if (j.c2sp !== undefined) {
    const c = j.c2sp as { name?: unknown; vkey?: unknown } | null;
    if (!c || typeof c !== 'object' || typeof c.name !== 'string' || typeof c.vkey !== 'string' || c.vkey.length > 512)
      return fail('invalid_document', 'c2sp is {name, vkey}');
    const withVkey = { ...key.value, vkey: c.vkey };
    const vk = witnessCosignatureKey(withVkey);
    if (!vk.ok) return fail(vk.code, `c2sp.vkey: ${vk.detail}`);
    // One witness, one key: the card's vkey must hold its KeyRecord's key (witness-identity.ts).
    const agree = witnessKeyAgreement(withVkey);
    if (!agree.ok) return fail(agree.code, `c2sp.vkey: ${agree.detail}`);
    c2sp = { name: c.name, vkey: c.vkey };
  }
  return ok({
    peerId: j.peerId,
    multiaddrs: addrs as string[],
    ...(j.http ? { http: j.http as string } : {}),
    keyRecord: key.value,
    ...(c2sp ? { c2sp } : {}),
  });
}
