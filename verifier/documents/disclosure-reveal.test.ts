// DisclosureReveal: one revealed value checked against the logged eventHash; every way a reveal can
// be wrong (another event, a pointer to no digest, another value, a short salt, a bad shape) is
// refused with its reason code, and the RFC 6901 pointer reading (escapes, arrays, own members).
import { describe, expect, it } from 'vitest';
import { atPointer, pointerTokens, readDisclosureReveal, verifyDisclosureReveal } from './disclosure-reveal.ts';
import { createDisclosure } from './disclosure.ts';
import { eventHash, type CloudEvent } from '../cloudevent/read.ts';

const salt = new Uint8Array(16).fill(7);
const d = createDisclosure({ people: 3 }, undefined, salt);
const event: CloudEvent = {
  specversion: '1.0',
  id: 'e-1',
  source: 'urn:cookwala:device:t',
  type: 'cookwala.execution.running',
  datacontenttype: 'application/json',
  data: { step: 1, household: d.digest, list: [1, d.digest], 'a/b': { '~x': d.digest } },
};
const logged = (eventHash(event) as { value: string }).value;
const reveal = (over: Record<string, unknown> = {}) => ({
  kind: 'DisclosureReveal',
  event,
  pointer: '/data/household',
  revealed: d.revealed,
  ...over,
});

describe('verifyDisclosureReveal', () => {
  it('proves the value at the pointer of the logged event', () => {
    expect(verifyDisclosureReveal(reveal(), logged)).toEqual({
      ok: true,
      value: { eventHash: logged, source: event.source, id: 'e-1', pointer: '/data/household', value: { people: 3 } },
    });
    expect(verifyDisclosureReveal(reveal({ pointer: '/data/list/1' }), logged).ok).toBe(true);
    expect(verifyDisclosureReveal(reveal({ pointer: '/data/a~1b/~0x' }), logged).ok).toBe(true);
  });

  it('refuses each wrong reveal with its code', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ revealed: [d.revealed[0], { people: 2 }] }, 'bad_disclosure'],
      [{ revealed: ['AAAA', { people: 3 }] }, 'bad_disclosure'],
      [{ revealed: 'x' }, 'bad_disclosure'],
      [{ pointer: '/data/step' }, 'bad_disclosure'],
      [{ pointer: '/data/nothing' }, 'bad_disclosure'],
      [{ pointer: '/data/list/2' }, 'bad_disclosure'],
      [{ pointer: 'data/household' }, 'invalid_document'],
      [{ event: { ...event, id: 'e-2' } }, 'payload_hash_mismatch'],
      [{ event: { ...event, specversion: '0.3' } }, 'invalid_event'],
      [{ kind: 'Reveal' }, 'invalid_document'],
      [{ extra: 1 }, 'unknown_field'],
    ];
    for (const [over, code] of cases)
      expect(verifyDisclosureReveal(reveal(over), logged), JSON.stringify(over)).toMatchObject({ ok: false, code });
    expect(readDisclosureReveal(reveal({ 'x-acme-note': 'kept aside' })).ok).toBe(true);
  });
});

describe('JSON Pointer', () => {
  it('reads RFC 6901 tokens, own members and array indexes only', () => {
    expect(pointerTokens('')).toEqual([]);
    expect(pointerTokens('/a~1b/~0c')).toEqual(['a/b', '~c']);
    expect(pointerTokens('a')).toBeUndefined();
    expect(pointerTokens('/a~2')).toBeUndefined();
    expect(atPointer({ a: [10, 20] }, '/a/1')).toEqual({ found: true, value: 20 });
    expect(atPointer({ a: [10, 20] }, '/a/01').found).toBe(false);
    expect(atPointer({}, '/toString').found).toBe(false);
    expect(atPointer({}, '/__proto__').found).toBe(false);
  });
});
