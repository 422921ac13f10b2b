// conformance/topics/wycheproof.ts: the Wycheproof verify-file walk shared by the Ed25519 and
// ECDSA P-256 topics (testGroups[].tests[] with result valid / invalid / acceptable). Every test
// runs on every CryptoBackend and each run is one case. Policy for "acceptable" (legal but
// discouraged inputs): either verdict passes, but all backends must give the same one, since a
// witness and an auditor on different backends must never disagree (docs/design.md §3).

import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { createNobleBackend } from '../../verifier/crypto/index.ts';
import { createNodeBackend } from '../../verifier/crypto/index.ts';
import type { Tally } from '../tally.ts';

export interface WycheproofTest {
  tcId: number;
  msg: string;
  sig: string;
  result: 'valid' | 'invalid' | 'acceptable';
  comment?: string;
  flags?: string[];
}
export interface WycheproofGroup {
  tests: WycheproofTest[];
  [k: string]: unknown;
}

export const ACCEPTABLE_POLICY = 'Wycheproof "acceptable" cases pass with either verdict when every backend gives the same one';

export function backends(): CryptoBackend[] {
  return [createNodeBackend(), createNobleBackend()];
}

/** Hex as written in vector files (either case, even length); throws on anything else. */
export function vectorHex(s: unknown): Uint8Array {
  if (typeof s !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(s)) throw new Error(`not hex: ${String(s).slice(0, 40)}`);
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export interface GroupPlan<K> {
  /** The group's key, or a reason the whole group is skipped. */
  key(group: WycheproofGroup): { key: K } | { skip: string };
  /** The verdict of one backend; must not throw for malformed input (return false). */
  verify(backend: CryptoBackend, key: K, msg: Uint8Array, sig: Uint8Array, test: WycheproofTest): boolean;
}

export function runWycheproof<K>(file: string, doc: unknown, plan: GroupPlan<K>, t: Tally): void {
  const groups = (doc as { testGroups?: WycheproofGroup[] })?.testGroups;
  if (!Array.isArray(groups)) throw new Error('no testGroups[]');
  const bs = backends();
  for (const group of groups) {
    if (!Array.isArray(group?.tests)) throw new Error('a test group without tests[]');
    let k: { key: K } | { skip: string } | { bad: string };
    try {
      k = plan.key(group);
    } catch (e) {
      k = { bad: (e as Error).message };
    }
    for (const test of group.tests) {
      const ids = bs.map((b) => `tcId ${test.tcId} [${b.name}]`);
      if ('skip' in k) {
        for (const id of ids) t.skip(file, id, k.skip);
        continue;
      }
      if ('bad' in k) {
        for (const id of ids) t.fail(file, id, 'a readable group key', k.bad);
        continue;
      }
      let msg: Uint8Array;
      let sig: Uint8Array;
      try {
        msg = vectorHex(test.msg);
        sig = vectorHex(test.sig);
      } catch (e) {
        for (const id of ids) t.fail(file, id, 'hex msg and sig', (e as Error).message);
        continue;
      }
      const verdicts = bs.map((b) => {
        try {
          return plan.verify(b, k.key, msg, sig, test) ? 'valid' : 'invalid';
        } catch (e) {
          return `threw ${(e as Error).message}`;
        }
      });
      bs.forEach((_, i) => {
        if (test.result === 'acceptable') {
          t.note(ACCEPTABLE_POLICY);
          t.check(
            file,
            ids[i],
            `the same verdict on every backend (${verdicts.join(' / ')})`,
            verdicts.every((v) => v === verdicts[0])
              ? `the same verdict on every backend (${verdicts.join(' / ')})`
              : `backends disagree: ${verdicts.join(' / ')}`,
          );
        } else {
          t.check(file, ids[i], test.result, verdicts[i]);
        }
      });
    }
  }
}
