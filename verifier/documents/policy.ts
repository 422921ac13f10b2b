// verifier/documents/policy.ts: the witness policy (DESIGN §4), the auditor's and the sequencer's own file,
// never taken from the log: {"kind":"WitnessPolicy","log":ORIGIN,"sequencer":KeyRecord,
// "witnesses":[KeyRecord…],"quorum":k}. `quorum` defaults to 1 (Core §5: at least one witness);
// 0 is accepted for a sequencer that has no witnesses yet, and then checkpoints are unwitnessed.
// Reading is strict (schemas/bundle.ts) plus what a schema cannot say: the sequencer key has role
// `sequencer`, witness keys role `witness`, kids and public keys are distinct, no witness holds the
// sequencer's public key (it could never count), and the quorum is reachable. The value returned
// is a new object with `quorum` filled in; the input is never changed. A key that breaks the one
// Ed25519 key rule (ed25519-rules.ts) keeps its code, weak_key; other key faults are invalid_document.

import { fail, ok, type Result } from '../errors.ts';
import { sameKey, validKeyRecordShape, type KeyRecord } from './keys.ts';
import { schemaValidator } from './schemas/validate.ts';

export interface WitnessPolicy {
  kind: 'WitnessPolicy';
  log: string;
  sequencer: KeyRecord;
  witnesses: KeyRecord[];
  quorum: number;
}

export const DEFAULT_QUORUM = 1;

const invalid = (detail: string, path: string) => fail('invalid_document', detail, { path });
/** A key's own failure keeps its code when it is the Ed25519 key rule's (weak_key). */
const keyFailure = (code: string, detail: string, path: string) => fail(code === 'weak_key' ? 'weak_key' : 'invalid_document', detail, { path });

export function readWitnessPolicy(json: unknown): Result<WitnessPolicy> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return invalid('a WitnessPolicy is a JSON object', '/');
  const o = json as Record<string, unknown>;
  if (o.kind !== 'WitnessPolicy') return invalid(`kind is ${JSON.stringify(o.kind)}, expected "WitnessPolicy"`, '/kind');
  const v = schemaValidator().validate('WitnessPolicy', json);
  if (!v.ok) return v;
  const p = json as WitnessPolicy;
  const seq = validKeyRecordShape(p.sequencer);
  if (!seq.ok) return keyFailure(seq.code, `sequencer: ${seq.detail}`, '/sequencer');
  if (p.sequencer.role !== 'sequencer') return invalid(`the sequencer key ${p.sequencer.kid} has role ${p.sequencer.role}`, '/sequencer/role');
  const kids = new Set([p.sequencer.kid]);
  const keys: KeyRecord[] = [p.sequencer];
  for (let i = 0; i < p.witnesses.length; i++) {
    const w = p.witnesses[i];
    const s = validKeyRecordShape(w);
    if (!s.ok) return keyFailure(s.code, `witness ${w.kid}: ${s.detail}`, `/witnesses/${i}`);
    if (w.role !== 'witness') return invalid(`witness key ${w.kid} has role ${w.role}`, `/witnesses/${i}/role`);
    if (kids.has(w.kid)) return invalid(`kid ${w.kid} appears twice`, `/witnesses/${i}/kid`);
    if (sameKey(w, p.sequencer)) return invalid(`witness ${w.kid} holds the sequencer's public key`, `/witnesses/${i}/publicKey`);
    if (keys.some((k) => sameKey(k, w))) return invalid(`witness ${w.kid} holds another witness's public key`, `/witnesses/${i}/publicKey`);
    kids.add(w.kid);
    keys.push(w);
  }
  const quorum = p.quorum ?? DEFAULT_QUORUM;
  if (quorum > p.witnesses.length) return invalid(`quorum ${quorum} needs more than the ${p.witnesses.length} witnesses listed`, '/quorum');
  return ok({ ...p, quorum });
}
