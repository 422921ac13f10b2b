// auditor/trust-files.ts: the auditor's trust inputs read from files (docs/design.md §4, §8): the
// witness policy (verifier/documents/policy.ts readWitnessPolicy) and the optional key cache
// ({"kind":"KeyCache","keys":[…]}, read strictly by verifier/documents/read.ts). A file that cannot be read or does
// not hold the document is "unusable input" (InputError, exit 2 in the CLIs), never a verdict.
// Both are read as I-JSON (verifier/encoding/strict-json.ts): a member named twice is duplicate_member.

import { createReadStream } from 'node:fs';
import { MAX_JSON_LENGTH } from '../verifier/encoding/index.ts';
import { parseJson, readDocument } from '../verifier/documents/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';

export class InputError extends Error {
  override readonly name = 'InputError';
}

export async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    // Read up to the strict reader's bound and no further: a huge file is refused, not held.
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      n += c.length;
      if (n > MAX_JSON_LENGTH) throw new InputError(`the ${what} ${path} is refused: body_too_large: longer than ${MAX_JSON_LENGTH} bytes`);
      chunks.push(c);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read the ${what} ${path}: ${(e as Error).message}`);
  }
  const j = parseJson(text);
  if (!j.ok) throw new InputError(`the ${what} ${path} is refused: ${j.code}: ${j.detail}`);
  return j.value;
}

export async function readPolicyFile(path: string): Promise<WitnessPolicy> {
  const r = readWitnessPolicy(await readJsonFile(path, 'policy'));
  if (!r.ok) throw new InputError(`the policy ${path} is not a WitnessPolicy: ${r.code}: ${r.detail}`);
  return r.value;
}

export async function readKeyCacheFile(path: string | undefined): Promise<KeyRecord[]> {
  if (path === undefined) return [];
  const r = readDocument('KeyCache', await readJsonFile(path, 'key cache'));
  if (!r.ok) throw new InputError(`the key cache ${path} is not a KeyCache: ${r.code}: ${r.detail}`);
  return r.value.all();
}
