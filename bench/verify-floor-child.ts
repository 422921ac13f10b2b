// bench/verify-floor-child.ts: the verify section's floor (docs/design.md §13): the least an offline
// verifier of an audit bundle must do, in a process of its own, as bench/floor-server.ts is for
// ingest. `node --import tsx bench/verify-floor-child.ts BUNDLE` reads the file as `cookwala
// verify` does (auditor/bundle-file.ts forEachLine), parses every line with JSON.parse (not
// the strict reader), hashes the text of every Event and Payload line once with SHA-256 (standing
// in for the hashes the spec fixes for each event, of which the verifier computes five;
// node:crypto, as the verifier's default backend), and checks every entry's Ed25519 signature (the
// device's, or the sequencer's on an erasure) over its signing header, built by the one encoder
// signer and verifier share (verifier/signing/signature.ts signingHeaderBytes), through the same
// worker pool (platform/sig-pool.ts) and batch queue (verifier/bundle/signature-batches.ts) as
// `cookwala verify`. It prints one JSON line (FloorResult): good counts the entries whose signature
// verified, so a floor that checked nothing cannot pass for one (verify-floor.test.ts). Left out,
// on purpose: the schemas, I-JSON, RFC 8785, the hash chain, Merkle, times, key roles and
// validity, the (source, id) set, checkpoints and erasures: everything that makes the verifier a
// verifier.

import { peakRssMB } from './proc-cpu.ts';
import { forEachLine } from '../auditor/bundle-file.ts';
import { createSigQueue } from '../verifier/bundle/signature-batches.ts';
import { createSigPool } from '../platform/sig-pool.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { signingHeader, signingHeaderBytes } from '../verifier/signing/signature.ts';
import type { Signature } from '../verifier/signing/signature-types.ts';
import { EVENT_KIND } from '../verifier/cloudevent/read.ts';

interface Line {
  kind?: string;
  kid?: string;
  publicKey?: string;
  eventHash?: string;
  eventSignature?: Signature;
}

/** What the child prints (bench/verify.ts reads it through runJsonChild). */
export interface FloorResult {
  ms: number;
  cpuMs: number;
  entries: number;
  good: number;
  peakRssMB: number;
}

export async function verifyFloor(file: string): Promise<Pick<FloorResult, 'entries' | 'good'>> {
  const pool = createSigPool();
  const queue = createSigQueue({ verifyBatch: (items) => pool.verify(items) });
  const backend = defaultBackend();
  const keys = new Map<string, Uint8Array>();
  let entries = 0;
  let good = 0;
  const count = (ok: boolean) => {
    if (ok) good++;
  };
  try {
    await forEachLine(file, (text) => {
      if (text === '') return undefined;
      const j = JSON.parse(text) as Line;
      if (j.kind === 'Payload') {
        backend.sha256Hex(text);
        return undefined;
      }
      if (j.kind === 'KeyRecord' && typeof j.kid === 'string' && typeof j.publicKey === 'string') {
        keys.set(j.kid, Buffer.from(j.publicKey, 'base64url'));
        return undefined;
      }
      if (j.kind !== 'Event' || !j.eventSignature) return undefined;
      entries++;
      backend.sha256Hex(text);
      const s = j.eventSignature;
      const publicKey = keys.get(s.kid);
      if (!publicKey) return undefined;
      const msg = signingHeaderBytes(signingHeader(s, j.eventHash!, EVENT_KIND));
      return queue.add({ alg: 'EdDSA', publicKey, msg, sig: Buffer.from(s.sig, 'base64url') }, count);
    });
    await queue.drain();
  } finally {
    await pool.close();
  }
  return { entries, good };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await verifyFloor(process.argv[2]);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const out: FloorResult = { ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), ...r, peakRssMB: peakRssMB() };
  process.stdout.write(JSON.stringify(out) + '\n');
}
