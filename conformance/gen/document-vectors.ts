// conformance/gen/document-vectors.ts: builds strict-reading.json (docs/design.md §3, Core §2 and §9:
// unknown members refused, x-<vendor>- members ignored, coreVersion 0.2.x only, 0.2.0 legacy only
// on request, each document kind's schema) and events.json (CloudEvents 1.0 JSON format, the event
// hash in structured and binary mode, and device signatures in `cookwalasig`). Verdicts are written
// by hand from the spec; the stated event hash comes from a hand-written canonical string.

import { addCosignature, cosignCheckpoint } from '../../verifier/documents/index.ts';
import { encodeCookwalasig, eventHash, type CloudEvent } from '../../verifier/cloudevent/index.ts';
import type { JsonObject } from '../../verifier/signing/index.ts';
import { formatHash, toBase64url, utf8 } from '../../verifier/encoding/index.ts';
import type { ReasonCode } from '../../verifier/index.ts';
import { buildForkProof } from '../../verifier/documents/index.ts';
import { signDocument, signHash, type Signer } from '../../verifier/signing/index.ts';
import { backend, clone, DEVICE, DEVICE2, fixedBytes, invalid, LOG, T, valid, type Keys, type VectorFile } from './fixtures.ts';
import { createLogFixture, deviceEvent, must, signatureOf } from './log-fixture.ts';
import { buildCheckpoint } from '../../verifier/documents/index.ts';

/** The document re-signed after a change (hash and signature recomputed). */
export function resign<T extends object>(doc: T, signer: Signer, signedAt: string): T {
  const { hash: _h, signature: _s, ...rest } = doc as Record<string, unknown>;
  return signDocument(rest as JsonObject, signer, signedAt, backend) as unknown as T;
}

export function strictReadingFile(k: Keys): VectorFile {
  const f = createLogFixture(k);
  const d = f.descriptor;
  const withVersion = (v: string) => resign({ ...d, coreVersion: v }, k.seq.signer, T.genesis);
  const entry = f.entries[0];
  const cp = addCosignature(f.checkpoint, cosignCheckpoint(f.checkpoint, k.w1.signer, T.t3));
  const policy = {
    kind: 'WitnessPolicy',
    log: LOG,
    sequencer: k.seq.record,
    witnesses: [k.w1.record, k.w2.record, k.w3.record],
    quorum: 2,
  };
  const other = buildCheckpoint({ log: LOG, seq: 3, head: f.entries[1].hash, root: cp.root }, k.seq.signer, T.t3);
  const read = (id: string, d0: string, kind: string, document: unknown, code?: ReasonCode, extra: Record<string, unknown> = {}) =>
    code
      ? invalid(id, code, d0, { op: 'read-document', kind, document, ...extra })
      : valid(id, d0, { op: 'read-document', kind, document, ...extra });
  return {
    topic: 'strict-reading',
    description:
      "Strict reading (Core 0.2 §2, §9; docs/design.md §3): unknown members are refused (unknown_field) except x-<vendor>-… members, which are ignored; coreVersion 0.2.x is accepted, other minors and majors refused (unsupported_version); 0.2.0 documents (bare-hash signatures) only with allowLegacy; each kind's schema.",
    cases: [
      read('log-0.2.1', 'a Log descriptor at the current version', 'Log', d),
      read('log-later-patch', 'any patch of 0.2 is accepted (0.2.9)', 'Log', withVersion('0.2.9')),
      read('log-next-minor', 'another minor is refused', 'Log', withVersion('0.3.0'), 'unsupported_version'),
      read('log-next-major', 'another major is refused', 'Log', withVersion('1.0.0'), 'unsupported_version'),
      read('log-two-part-version', '"0.2" is not a 0.2.x version', 'Log', withVersion('0.2'), 'unsupported_version'),
      read(
        'log-0.2.0-refused',
        'a 0.2.0 document (signed over the bare hash) is refused by default',
        'Log',
        withVersion('0.2.0'),
        'legacy_signature',
      ),
      read('log-0.2.0-allowed', 'the same with allowLegacy (--allow-legacy-signatures)', 'Log', withVersion('0.2.0'), undefined, {
        allowLegacy: true,
      }),
      read('log-no-coreVersion', 'a Log without coreVersion', 'Log', (({ coreVersion: _c, ...r }) => r)(d), 'invalid_document'),
      read('log-unknown-member', 'a member the schema does not define', 'Log', { ...d, color: 'blue' }, 'unknown_field'),
      read(
        'log-vendor-member',
        'an x-<vendor>-… member is ignored',
        'Log',
        resign({ ...d, 'x-acme-region': 'eu' }, k.seq.signer, T.genesis),
      ),
      read('log-x-without-vendor', '"x-region" is not x-<vendor>-…', 'Log', { ...d, 'x-region': 'eu' }, 'unknown_field'),
      read('log-bad-mode', 'mode is full or hash_only', 'Log', { ...d, mode: 'partial' }, 'invalid_document'),
      read(
        'log-origin-with-scheme',
        'a log origin is a schema-less URL',
        'Log',
        { ...d, log: 'https://kitchen.example.org/m' },
        'invalid_document',
      ),
      read(
        'log-time-without-ms',
        'times are RFC 3339 UTC with milliseconds',
        'Log',
        { ...d, createdAt: '2026-11-30T09:00:00Z' },
        'invalid_document',
      ),
      read('as-wrong-kind', 'a Checkpoint read as a Log', 'Log', cp, 'invalid_document'),
      read('entry', 'a log entry (kind Event)', 'Event', entry),
      read(
        'entry-unknown-member-in-ce',
        'an unknown member nested in ce',
        'Event',
        { ...entry, ce: { ...entry.ce, data: {} } },
        'unknown_field',
      ),
      read(
        'entry-hash-uppercase',
        'a hash that is not sha256: plus lowercase hex',
        'Event',
        { ...entry, hash: entry.hash.toUpperCase().replace('SHA256:', 'sha256:') },
        'invalid_hash',
      ),
      read('entry-seq-zero', 'entry seq starts at 1', 'Event', { ...entry, seq: 0 }, 'invalid_document'),
      read('entry-seq-fraction', 'seq is an integer', 'Event', { ...entry, seq: 1.5 }, 'invalid_document'),
      read('checkpoint', 'a cosigned checkpoint', 'Checkpoint', cp),
      read(
        'checkpoint-signature-unknown-member',
        'an unknown member inside a cosignature',
        'Checkpoint',
        { ...cp, signature: [cp.signature[0], { ...cp.signature[1], nonce: 'x' }] },
        'unknown_field',
      ),
      read('checkpoint-signature-vendor-member', 'an x-<vendor>-… member inside a cosignature is ignored', 'Checkpoint', {
        ...cp,
        signature: [cp.signature[0], { ...cp.signature[1], 'x-acme-note': 'fresh' }],
      }),
      read(
        'checkpoint-no-signature',
        'a checkpoint carries at least the sequencer signature',
        'Checkpoint',
        { ...cp, signature: [] },
        'invalid_document',
      ),
      read('keyrecord', 'a KeyRecord', 'KeyRecord', k.devP256.record),
      read('keyrecord-alg-rs256', 'alg is EdDSA or ES256', 'KeyRecord', { ...k.dev.record, alg: 'RS256' }, 'unsupported_alg'),
      read(
        'keyrecord-short-key',
        'an Ed25519 public key is 32 bytes',
        'KeyRecord',
        { ...k.dev.record, publicKey: toBase64url(fixedBytes('short', 31)) },
        'invalid_document',
      ),
      read('signature', 'a Signature object', 'Signature', cp.signature[0]),
      read('policy', 'a witness policy', 'WitnessPolicy', policy),
      read(
        'policy-sequencer-key-as-witness',
        "a witness holding the sequencer's public key could never count",
        'WitnessPolicy',
        { ...policy, witnesses: [k.w1.record, { ...k.seq.record, kid: 'seq-1-as-witness', role: 'witness' }] },
        'invalid_document',
      ),
      read(
        'policy-quorum-unreachable',
        'a quorum above the number of witnesses',
        'WitnessPolicy',
        { ...policy, quorum: 4 },
        'invalid_document',
      ),
      read('keycache', 'a key cache', 'KeyCache', { kind: 'KeyCache', keys: [k.seq.record, k.dev.record] }),
      read('forkproof', 'a fork proof', 'ForkProof', buildForkProof(f.checkpoint, other)),
      valid('json-text', 'JSON text parses', { op: 'parse-json', text: '{"kind":"Log"}' }),
      invalid('json-truncated', 'bad_json', 'truncated JSON text', { op: 'parse-json', text: '{"kind":"Log",' }),
    ].map(clone),
  };
}

export function eventsFile(k: Keys): VectorFile {
  const ev = deviceEvent(1, k.dev.signer);
  const { cookwalasig: _sig, ...unsigned } = ev;
  // Hand-written JCS of evt-0001 without cookwalasig: the event hash must be its SHA-256.
  const canon = `{"cookwalaseq":1,"data":{"step":1,"tempC":91},"datacontenttype":"application/json","id":"evt-0001","source":"${DEVICE}","specversion":"1.0","subject":"x-0001","time":"${String(ev.time)}","type":"cookwala.execution.running"}`;
  const stated = formatHash(backend.sha256(utf8(canon)));
  const ev2 = deviceEvent(2, k.dev.signer);
  const es = deviceEvent(1, k.devP256.signer, DEVICE2);
  const h = must(eventHash(ev));
  const sig = signatureOf(ev);
  const withSig = (s: unknown): CloudEvent => ({ ...ev, cookwalasig: typeof s === 'string' ? s : encodeCookwalasig(s as never) });
  const keys = [k.dev.record, k.devP256.record];
  const ve = (id: string, d0: string, event: unknown, code?: ReasonCode, ks: unknown[] = keys) =>
    code ? invalid(id, code, d0, { op: 'verify-event', event, keys: ks }) : valid(id, d0, { op: 'verify-event', event, keys: ks });
  const re = (id: string, d0: string, event: unknown, code?: ReasonCode) =>
    code ? invalid(id, code, d0, { op: 'read-event', event }) : valid(id, d0, { op: 'read-event', event });
  const seqEvent = { ...unsigned, source: 'kitchen.example.org' } as CloudEvent;
  return {
    topic: 'events',
    description:
      'CloudEvents 1.0 in the JSON event format (docs/design.md §4, §5): strict reading, the event hash (the document hash without cookwalasig, attributes set to null left out; binary mode restores cookwalaseq to an Integer first), and the device signature in cookwalasig = base64url(JCS(Signature)) over {alg, hash: eventHash, kid, kind: "Event", signedAt}, by a device key owned by the event source.',
    cases: [
      valid('hash-structured', 'the event hash is SHA-256 of the hand-written JCS of the event without cookwalasig', {
        op: 'event-hash',
        event: ev,
        hash: stated,
      }),
      valid('hash-binary-mode', 'the same event as binary mode delivers it (cookwalaseq "1" as a string) hashes alike once restored', {
        op: 'event-hash',
        event: { ...ev, cookwalaseq: '1' },
        binaryMode: true,
        hash: stated,
      }),
      valid('hash-null-attribute', 'an optional attribute set to null is not set (json-format §3): same hash', {
        op: 'event-hash',
        event: { ...ev, dataschema: null },
        hash: stated,
      }),
      invalid('hash-data-changed', 'hash_mismatch', 'one data value changed: another hash', {
        op: 'event-hash',
        event: { ...ev, data: { step: 1, tempC: 92 } },
        hash: stated,
      }),
      re('read-minimal', 'the four required attributes', {
        specversion: '1.0',
        id: 'e',
        source: DEVICE,
        type: 'cookwala.device.heartbeat',
      }),
      re(
        'read-cookwalaseq-string',
        'in the JSON format cookwalaseq is an Integer, not a string',
        { ...ev, cookwalaseq: '1' },
        'invalid_event',
      ),
      re('read-cookwalaseq-negative', 'cookwalaseq is a non-negative integer', { ...ev, cookwalaseq: -1 }, 'invalid_event'),
      re('read-uppercase-attribute', 'attribute names are lower-case letters and digits', { ...ev, cookwalaSeq: 1 }, 'invalid_event'),
      re('read-data-and-data_base64', 'data and data_base64 are mutually exclusive', { ...unsigned, data_base64: 'eA==' }, 'invalid_event'),
      ve('signed-eddsa', 'an event signed by its device (EdDSA)', ev),
      ve('signed-es256', 'an event signed by its device (ES256, deterministic RFC 6979 here)', es),
      ve('data-changed', 'data changed after signing', { ...ev, data: { step: 1, tempC: 99 } }, 'bad_signature'),
      ve('unsigned', 'no cookwalasig', unsigned, 'bad_signature'),
      ve('moved-to-another-event', 'the cookwalasig of event 1 on event 2', { ...ev2, cookwalasig: ev.cookwalasig }, 'bad_signature'),
      ve(
        'kind-not-event',
        'a signature over the event hash with kind Checkpoint',
        withSig(signHash(h, 'Checkpoint', k.dev.signer, sig.signedAt)),
        'bad_signature',
      ),
      ve(
        'cookwalasig-not-jcs',
        'cookwalasig must be base64url of the JCS form of the Signature',
        withSig(toBase64url(utf8(JSON.stringify(sig, null, 1)))),
        'malformed_signature',
      ),
      ve('source-not-owner', 'a device key signing for another source', { ...deviceEvent(1, k.dev.signer, DEVICE2) }, 'source_mismatch'),
      ve(
        'not-a-device-key',
        'a sequencer key cannot sign device events',
        { ...seqEvent, cookwalasig: encodeCookwalasig(signHash(must(eventHash(seqEvent)), 'Event', k.seq.signer, T.t0)) },
        'key_role_mismatch',
        [k.seq.record],
      ),
      ve(
        'revoked-key',
        "signed at the key's revokedAt",
        { ...unsigned, cookwalasig: encodeCookwalasig(signHash(h, 'Event', k.revoked.signer, T.revoked)) },
        'key_revoked',
        [k.revoked.record],
      ),
      ve('unknown-key', 'no trusted KeyRecord for the kid', ev, 'unknown_key', [k.devP256.record]),
    ].map(clone),
  };
}
