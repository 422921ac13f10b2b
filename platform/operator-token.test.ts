// Where a command finds the operator token: a file's last non-empty line (the newest token while
// the sequencer holds two during a rotation), else the environment; short or unreadable files are
// refused with a line naming the flag.
import { afterAll, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOperatorToken, TOKEN_ENV } from './operator-token.ts';
import { tempDirs } from '../testkit/tmp.ts';

const tmp = tempDirs('cookwala-token-');
afterAll(() => tmp.cleanup());

it('reads the last line of a token file, the environment otherwise', async () => {
  const dir = await tmp.make();
  const f = join(dir, 'operator.token');
  await writeFile(f, `${'o'.repeat(43)}\n${'n'.repeat(43)}\n\n`);
  expect(await readOperatorToken({ file: f })).toEqual({ ok: true, value: { token: 'n'.repeat(43), from: f } });
  await writeFile(f, `${'o'.repeat(43)}\nshort\n`);
  expect(await readOperatorToken({ file: f })).toMatchObject({ ok: false, code: 'bad_request' });
  expect(await readOperatorToken({ file: join(dir, 'none') })).toMatchObject({ ok: false, code: 'not_found' });
  expect(await readOperatorToken({ env: { [TOKEN_ENV]: ' e'.padEnd(30, 'e') } })).toMatchObject({ ok: true, value: { from: TOKEN_ENV } });
  expect(await readOperatorToken({ env: {} })).toEqual({ ok: true, value: undefined });
});
