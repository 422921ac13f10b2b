// testkit/log-generator.ts: a fast generator of valid audit bundles (docs/design.md §8 format, verifier/bundle/format.ts
// order) with real signatures, for the verify bench and the reader's unit tests: a signed
// descriptor, the sequencer's self-signed KeyRecord and device KeyRecords signed by it, entries
// chained and hashed exactly as the sequencer builds them (buildEntry), each device event signed
// (signEvent), optional erasures in hash_only mode (the payload left out and a sequencer-signed
// `cookwala.log.erased` entry appended, as sequencer/erase-route.ts does), and checkpoints signed by
// the sequencer and cosigned by witnesses at a fixed interval. It skips HTTP and LevelDB, so a 10^6
// event bundle costs about one signature per event. Keys come from fixed seeds, so runs repeat.
// The descriptor declares the default time window (verifier/documents/time-bounds.ts) as a new sequencer
// log does, unless told `timeBounds: null` (a log from before time bounds).
// Invariant: everything it writes verifies; tests then tamper with copies.

import { buildBundleHeader, buildPayloadLine, encodeLine } from '../verifier/bundle/format.ts';
import { buildLogDescriptor, type LogMode } from '../verifier/documents/log-descriptor.ts';
import { buildEntry, entryCeOf, type Entry } from '../verifier/documents/entry.ts';
import { buildCheckpoint, cosignCheckpoint, addCosignature, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { decodeCookwalasig, encodeCookwalasig, eventHash, signEvent, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { createSigner, generateSecretKey, keyRecordOf, signDocument, type Signer } from '../verifier/signing/signature.ts';
import { formatHash, formatTime, parseHash, toBase64url, utf8 } from '../verifier/encoding/wire.ts';
import { createFrontier, hashLeaf } from '../verifier/merkle/index.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { WitnessPolicy } from '../verifier/documents/policy.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';
import { DEFAULT_TIME_BOUNDS, type TimeBounds } from '../verifier/documents/time-bounds.ts';

export interface GenOptions {
  log?: string;
  mode?: LogMode;
  events: number;
  devices?: number;
  /** Executions per device running at once; each is a subject with its own cookwalaseq. */
  subjectsPerDevice?: number;
  /** A checkpoint every this many entries (and one at the end). */
  checkpointEvery?: number;
  witnesses?: number;
  quorum?: number;
  /** hash_only: erase the payload of every k-th event (0: none). */
  eraseEvery?: number;
  /** Approximate size of each event's data, bytes. */
  dataBytes?: number;
  startMs?: number;
  /** Seed byte that varies all keys (two logs with different seeds never share keys). */
  seed?: number;
  /** Events from this index on carry other data: a rewritten history with the same keys. */
  variantFrom?: number;
  /** The event at this index carries a Core 0.2.0 signature over the bare hash string. */
  legacyAt?: number;
  /** Device and witness keys are valid from this offset to startMs (default 0; negative: earlier). */
  keysFromMs?: number;
  /** The descriptor's declared time window; null: none (default DEFAULT_TIME_BOUNDS). */
  timeBounds?: TimeBounds | null;
}

export interface GeneratedLog {
  policy: WitnessPolicy;
  /** The device KeyRecords as an auditor's cache would hold them (unsigned). */
  deviceKeys: KeyRecord[];
  sequencer: Signer;
  /** The device signers, in the order of deviceKeys (tests forge with them). */
  deviceSigners: Signer[];
  /** The witness signers, in the order of policy.witnesses. */
  witnessSigners: Signer[];
  lines(): Generator<string>;
}

const seedBytes = (tag: number, i: number, seed: number) =>
  Uint8Array.from({ length: 32 }, (_, k) => (tag * 31 + i * 7 + k * 13 + seed * 101 + 1) & 0xff);

export function generateLog(o: GenOptions): GeneratedLog {
  const log = o.log ?? 'bench.example.org/missions/m-0001';
  const mode = o.mode ?? 'hash_only';
  const seed = o.seed ?? 0;
  const nDevices = o.devices ?? 8;
  const perDevice = o.subjectsPerDevice ?? 4;
  const every = o.checkpointEvery ?? 10_000;
  const eraseEvery = mode === 'hash_only' ? (o.eraseEvery ?? 0) : 0;
  const t0 = o.startMs ?? Date.parse('2026-11-30T10:00:00.000Z');
  const at = (ms: number) => formatTime(t0 + ms);

  const sequencer = createSigner(generateSecretKey('EdDSA', `seq-s${seed}`, undefined, seedBytes(1, 0, seed)));
  const seqRecord = signDocument(
    keyRecordOf(sequencer, { owner: 'cookwala:sequencer', role: 'sequencer', validFrom: at(0) }) as unknown as JsonObject,
    sequencer,
    at(0),
  ) as unknown as KeyRecord;
  const devices = Array.from({ length: nDevices }, (_, i) =>
    createSigner(generateSecretKey('EdDSA', `dev-${String(i).padStart(4, '0')}-s${seed}`, undefined, seedBytes(2, i, seed))),
  );
  const deviceKeys = devices.map((d, i) =>
    keyRecordOf(d, { owner: `urn:cookwala:device:d${i}-s${seed}`, role: 'device', validFrom: at(o.keysFromMs ?? 0) }),
  );
  const witnesses = Array.from({ length: o.witnesses ?? 3 }, (_, i) =>
    createSigner(generateSecretKey('EdDSA', `wit-${i}-s${seed}`, undefined, seedBytes(3, i, seed))),
  );
  const witnessKeys = witnesses.map((w, i) => keyRecordOf(w, { owner: `witness-${i}`, role: 'witness', validFrom: at(o.keysFromMs ?? 0) }));
  const { hash: _h, signature: _s, ...seqPlain } = seqRecord;
  const policy: WitnessPolicy = {
    kind: 'WitnessPolicy',
    log,
    sequencer: seqPlain as KeyRecord,
    witnesses: witnessKeys,
    quorum: o.quorum ?? Math.min(2, witnesses.length),
  };
  const padding = 'x'.repeat(Math.max(0, (o.dataBytes ?? 300) - 120));

  const erasures = eraseEvery > 0 ? Math.floor(o.events / eraseEvery) : 0;
  const total = o.events + erasures;
  const checkpointCount = Math.floor(total / every) + (total % every !== 0 || total === 0 ? 1 : 0);

  function* lines(): Generator<string> {
    const timeBounds = o.timeBounds === null ? undefined : (o.timeBounds ?? DEFAULT_TIME_BOUNDS);
    const descriptor = buildLogDescriptor({ log, mode, createdAt: at(0), timeBounds }, sequencer);
    const frontier = createFrontier();
    const checkpoints: Checkpoint[] = [];
    const subjectSeq = new Map<string, number>();
    const toErase: Array<{ seq: number; eventHash: string }> = [];
    let prev = descriptor.hash;
    let seq = 0;
    let ms = 1000;
    const sign = (cp: Checkpoint) => {
      let c = cp;
      for (const w of witnesses) c = addCosignature(c, cosignCheckpoint(c, w, at(ms)));
      checkpoints.push(c);
    };
    const append = (ce: CloudEvent, withPayload: boolean): { e: Entry; text: string } => {
      const sig = decodeCookwalasig(ce.cookwalasig as string);
      const h = eventHash(ce);
      if (!sig.ok || !h.ok) throw new Error('generator: unsigned event');
      seq++;
      const e = buildEntry({ log, seq, prev, sequencedAt: at(ms), ce: entryCeOf(ce), eventHash: h.value, eventSignature: sig.value });
      prev = e.hash;
      frontier.append(hashLeaf((parseHash(e.hash) as { value: Uint8Array }).value));
      if (seq % every === 0) sign(buildCheckpoint({ log, seq, head: e.hash, root: formatHash(frontier.root()) }, sequencer, at(ms)));
      return { e, text: encodeLine(e) + (withPayload ? encodeLine(buildPayloadLine(seq, ce)) : '') };
    };
    const erasure = (x: { seq: number; eventHash: string }) =>
      append(
        signEvent(
          {
            specversion: '1.0',
            id: `erased-${x.seq}`,
            source: `cookwala:sequencer/${log}`,
            type: 'cookwala.log.erased',
            time: at(ms),
            datacontenttype: 'application/json',
            data: { seq: x.seq, eventHash: x.eventHash, reason: 'consent withdrawn' },
          },
          sequencer,
          at(ms),
        ),
        true,
      ).text;

    yield encodeLine(
      buildBundleHeader({ log, mode, seq: total, checkpoints: checkpointCount, exportedAt: at(o.events + erasures + 10_000) }),
    );
    yield encodeLine(descriptor);
    yield encodeLine(seqRecord);
    const sorted = devices.map((d, i) => ({ kid: d.kid, rec: deviceKeys[i] })).sort((a, b) => (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0));
    for (const { rec } of sorted) yield encodeLine(signDocument(rec as unknown as JsonObject, sequencer, at(0)));

    for (let i = 0; i < o.events; i++) {
      ms += 1;
      const d = i % nDevices;
      const subject = `exec-${d}-${Math.floor(i / nDevices) % perDevice}-s${seed}`;
      const cs = (subjectSeq.get(subject) ?? 0) + 1;
      subjectSeq.set(subject, cs);
      const ce: CloudEvent = {
        specversion: '1.0',
        id: `ev-${i}`,
        source: deviceKeys[d].owner,
        type: 'cookwala.execution.running',
        subject,
        cookwalaseq: cs,
        time: at(ms - 1),
        datacontenttype: 'application/json',
        data: { step: i % 17, tempC: 80 + (i % 15) + (o.variantFrom !== undefined && i >= o.variantFrom ? 1 : 0), note: padding },
      };
      let signed = signEvent(ce, devices[d], at(ms - 1));
      if (i === o.legacyAt) {
        const h = (eventHash(ce) as { value: string }).value;
        const sig = { alg: devices[d].alg, kid: devices[d].kid, signedAt: at(ms - 1), sig: toBase64url(devices[d].sign(utf8(h))) };
        signed = { ...ce, cookwalasig: encodeCookwalasig(sig) };
      }
      const erase = eraseEvery > 0 && (i + 1) % eraseEvery === 0;
      const { e, text } = append(signed, !erase);
      yield text;
      // Each erasure entry comes after the next event, as an operator's later DELETE would.
      while (toErase.length > 0) yield erasure(toErase.shift() as { seq: number; eventHash: string });
      if (erase) toErase.push({ seq: e.seq, eventHash: e.eventHash });
    }
    while (toErase.length > 0) yield erasure(toErase.shift() as { seq: number; eventHash: string });
    if (seq % every !== 0 || seq === 0)
      sign(buildCheckpoint({ log, seq, head: prev, root: formatHash(frontier.root()) }, sequencer, at(ms)));
    if (seq !== total || checkpoints.length !== checkpointCount) throw new Error('generator: header counts disagree with the lines');
    for (const cp of checkpoints) yield encodeLine(cp);
  }

  return { policy, deviceKeys, sequencer, deviceSigners: devices, witnessSigners: witnesses, lines };
}
