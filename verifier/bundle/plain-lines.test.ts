// The one plain check a bundle line gets (verifier/encoding/jcs.ts isPlainJsonText) and the route
// it opens to the direct JCS encoders (their `stringsPlain` argument): the check holds what it
// claims of every string JSON.parse reads from the text, on hostile text (escapes, raw and escaped
// lone surrogates, control characters, quotes, non-BMP characters); each encoder writes the same
// text, or refuses alike, with the route as without it; and a bundle whose lines are respelled
// with escapes (the same values, read off the route) gets the same report, while a value changed
// through an escape is still caught.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPlainJsonString, isPlainJsonText } from '../encoding/jcs.ts';
import { entryCanonicalText, type Entry } from '../documents/entry.ts';
import { encodeCookwalasig, eventHash, type CloudEvent } from '../cloudevent/read.ts';
import { signingHeader, signingHeaderText, type Signature } from '../signing/signature.ts';
import { generateLog } from '../../testkit/log-generator.ts';
import { FAST_PATH_KEYS, jsonTree, jsonTreeWith, renderJson } from '../../testkit/json-arbitraries.ts';
import { createBundleVerifier } from './verifier.ts';
import type { BundleReport } from './report.ts';

/** Every string a value holds, member names included. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v !== null && typeof v === 'object')
    for (const k of Object.keys(v)) {
      out.push(k);
      stringsOf((v as Record<string, unknown>)[k], out);
    }
  return out;
}

/** The text with every escaped surrogate written raw (not an escaped backslash before `u`): JSON.parse reads the same value. */
const rawSurrogates = (text: string) =>
  text.replace(/(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/gi, (_, run: string, h: string) => run + String.fromCharCode(parseInt(h, 16)));

const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('a"b', 'a\\b', '\u0001', '\u001f', '\ud800', 'x\udc00', '\ud83d\ude00', 'é', '/', '\u2028', ''),
);

/** The outcome of a call: its value, or the message it threw. */
function outcome(f: () => unknown): unknown {
  try {
    return { value: f() };
  } catch (e) {
    return { threw: (e as Error).message };
  }
}

const g = generateLog({ events: 24, checkpointEvery: 8, eraseEvery: 6, devices: 3 });
const lines = [...g.lines()].join('').split('\n');
lines.pop();
const entryLines = lines.filter((l) => l.startsWith('{"kind":"Event"'));
const payloadLines = lines.filter((l) => l.startsWith('{"kind":"Payload"'));

describe('isPlainJsonText', () => {
  it('accepts only text whose every string, names included, isPlainJsonString accepts (property)', () => {
    let plain = 0;
    const text = fc.oneof(
      jsonTree.map((t) => renderJson(t)),
      jsonTree.map((t) => rawSurrogates(renderJson(t))),
      jsonTreeWith(FAST_PATH_KEYS, true).map((t) => renderJson(t)),
      fc.tuple(hostile, hostile).map(([k, v]) => `{"${k}":"${v}"}`), // raw: often not JSON at all
      fc.tuple(hostile, hostile).map(([k, v]) => rawSurrogates(JSON.stringify({ [k]: [v, { x: v }] }))),
    );
    fc.assert(
      fc.property(text, (t) => {
        let v: unknown;
        try {
          v = JSON.parse(t);
        } catch {
          return;
        }
        if (!isPlainJsonText(t)) return;
        plain++;
        for (const s of stringsOf(v)) expect(isPlainJsonString(s), JSON.stringify(s)).toBe(true);
      }),
      { numRuns: 1000 },
    );
    expect(plain).toBeGreaterThan(50); // the property met plain text, not only refusals
    expect(isPlainJsonText('{"a":"\\u0041"}')).toBe(false);
    expect(isPlainJsonText('{"a":"\ud800"}')).toBe(false);
    expect(isPlainJsonText('{"a":"\ud83d\ude00"}')).toBe(false);
    expect(isPlainJsonText(entryLines[0])).toBe(true);
  });
});

describe('the direct encoders write the same text with stringsPlain as without', () => {
  const value = fc.oneof(hostile, fc.constantFrom<unknown>(5, -0, 1e21, null, true, { a: 1 }, [1], 'plain-value'));
  const respell = fc.constantFrom(
    (v: unknown) => JSON.stringify(v),
    (v: unknown) => rawSurrogates(JSON.stringify(v)),
  );

  it('entryCanonicalText, signingHeaderText and encodeCookwalasig on entries with one member changed (property)', () => {
    const fields = [
      'log',
      'prev',
      'sequencedAt',
      'eventHash',
      'ce.id',
      'ce.source',
      'ce.type',
      'ce.subject',
      'eventSignature.alg',
      'eventSignature.kid',
      'eventSignature.sig',
      'eventSignature.signedAt',
    ];
    fc.assert(
      fc.property(fc.nat(entryLines.length - 1), fc.constantFrom(...fields), value, respell, (i, field, x, spell) => {
        const e = JSON.parse(entryLines[i]) as Record<string, Record<string, unknown>>;
        const [a, b] = field.split('.');
        if (b === undefined) (e as Record<string, unknown>)[a] = x;
        else e[a][b] = x;
        const text = spell(e);
        const v = JSON.parse(text) as Entry;
        const plain = isPlainJsonText(text);
        expect(outcome(() => entryCanonicalText(v, plain))).toEqual(outcome(() => entryCanonicalText(v)));
        const h = signingHeader(v.eventSignature, v.eventHash, 'Event');
        expect(outcome(() => signingHeaderText(h, plain))).toEqual(outcome(() => signingHeaderText(h)));
        expect(outcome(() => encodeCookwalasig(v.eventSignature as Signature, plain))).toEqual(
          outcome(() => encodeCookwalasig(v.eventSignature)),
        );
      }),
      { numRuns: 600 },
    );
  });

  it('eventHash on events with one attribute or data member changed or added (property)', () => {
    const names = fc.constantFrom(
      'id',
      'source',
      'type',
      'subject',
      'time',
      'datacontenttype',
      'xvendor',
      'data.step',
      'data.note',
      'data.x\u00e9',
      'data',
    );
    fc.assert(
      fc.property(fc.nat(payloadLines.length - 1), names, value, respell, (i, name, x, spell) => {
        const p = JSON.parse(payloadLines[i]) as { event: Record<string, unknown> };
        const [a, b] = name.split('.');
        if (b === undefined) p.event[a] = x;
        else if (p.event.data !== null && typeof p.event.data === 'object') (p.event.data as Record<string, unknown>)[b] = x;
        const text = spell(p);
        const ev = (JSON.parse(text) as { event: CloudEvent }).event;
        expect(eventHash(ev, isPlainJsonText(text))).toEqual(eventHash(ev));
      }),
      { numRuns: 600 },
    );
  });
});

async function verify(ls: string[]): Promise<BundleReport> {
  const checkpointSeqs = ls
    .map((l) => JSON.parse(l) as { kind?: string; seq: number })
    .filter((d) => d.kind === 'Checkpoint')
    .map((d) => d.seq);
  const v = createBundleVerifier({ policy: g.policy, keys: g.deviceKeys, checkpointSeqs, idSalt: new Uint8Array(16) });
  for (const l of ls) await v.line(l);
  return v.end();
}

/** The first character of the line's first string value written as a \u escape. */
const escapeFirst = (line: string) => line.replace(/":"(.)/, (_, c: string) => `":"\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('a bundle read off the plain route', () => {
  it('gets the same report when every line is respelled with an escape', async () => {
    const plain = await verify(lines);
    expect(plain.valid).toBe(true);
    expect(plain.payloads.erased).toBeGreaterThan(0);
    const respelled = lines.map(escapeFirst);
    expect(respelled.filter((l) => !isPlainJsonText(l)).length).toBe(lines.length);
    expect(await verify(respelled)).toEqual(plain);
  });

  it('still names a value changed through an escape, in an entry and in a payload', async () => {
    const at = lines.findIndex((l) => l.startsWith('{"kind":"Event"') && l.includes('"id":"ev-'));
    const entry = JSON.parse(lines[at]) as Entry;
    const changed = [...lines];
    // "ev-N" spelled "\u0066v-N": another id, so another entry hash than its `hash` member.
    changed[at] = lines[at].replace('"id":"ev-', '"id":"\\u0066v-');
    const r = await verify(changed);
    expect(r.failures.map((f) => [f.kind, f.seq])).toContainEqual(['entry_hash_mismatch', entry.seq]);

    const pat = at + 1;
    expect(lines[pat].startsWith('{"kind":"Payload"')).toBe(true);
    const payload = [...lines];
    payload[pat] = lines[pat].replace('"id":"ev-', '"id":"\\u0066v-');
    const q = await verify(payload);
    expect(q.failures.map((f) => [f.kind, f.seq])).toContainEqual(['payload_hash_mismatch', entry.seq]);
  });
});
