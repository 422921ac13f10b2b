// sequencer/mldsa-key.ts: the sequencer's optional ML-DSA-44 log key (docs/design.md §7a;
// docs/post-quantum.md), DIR/sequencer.mldsa44.skey: a signed-note skey
// `PRIVATE+KEY+<name>+<key ID>+base64(0x06 || 32-byte seed)` (c2sp.org/signed-note at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), mode 0600, written once and never overwritten, as
// `witness init --mldsa44` keeps the witness's. The seed is the key: every log of the sequencer signs
// its checkpoints with it under its own origin as key name (as the Ed25519 key does), so the skey's
// name is the first log's origin when created, and an imported one must name one of the logs.
// It leaves out rotation (a new key is a new vkey that auditors must be told of) and encrypted keys.
// Invariant: a file that is not a type 0x06 skey whose key ID matches its seed is refused, never used.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../verifier/index.ts';
import { formatSignerKey, parseSignerKey, SIG_MLDSA44 } from '../verifier/c2sp/note/index.ts';
import { createLogMldsaSigner, type LogMldsaSigner } from '../verifier/documents/index.ts';
import { writeFileOnce } from '../platform/index.ts';
import { DATA_FILES, type SequencerConfig } from './config.ts';

function readSkey(text: string, where: string): { name: string; seed: Uint8Array } {
  const k = parseSignerKey(text.trim());
  if (!k.ok) throw new ProtocolError(k.code, `${where}: ML-DSA-44 key: ${k.detail}`);
  if (k.value.type !== SIG_MLDSA44)
    throw new ProtocolError('unsupported_alg', `${where}: the key is of type 0x${k.value.type.toString(16)}, not ML-DSA-44 (0x06)`);
  return { name: k.value.name, seed: k.value.seed };
}

/**
 * Give the sequencer an ML-DSA-44 log key: `skey` imported (a type 0x06 skey named after one of its
 * logs) or a fresh seed. A different key already there is refused (descriptor_mismatch).
 */
export async function ensureMldsaKey(
  dir: string,
  config: Pick<SequencerConfig, 'logs'>,
  skey?: string,
): Promise<{ created: boolean; signer: LogMldsaSigner }> {
  const path = join(dir, DATA_FILES.mldsaKey);
  let text: string;
  if (skey !== undefined) {
    const k = readSkey(skey, 'import');
    if (!config.logs.some((l) => l.log === k.name))
      throw new ProtocolError(
        'descriptor_mismatch',
        `the key is named ${k.name}; a log key is named after one of this sequencer's logs (${config.logs.map((l) => l.log).join(', ')})`,
      );
    text = skey.trim();
  } else {
    const name = config.logs[0]?.log;
    if (name === undefined) throw new ProtocolError('invalid_document', 'an ML-DSA-44 log key needs a log to be named after');
    text = formatSignerKey(name, SIG_MLDSA44, randomBytes(32));
  }
  const created = await writeFileOnce(path, text + '\n', 0o600);
  const have = created ? text : (await readFile(path, 'utf8')).trim();
  if (!created && skey !== undefined && have !== text)
    throw new ProtocolError('descriptor_mismatch', `${path} holds another ML-DSA-44 key; it is never overwritten`);
  return { created, signer: createLogMldsaSigner(readSkey(have, path).seed) };
}

/** The ML-DSA-44 log signer from DIR, or undefined when the sequencer has no such key. */
export async function readMldsaKey(dir: string): Promise<LogMldsaSigner | undefined> {
  const path = join(dir, DATA_FILES.mldsaKey);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return createLogMldsaSigner(readSkey(text, path).seed);
}
