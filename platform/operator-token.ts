// platform/operator-token.ts: where a command finds the sequencer's operator token,
// never required in argv (visible in `ps`): `--register-token-file FILE` (e.g. SEQ/operator.token,
// mode 0600), else the environment variable COOKWALA_OPERATOR_TOKEN, else `--register-token=T`
// (kept for scripts; a warning says it shows in `ps`). Pure but for reading FILE (bounded: a
// token file over 4 KiB is not a token). A file with several lines (the sequencer's during a
// token rotation, sequencer/auth.ts) gives its last line: the newest token. Invariant: the token itself is never printed.

import { readFile, stat } from 'node:fs/promises';
import type { Result } from '../verifier/index.ts';

export const TOKEN_ENV = 'COOKWALA_OPERATOR_TOKEN';

export interface TokenSources {
  flag?: string;
  file?: string;
  env?: NodeJS.ProcessEnv;
}

/** The token, or undefined when none was given; a file that does not read is one line naming --register-token-file. */
export async function readOperatorToken(s: TokenSources): Promise<Result<{ token: string; from: string } | undefined>> {
  if (s.file !== undefined) {
    try {
      const st = await stat(s.file);
      if (!st.isFile() || st.size > 4096)
        return { ok: false, code: 'bad_request', detail: `${s.file} is not a token file: check --register-token-file` };
      const t =
        (await readFile(s.file, 'utf8'))
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l !== '')
          .pop() ?? '';
      if (t.length < 16) return { ok: false, code: 'bad_request', detail: `${s.file} holds no usable token: check --register-token-file` };
      return { ok: true, value: { token: t, from: s.file } };
    } catch (e) {
      return {
        ok: false,
        code: 'not_found',
        detail: `cannot read ${s.file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): check --register-token-file`,
      };
    }
  }
  const env = (s.env ?? process.env)[TOKEN_ENV]?.trim();
  if (env) return { ok: true, value: { token: env, from: TOKEN_ENV } };
  if (s.flag !== undefined) return { ok: true, value: { token: s.flag, from: '--register-token' } };
  return { ok: true, value: undefined };
}
