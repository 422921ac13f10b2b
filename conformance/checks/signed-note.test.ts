// The C2SP signed-note vectors (conformance/vectors/signed-note, or $COOKWALA_VECTORS/signed-note):
// every key (valid ones with their fields and skeys, the invalid vkeys and all mutation cases),
// every note case with its verdict and details, every checkpoint body, signed checkpoint and
// parse-only example, scored by checkSignedNoteFile exactly as the conformance runner does. Never
// skipped: a missing folder fails "finds the three files".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { topicDir } from '../vectors-dir.ts';
import { checkSignedNoteFile } from './signed-note.ts';

const dir = topicDir('signed-note');

describe(`signed-note vectors in ${dir}`, () => {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  it('finds the three files', () => {
    expect(files.sort()).toEqual(['checkpoints.json', 'keys.json', 'notes.json']);
  });
  it.each(files)('%s: every case passes', (f) => {
    const doc = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    const checks = checkSignedNoteFile(doc);
    const want = { 'keys.json': 9 + 3 + 196, 'notes.json': 18, 'checkpoints.json': 6 + 2 + 3 }[f];
    expect(checks.length).toBe(want);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(new Set(checks.map((c) => c.id)).size).toBe(checks.length);
  });
});
