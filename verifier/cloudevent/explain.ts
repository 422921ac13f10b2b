// verifier/cloudevent/explain.ts: the exact bytes behind an event signature, for people and for
// other implementations (docs/design.md §4, §5; docs/devices.md): the event hash input (RFC 8785
// JCS of the JSON-format event without `cookwalasig` and without attributes set to null), the
// event hash, and the signing header text {alg, hash, kid, kind:"Event", signedAt} whose UTF-8 is
// what the device key signs. Nothing here encodes on its own: the hash input is canonicalize() of
// the same view eventHash() covers, and is refused unless its SHA-256 is eventHash()'s answer; the
// header text is signingHeaderText(), the one encoder shared by signers and verifiers.

import { fail, ok, type Result } from '../errors.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { setMember } from '../encoding/own-member.ts';
import { defaultBackend } from '../crypto/default.ts';
import { signingHeader, signingHeaderText, type Signature } from '../signing/signature.ts';
import { EVENT_KIND, eventHash, type CloudEvent } from './read.ts';

export interface EventExplained {
  /** JCS text of the hashed view of the event; SHA-256 of its UTF-8 is the event hash. */
  hashInput: string;
  eventHash: string;
  /** JCS text of the signing header; its UTF-8 bytes are what is signed (present with a signature). */
  signingHeader?: string;
}

/** The hash input and hash of an event, and with `sig` the signing header text it was signed over. */
export function explainEvent(ce: CloudEvent, sig?: Pick<Signature, 'alg' | 'kid' | 'signedAt'>): Result<EventExplained> {
  const h = eventHash(ce);
  if (!h.ok) return h;
  const view: Record<string, unknown> = {};
  for (const k of Object.keys(ce)) {
    const v = ce[k];
    if (k === 'cookwalasig' || v === undefined || (v === null && k !== 'data')) continue;
    setMember(view, k, v);
  }
  const text = canonicalize(view);
  if (!text.ok) return text;
  if ('sha256:' + defaultBackend().sha256Hex(text.value) !== h.value)
    return fail('invalid_event', 'the canonical text does not give the event hash (an event eventHash reads otherwise)');
  const out: EventExplained = { hashInput: text.value, eventHash: h.value };
  if (sig) out.signingHeader = signingHeaderText(signingHeader(sig, h.value, EVENT_KIND));
  return ok(out);
}
