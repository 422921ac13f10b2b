// The reason-code table (docs/design.md §11): codes unique and well spelled, each with a 4xx/5xx status and
// a meaning; fail()/ok()/unwrap()/ProtocolError carry codes, statuses and structured extras.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REASONS, fail, isReasonCode, ok, ProtocolError, statusOf, unwrap, type ReasonCode } from './errors.ts';

describe('REASONS', () => {
  const codes = Object.keys(REASONS) as ReasonCode[];

  it('has no code twice in the source (an object literal would silently keep the last)', () => {
    const src = readFileSync(fileURLToPath(new URL('./errors.ts', import.meta.url)), 'utf8');
    const table = src.slice(src.indexOf('export const REASONS'), src.indexOf('} as const'));
    const declared = [...table.matchAll(/^\s+([a-z0-9_]+):\s*\{\s*status:/gm)].map((m) => m[1]);
    expect(declared.length).toBe(codes.length);
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('spells every code in snake_case', () => {
    for (const c of codes) expect(c).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
  });

  it('gives every code a 4xx or 5xx status and a meaning', () => {
    for (const c of codes) {
      const r = REASONS[c] as { status: number; meaning: string };
      expect(Number.isInteger(r.status), c).toBe(true);
      expect(r.status >= 400 && r.status <= 599, `${c} ${r.status}`).toBe(true);
      expect(typeof r.meaning).toBe('string');
      expect(r.meaning.length, c).toBeGreaterThan(10);
    }
  });

  it('keeps the spec spellings and the codes the documents need', () => {
    for (const c of [
      'unsupported_version',
      'unknown_field',
      'invalid_document',
      'invalid_hash',
      'invalid_event',
      'legacy_signature',
      'bad_signature',
      'unknown_key',
      'key_revoked',
      'key_not_valid_at',
      'key_role_mismatch',
      'source_mismatch',
      'chain_broken',
      'entry_hash_mismatch',
      'hash_mismatch',
      'log_mismatch',
      'quorum_not_met',
      'not_a_fork',
      'bad_json',
    ]) {
      expect(isReasonCode(c), c).toBe(true);
    }
  });
});

describe('results and ProtocolError', () => {
  it('ok and fail build the two result shapes', () => {
    expect(ok(3)).toEqual({ ok: true, value: 3 });
    expect(fail('out_of_order', 'gap', { expected: 4 })).toEqual({ ok: false, code: 'out_of_order', detail: 'gap', expected: 4 });
  });

  it('fail() extras never override code or detail', () => {
    const f = fail('bad_json', 'x', { code: 'not_found', detail: 'y', ok: true });
    expect(f.ok).toBe(false);
    expect(f.code).toBe('bad_json');
    expect(f.detail).toBe('x');
  });

  it('isReasonCode refuses prototype names and non-strings', () => {
    expect(isReasonCode('toString')).toBe(false);
    expect(isReasonCode('__proto__')).toBe(false);
    expect(isReasonCode(42)).toBe(false);
    expect(isReasonCode('bad_json')).toBe(true);
  });

  it('statusOf and ProtocolError map codes to statuses', () => {
    expect(statusOf('unknown_key')).toBe(403);
    expect(statusOf('body_too_large')).toBe(413);
    const e = ProtocolError.from(fail('conflict', 'stale', { knownSeq: 9 }));
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ProtocolError');
    expect(e.code).toBe('conflict');
    expect(e.status).toBe(409);
    expect(e.extra).toEqual({ knownSeq: 9 });
    expect(e.message).toBe('conflict: stale');
    expect(new ProtocolError('not_found').message).toBe('not_found');
  });

  it('unwrap returns the value or throws the ProtocolError', () => {
    expect(unwrap(ok('v'))).toBe('v');
    expect(() => unwrap(fail('quorum_not_met', 'one of two'))).toThrowError(/quorum_not_met: one of two/);
    try {
      unwrap(fail('store_locked'));
    } catch (e) {
      expect((e as ProtocolError).status).toBe(503);
    }
  });
});
