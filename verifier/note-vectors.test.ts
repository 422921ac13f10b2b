// The shared C2SP signed-note vectors (../shared/vectors/signed-note or $COOKWALA_VECTORS):
// every key (valid ones with their fields and skeys, the invalid vkeys and all mutation cases),
// every note case with its verdict and details, every checkpoint body, signed checkpoint and
// parse-only example, scored by checkSignedNoteFile exactly as the conformance runner does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkSignedNoteFile } from './note.ts';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const vectors = process.env.COOKWALA_VECTORS ?? path.resolve(root, '../shared/vectors');
const dir = path.join(vectors, 'signed-note');
const present = existsSync(dir);

describe.skipIf(!present)(`signed-note vectors in ${dir}`, () => {
  const files = present ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
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
