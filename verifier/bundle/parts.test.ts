// The bounded-memory parts of the bundle reader and its header: the (source, id) digest set finds
// every true duplicate and stays within its stated bytes; the missing-payload store matches
// erasures by seq and eventHash; the header reader is strict about type, version and members.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createIdSet } from './id-set.ts';
import { createMissingPayloads } from './missing-payloads.ts';
import { buildBundleHeader, checkBundleType, lineKind, readBundleHeader, readPayloadLine } from './format.ts';
import { createFailureLog, formatReport, type BundleReport } from './report.ts';
import { encodeCookwalasig } from '../cloudevent/read.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { textToBase64url } from '../encoding/wire.ts';
import type { Signature } from '../signing/signature.ts';

describe('payload cookwalasig', () => {
  it("encodeCookwalasig's direct text is the generic JCS one, on the direct path and off it (property)", () => {
    // Strings with quotes, escapes, lone surrogates and non-ASCII, and vendor members, reach the generic path.
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('a"b', 'a\\b', '\u0001', '\ud800', 'é'),
    );
    const sig = fc.record({ alg: fc.constantFrom('EdDSA', 'ES256'), kid: text, sig: text, signedAt: text });
    fc.assert(
      fc.property(sig, fc.option(fc.tuple(fc.constantFrom('x-a', 'x-b'), text), { nil: undefined }), (s, extra) => {
        const v: Record<string, unknown> = { ...s };
        if (extra) v[extra[0]] = extra[1];
        const c = canonicalize(v);
        if (c.ok) expect(encodeCookwalasig(v as unknown as Signature)).toBe(textToBase64url(c.value));
        else expect(() => encodeCookwalasig(v as unknown as Signature)).toThrow(c.detail);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bundle-id-set', () => {
  it('reports exactly the pairs seen before, whatever the strings (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })), { maxLength: 300 }), (pairs) => {
        const set = createIdSet({ initialSlots: 16 });
        const seen = new Set<string>();
        for (const [s, i] of pairs) {
          const key = JSON.stringify([s, i]);
          expect(set.add(s, i)).toBe(!seen.has(key));
          seen.add(key);
        }
        expect(set.size).toBe(seen.size);
      }),
      { numRuns: 100 },
    );
  });
  it('does not confuse (source, id) splits that concatenate alike, and keeps to ~27 bytes a pair', () => {
    const set = createIdSet();
    expect(set.add('ab', 'c')).toBe(true);
    expect(set.add('a', 'bc')).toBe(true);
    expect(set.add('a\u0000b', 'c')).toBe(true);
    for (let i = 0; i < 200_000; i++) set.add('urn:cookwala:device:d1', `ev-${i}`);
    expect(set.size).toBe(200_003);
    expect(set.bytes).toBeLessThanOrEqual(27 * 200_003);
    expect(set.add('urn:cookwala:device:d1', 'ev-123456')).toBe(false);
  });
  it('uses a fresh salt per run unless given one', () => {
    const salt = new Uint8Array(16).fill(1);
    const a = createIdSet({ salt });
    const b = createIdSet({ salt });
    expect(a.add('s', 'i')).toBe(b.add('s', 'i'));
  });
});

describe('bundle-missing', () => {
  const h = (n: number) => new Uint8Array(32).fill(n);
  it('explains a gap only with its seq and eventHash, once', () => {
    const m = createMissingPayloads();
    for (let s = 1; s <= 200; s += 3) m.add(s, h(s % 250));
    expect(m.count).toBe(67);
    expect(m.markErased(4, h(4), 300)).toEqual({ ok: true });
    expect(m.markErased(4, h(4), 301)).toEqual({ ok: false, why: 'already_erased', erasedBy: 300 });
    expect(m.markErased(7, h(8), 302)).toEqual({ ok: false, why: 'hash_differs' });
    expect(m.markErased(5, h(5), 303)).toEqual({ ok: false, why: 'not_missing' });
    expect(m.unexplained).toBe(66);
    const left: number[] = [];
    m.forEach((seq, by) => by === 0 || left.push(seq));
    expect(left).toEqual([4]);
  });
  it('refuses seqs out of order (a programmer error)', () => {
    const m = createMissingPayloads();
    m.add(5, h(1));
    expect(() => m.add(5, h(1))).toThrow(TypeError);
  });
});

describe('bundle-format', () => {
  const header = buildBundleHeader({ log: 'x.example/l', mode: 'full', seq: 3, checkpoints: 1, exportedAt: '2026-11-30T10:00:00.000Z' });
  it('reads its own header and refuses other types and majors', () => {
    expect(readBundleHeader(header)).toEqual({ ok: true, value: header });
    expect(checkBundleType({ ...header, schema_version: '1.12' }).ok).toBe(true);
    for (const [v, code] of [
      [{ ...header, type: 'x' }, 'bad_bundle_type'],
      [[], 'bad_bundle_type'],
      [{ ...header, schema_version: '2.0' }, 'unsupported_bundle_version'],
      [{ ...header, schema_version: '1' }, 'unsupported_bundle_version'],
      [{ ...header, schema_version: 1 }, 'unsupported_bundle_version'],
    ] as const) {
      expect((checkBundleType(v) as { code: string }).code).toBe(code);
    }
  });
  it('refuses unknown members (x- ignored) and malformed fields', () => {
    expect(readBundleHeader({ ...header, 'x-acme-note': 1 }).ok).toBe(true);
    expect(readBundleHeader({ ...header, note: 1 })).toMatchObject({ ok: false, code: 'unknown_field' });
    for (const bad of [
      { seq: -1 },
      { seq: 1.5 },
      { checkpoints: '1' },
      { mode: 'both' },
      { log: 'https://x/y' },
      { exportedAt: '2026-11-30T10:00:00Z' },
    ]) {
      expect(readBundleHeader({ ...header, ...bad })).toMatchObject({ ok: false, code: 'invalid_document' });
    }
  });
  it('knows its line kinds and payload lines strictly', () => {
    expect(['Log', 'KeyRecord', 'Event', 'Payload', 'Checkpoint'].map((kind) => lineKind({ kind }))).toEqual([
      'Log',
      'KeyRecord',
      'Event',
      'Payload',
      'Checkpoint',
    ]);
    expect([lineKind({ kind: 'ForkProof' }), lineKind(null), lineKind([]), lineKind({ type: 'cookwala-audit-bundle' })]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(readPayloadLine({ kind: 'Payload', seq: 2, event: {} }).ok).toBe(true);
    expect(readPayloadLine({ kind: 'Payload', seq: 0, event: {} })).toMatchObject({ code: 'invalid_document' });
    expect(readPayloadLine({ kind: 'Payload', seq: 2, event: {}, extra: 1 })).toMatchObject({ code: 'unknown_field' });
  });
});

describe('bundle-report', () => {
  it('caps the listed failures but counts them all, and sorts by seq', () => {
    const log = createFailureLog(3);
    for (const seq of [9, 2, 5, 7, 1]) log.add({ kind: 'chain_broken', seq, detail: '' });
    expect(log.total).toBe(5);
    expect(log.list().map((f) => f.seq)).toEqual([2, 5, 9]);
    expect(log.counts()).toEqual({ chain_broken: 5 });
  });
  it('renders the verdict first', () => {
    const r = {
      valid: false,
      exitCode: 1,
      lines: 1,
      entries: 0,
      payloads: { present: 0, erased: 0, missing: 0 },
      checkpoints: { count: 0, verified: 0 },
      witnessedThrough: 0,
      subjects: 0,
      keys: { trusted: 1, fromBundle: 0 },
      legacySignatures: 0,
      failures: [{ kind: 'truncated', detail: 'cut', expected: 3, found: 1 }],
      failureCounts: { truncated: 1 },
      failuresTotal: 1,
      erased: [],
      skipped: [],
      notes: [],
      memory: { idSetBytes: 0, missingPayloads: 0, subjects: 0 },
    } as BundleReport;
    const text = formatReport(r);
    expect(text.split('\n')[0]).toBe('INVALID: (unknown log)');
    expect(text).toMatch(/✗ truncated: cut\n\s+expected 3\n\s+found\s+1/);
  });
});
