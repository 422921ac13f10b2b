// verifier/documents/disclosure-reveal.ts: one selectively disclosed value checked against a logged,
// signed event (Core 0.2 §5, §8; docs/design.md §3 "Disclosure"; docs/devices.md). A device that
// logs household or health values puts {"disclosure":"sha256:…"} in their place (verifier/documents/disclosure.ts)
// and keeps the salts. To reveal one value it hands over a DisclosureReveal:
//   {"kind":"DisclosureReveal", "event": <the signed CloudEvent as it was sent, digests in place>,
//    "pointer": "<RFC 6901 JSON Pointer to the digest inside the event>", "revealed": [salt, value]}
// The verifier needs the logged entry (from an EventProof, which proves it under a witnessed
// checkpoint and checks its device signature, or from a verified bundle): the event must hash to
// the entry's eventHash (payload_hash_mismatch), the pointer must land on a Disclosure
// (bad_disclosure), and sha256(JCS([salt, value])) must be that digest (bad_disclosure). The
// sequencer's copy of the payload plays no part, so this holds after the payload is erased.
// Left out: revealing several values at once (one reveal each) and nested digests.

import { fail, ok, type Result } from '../errors.ts';
import { isVendorMember } from '../signing/document-hash.ts';
import { verifyDisclosure, type Disclosure } from './disclosure.ts';
import { eventHash, readCloudEvent, type CloudEvent } from '../cloudevent/read.ts';
import { isHashString } from '../encoding/wire.ts';

export interface DisclosureReveal {
  kind: 'DisclosureReveal';
  event: CloudEvent;
  pointer: string;
  revealed: [string, unknown];
}

export interface RevealVerdict {
  eventHash: string;
  source: string;
  id: string;
  pointer: string;
  value: unknown;
}

const MEMBERS = ['kind', 'event', 'pointer', 'revealed'];

/** RFC 6901 reference tokens of a JSON Pointer, or undefined when it is not one. */
export function pointerTokens(p: string): string[] | undefined {
  if (p === '') return [];
  if (!p.startsWith('/') || /~[^01]|~$/.test(p)) return undefined;
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value a pointer names inside `doc` (own members and array indexes only). */
export function atPointer(doc: unknown, p: string): { found: true; value: unknown } | { found: false } {
  const tokens = pointerTokens(p);
  if (!tokens) return { found: false };
  let cur: unknown = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(t) || Number(t) >= cur.length) return { found: false };
      cur = cur[Number(t)];
    } else if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, t)) {
      cur = (cur as Record<string, unknown>)[t];
    } else return { found: false };
  }
  return { found: true, value: cur };
}

/** A Disclosure object exactly: {"disclosure": "sha256:…"}. */
export function isDisclosure(v: unknown): v is Disclosure {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.keys(v).length === 1 &&
    isHashString((v as Record<string, unknown>).disclosure)
  );
}

export function readDisclosureReveal(json: unknown): Result<DisclosureReveal> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o) || o.kind !== 'DisclosureReveal')
    return fail('invalid_document', 'a reveal is {"kind":"DisclosureReveal","event","pointer","revealed"}', { path: '/kind' });
  for (const k of Object.keys(o))
    if (!MEMBERS.includes(k) && !isVendorMember(k)) return fail('unknown_field', `unknown member /${k}`, { path: `/${k}` });
  if (typeof o.pointer !== 'string' || pointerTokens(o.pointer) === undefined || o.pointer === '')
    return fail('invalid_document', 'pointer is an RFC 6901 JSON Pointer into the event, such as /data/household', { path: '/pointer' });
  const ce = readCloudEvent(o.event);
  if (!ce.ok) return { ...ce, detail: `event: ${ce.detail}` };
  if (!Array.isArray(o.revealed) || o.revealed.length !== 2 || typeof o.revealed[0] !== 'string')
    return fail('bad_disclosure', 'revealed is [salt, value]', { path: '/revealed' });
  return ok(o as unknown as DisclosureReveal);
}

/**
 * Check a reveal against the eventHash of the logged entry (taken from a proved EventProof or a
 * verified bundle). Codes: invalid_document/unknown_field/invalid_event (the reveal's shape),
 * payload_hash_mismatch (not the logged event), bad_disclosure (no digest there, or another value).
 */
export function verifyDisclosureReveal(json: unknown, loggedEventHash: string): Result<RevealVerdict> {
  const r = readDisclosureReveal(json);
  if (!r.ok) return r;
  const { event, pointer, revealed } = r.value;
  const h = eventHash(event);
  if (!h.ok) return h;
  if (h.value !== loggedEventHash)
    return fail('payload_hash_mismatch', `the revealed event hashes to ${h.value}, the logged entry says ${loggedEventHash}`);
  const at = atPointer(event, pointer);
  if (!at.found) return fail('bad_disclosure', `the event has nothing at ${pointer}`, { path: pointer });
  if (!isDisclosure(at.value)) return fail('bad_disclosure', `the value at ${pointer} is not a {"disclosure":"sha256:…"} digest`);
  const v = verifyDisclosure(at.value, revealed);
  if (!v.ok) return v;
  return ok({ eventHash: h.value, source: event.source, id: event.id, pointer, value: v.value });
}
