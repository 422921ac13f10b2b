// verifier/documents/policy.ts: the witness policy (docs/design.md §4), the auditor's and the sequencer's own file,
// never taken from the log: {"kind":"WitnessPolicy","log":ORIGIN,"sequencer":KeyRecord,
// "witnesses":[KeyRecord…],"quorum":k}. `quorum` defaults to 1 (Core §5: at least one witness);
// 0 is accepted for a sequencer that has no witnesses yet, and then checkpoints are unwitnessed.
// Reading is strict (schemas/bundle.ts) plus what a schema cannot say: the sequencer key has role
// `sequencer`, witness keys role `witness`, kids and public keys are distinct, no witness holds the
// sequencer's public key (it could never count), and the quorum is reachable. The value returned
// is a new object with `quorum` filled in; the input is never changed. A key that breaks the one
// Ed25519 key rule (verifier/crypto/ed25519-rules.ts) keeps its code, weak_key; other key faults are invalid_document.
// A witness may carry `vkey` (its C2SP verifier key: cosignature/v1, type 0x04, or ML-DSA-44, type
// 0x06) and `url` (its tlog-witness submission prefix, docs/design.md §4, §7a): the vkey must parse, be of
// one of those types, and hold neither the sequencer's key nor another witness's (keys compared as
// raw bytes, so one key never counts twice under two spellings); `url` needs a `vkey`. A witness
// known only by its ML-DSA-44 key is a KeyRecord of alg ML-DSA-44 whose vkey holds that key. A
// witness is its key (../signing/witness-identity.ts): a witness's vkey holds its own publicKey, never another key.
// The policy pins time (docs/design.md §4): `timeBounds: {required?, maxClockSkewMs?,
// maxDeliveryDelayMs?}`. The log's descriptor must declare timeBounds unless `required` is false
// (the auditor knows the log predates them), and may declare neither bound above the cap given;
// absent, bounds are required and capped only by the format's limits (verifier/bundle/preamble.ts).
// `logMldsaVkey` names the log's ML-DSA-44 key (type 0x06, key name = the log's origin) beside the
// sequencer's Ed25519 one; it must hold no witness's key.

import { fail, ok, type Result } from '../errors.ts';
import { sameKey, validKeyRecordShape, type KeyRecord } from '../signing/keys.ts';
import { schemaValidator } from './schemas/validate.ts';
import { witnessCosignatureKey } from './checkpoint-c2sp.ts';
import { readLogMldsaVkey } from './checkpoint-log-mldsa.ts';
import { toBase64url } from '../encoding/wire.ts';
import { SIG_MLDSA44 } from '../c2sp/note/keys.ts';
import { checkOrigin } from './log-descriptor.ts';
import { witnessKeyAgreement } from '../signing/witness-identity.ts';

export interface WitnessPolicy {
  kind: 'WitnessPolicy';
  log: string;
  sequencer: KeyRecord;
  witnesses: KeyRecord[];
  quorum: number;
  timeBounds?: PolicyTimeBounds;
  /** The log's ML-DSA-44 vkey (type 0x06, key name = log; checkpoint-log-mldsa.ts), beside the sequencer's Ed25519 key. */
  logMldsaVkey?: string;
}

/** What the auditor's policy says about the log's declared time bounds (docs/design.md §4). */
export interface PolicyTimeBounds {
  /** false: the log predates timeBounds, a descriptor without them is accepted (those checks skipped). Default true. */
  required?: boolean;
  /** Caps on what the descriptor may declare (milliseconds). */
  maxClockSkewMs?: number;
  maxDeliveryDelayMs?: number;
}

export const DEFAULT_QUORUM = 1;

const invalid = (detail: string, path: string) => fail('invalid_document', detail, { path });
/** A key's own failure keeps its code when it is the Ed25519 key rule's (weak_key). */
const keyFailure = (code: string, detail: string, path: string) =>
  fail(code === 'weak_key' ? 'weak_key' : 'invalid_document', detail, { path });

export function readWitnessPolicy(json: unknown): Result<WitnessPolicy> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return invalid('a WitnessPolicy is a JSON object', '/');
  const o = json as Record<string, unknown>;
  if (o.kind !== 'WitnessPolicy') return invalid(`kind is ${JSON.stringify(o.kind)}, expected "WitnessPolicy"`, '/kind');
  // The origin first, with its own code: it names files and folders (checkOrigin).
  const origin = checkOrigin(o.log);
  if (!origin.ok) return fail('invalid_origin', `log: ${origin.detail}`, { path: '/log' });
  const v = schemaValidator().validate('WitnessPolicy', json);
  if (!v.ok) return v;
  const p = json as WitnessPolicy;
  const seq = validKeyRecordShape(p.sequencer);
  if (!seq.ok) return keyFailure(seq.code, `sequencer: ${seq.detail}`, '/sequencer');
  if (p.sequencer.role !== 'sequencer')
    return invalid(`the sequencer key ${p.sequencer.kid} has role ${p.sequencer.role}`, '/sequencer/role');
  const kids = new Set([p.sequencer.kid]);
  const keys: KeyRecord[] = [p.sequencer];
  const vkeys: Array<{ alg: 'EdDSA' | 'ML-DSA-44'; publicKey: string }> = [];
  for (let i = 0; i < p.witnesses.length; i++) {
    const w = p.witnesses[i];
    const s = validKeyRecordShape(w);
    if (!s.ok) return keyFailure(s.code, `witness ${w.kid}: ${s.detail}`, `/witnesses/${i}`);
    if (w.role !== 'witness') return invalid(`witness key ${w.kid} has role ${w.role}`, `/witnesses/${i}/role`);
    if (kids.has(w.kid)) return invalid(`kid ${w.kid} appears twice`, `/witnesses/${i}/kid`);
    if (sameKey(w, p.sequencer)) return invalid(`witness ${w.kid} holds the sequencer's public key`, `/witnesses/${i}/publicKey`);
    if (keys.some((k) => sameKey(k, w))) return invalid(`witness ${w.kid} holds another witness's public key`, `/witnesses/${i}/publicKey`);
    if (w.url !== undefined && w.vkey === undefined) return invalid(`witness ${w.kid} has a url but no vkey`, `/witnesses/${i}/url`);
    const vk = witnessCosignatureKey(w);
    if (!vk.ok) return keyFailure(vk.code, `witness ${w.kid}: ${vk.detail}`, `/witnesses/${i}/vkey`);
    const agree = witnessKeyAgreement(w);
    if (!agree.ok) return invalid(agree.detail, `/witnesses/${i}/vkey`);
    if (vk.value) {
      // A vkey's key as a KeyRecord key (EdDSA or ML-DSA-44), for the distinctness checks below and above.
      const alg = vk.value.type === SIG_MLDSA44 ? ('ML-DSA-44' as const) : ('EdDSA' as const);
      const asKey = { alg, publicKey: toBase64url(vk.value.publicKey) };
      if (sameKey(asKey, p.sequencer))
        return invalid(`witness ${w.kid}: its vkey holds the sequencer's public key`, `/witnesses/${i}/vkey`);
      if (keys.some((k, j) => j > 0 && k !== w && !sameKey(k, w) && sameKey(k, asKey)) || vkeys.some((k) => sameKey(k, asKey))) {
        return invalid(`witness ${w.kid}: its vkey holds another witness's public key`, `/witnesses/${i}/vkey`);
      }
      vkeys.push(asKey);
    }
    kids.add(w.kid);
    keys.push(w);
  }
  if (p.logMldsaVkey !== undefined) {
    const lk = readLogMldsaVkey(p.log, p.logMldsaVkey);
    if (!lk.ok) return invalid(`logMldsaVkey: ${lk.detail}`, '/logMldsaVkey');
    const raw = toBase64url(lk.value.publicKey);
    if (vkeys.some((k) => k.publicKey === raw) || keys.some((k) => k.alg === 'ML-DSA-44' && k.publicKey === raw))
      return invalid(`logMldsaVkey holds a witness's public key`, '/logMldsaVkey');
  }
  const quorum = p.quorum ?? DEFAULT_QUORUM;
  if (quorum > p.witnesses.length) return invalid(`quorum ${quorum} needs more than the ${p.witnesses.length} witnesses listed`, '/quorum');
  return ok({ ...p, quorum });
}
