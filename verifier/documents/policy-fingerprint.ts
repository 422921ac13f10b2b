// verifier/documents/policy-fingerprint.ts: one short value an auditor can read aloud to compare the
// witness policy in hand with the operator's, out of band (docs/design.md §4, §8): SHA-256 over the
// JCS (RFC 8785) form of exactly what trust rests on — the log, the sequencer's key (alg and
// public key), the witnesses' keys (alg and public key, sorted) and the quorum — with the parts it
// names. Left out: owners, validity windows, URLs and kids (labels that change nothing a verifier
// concludes, though kids are shown beside the fingerprint). Invariant: two policies with the same
// fingerprint accept exactly the same checkpoints.

import { canonicalize } from '../encoding/jcs.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import type { WitnessPolicy } from './policy.ts';

export interface PolicyFingerprint {
  /** `sha256:` and 64 lowercase hex digits. */
  fingerprint: string;
  log: string;
  sequencer: { kid: string; alg: string; publicKey: string };
  witnesses: Array<{ kid: string; alg: string; publicKey: string }>;
  quorum: number;
}

export function policyFingerprint(p: WitnessPolicy, backend: CryptoBackend = defaultBackend()): PolicyFingerprint {
  const key = (k: { kid: string; alg: string; publicKey: string }) => ({ kid: k.kid, alg: k.alg, publicKey: k.publicKey });
  const witnesses = p.witnesses.map(key).sort((a, b) => (a.publicKey < b.publicKey ? -1 : a.publicKey > b.publicKey ? 1 : 0));
  const hashed = {
    log: p.log,
    quorum: p.quorum,
    sequencer: `${p.sequencer.alg}:${p.sequencer.publicKey}`,
    witnesses: witnesses.map((w) => `${w.alg}:${w.publicKey}`),
  };
  const c = canonicalize(hashed);
  // Strings and integers from a policy that was read strictly: canonicalize cannot refuse them.
  if (!c.ok) throw new Error(`policy fingerprint: ${c.detail}`);
  return { fingerprint: `sha256:${backend.sha256Hex(c.value)}`, log: p.log, sequencer: key(p.sequencer), witnesses, quorum: p.quorum };
}

/** The fingerprint in groups of four hex digits (the first 32), for reading aloud. */
export function shortFingerprint(f: string): string {
  const hex = f.replace(/^sha256:/, '').slice(0, 32);
  return hex.match(/.{1,4}/g)?.join(' ') ?? hex;
}
