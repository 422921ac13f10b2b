// witness/server/config-public-url.test.ts: the witness config's `publicUrl` (the prefix /witness.v0.json
// and /about show behind a proxy) is an http(s) URL without query or fragment; anything else is
// refused with invalid_document and the config is not read.

import { describe, expect, it } from 'vitest';
import { readWitnessConfig } from './config.ts';

const base = { kind: 'WitnessConfig', name: 'w1', logs: [] };

describe('witness.json publicUrl', () => {
  it.each(['https://witness.example.org/w1/', 'http://127.0.0.1:8801', 'https://witness.example.org'])('accepts %s', (u) => {
    const r = readWitnessConfig({ ...base, publicUrl: u });
    expect(r.ok && r.value.publicUrl).toBe(u);
  });

  it.each([
    ['ftp://witness.example.org/'],
    ['https://w.example/?a=1'],
    ['https://w.example/#x'],
    ['witness.example.org'],
    [42],
    ['https://' + 'a'.repeat(600)],
  ])('refuses %s', (u) => {
    expect(readWitnessConfig({ ...base, publicUrl: u })).toMatchObject({ ok: false, code: 'invalid_document' });
  });
});
