// A logs/v0 list at scale (docs/design.md §12a: a witness admits the network's logs by list): 5,000 new
// logs are parsed without the per-key Ed25519 rule and stored durably in a few synced batches (the
// state's group commit, one chunk of admissions per batch, not one fsync per log), and a listed
// vkey that breaks the key rule is admitted but never trusted: the verifier made at its first use
// refuses it (no verifier), while an eager parse of the same list names it weak_key.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { Point } from '@noble/ed25519';
import { tempDirs } from '../../testkit/tmp.ts';
import { T8 } from '../../testkit/ed25519-adversarial.ts';
import { formatVerifierKey, SIG_ED25519 } from '../../verifier/c2sp/note/index.ts';
import { createLogRegistry, parseLogListV0 } from './c2sp-logs.ts';
import { refreshLogLists } from './log-list-follow.ts';
import { openStateStore, type StateStore } from './state.ts';

const tmp = tempDirs('cookwala-loglist-scale-');
const stores: StateStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await tmp.cleanup();
});

const N = 5000;
const rawPub = () => {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
};
const origin = (i: number) => `scale.example/log-${i}`;
const WEAK = 'scale.example/weak';

describe('a logs/v0 list of 5,000 logs', () => {
  it('is admitted in a few synced batches, and a weak listed key is admitted but never trusted', async () => {
    const lines = ['logs/v0'];
    for (let i = 0; i < N; i++) lines.push(`vkey ${formatVerifierKey(origin(i), SIG_ED25519, rawPub())}`, 'qpd 24', 'contact ops');
    const weak = Point.fromBytes(rawPub()).add(T8).toBytes();
    lines.push(`vkey ${formatVerifierKey(WEAK, SIG_ED25519, weak)}`, 'qpd 24', 'contact ops');
    const text = lines.join('\n') + '\n';
    // Eager (the rule per key, about 1 ms each): the weak one is named; shown on a short list.
    const short = ['logs/v0', ...lines.slice(1, 4), ...lines.slice(-3)].join('\n') + '\n';
    const eager = parseLogListV0(short);
    expect(eager.ok ? 'ok' : eager.detail).toMatch(/invalid vkey: vkey scale\.example\/weak.*mixed-order/);
    expect(parseLogListV0(short, 'on-use').ok).toBe(true);

    const dir = await tmp.make();
    const listPath = join(dir, 'list.txt');
    await writeFile(listPath, text);
    const state = await openStateStore(join(dir, 'state'));
    stores.push(state);
    const reg = createLogRegistry([], []);
    if (!reg.ok) throw new Error(reg.detail);
    const sum = await refreshLogLists({ lists: [listPath], registry: reg.value, state });
    expect(sum).toEqual({ added: N + 1, refused: 0, failed: 0 });
    expect((await state.admissions()).length).toBe(N + 1);
    // One synced batch per chunk of 1,024 admissions (5 chunks), never one per log.
    expect(state.stats().records).toBe(N + 1);
    expect(state.stats().batches).toBeLessThanOrEqual(12);
    expect(reg.value.get(origin(17))).toHaveLength(1);
    expect(reg.value.get(WEAK)).toEqual([]);
  }, 60_000);
});
