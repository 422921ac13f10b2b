// Admission of C2SP logs (docs/design.md §7a): the witness network's logs/v0 list format (as
// transparency-dev/witness-network cmd/validate/main.go at 04704dec18c08cbe079353d2b953aa9cf58f0d2f
// reads it), the add-only registry, and following a list file across a store reopen (a dropped
// log stays admitted; a changed vkey is refused and reported, never applied).

import { afterEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../../testkit/tmp.ts';
import { specSigner } from '../../testkit/c2sp-log.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import { createLogRegistry, parseLogListV0 } from './c2sp-logs.ts';
import { refreshLogLists, restoreAdmissions } from './log-list-follow.ts';
import { openStateStore, type StateStore } from './state.ts';
import { createWitnessCosigner, logVkeyOf } from './note-cosigner.ts';
import { admitC2spLog, readWitnessConfig } from './config.ts';

const tmp = tempDirs('cookwala-loglist-');
const stores: StateStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await tmp.cleanup();
});

const a = specSigner('a.example/log');
const b = specSigner('b.example/log');
const c = specSigner('c.example/log');

const LIST = (entries: string) => `#\n# A test list, in the shape of the network's testing list.\n#\nlogs/v0\n\n${entries}`;

describe('logs/v0', () => {
  it('parses the format: comments, blank lines, optional origin (default: the vkey name), CRLF', () => {
    const text = LIST(
      `vkey ${a.vkey}\nqpd 86400\ncontact ops@a.example\n\n  # comment\nvkey ${b.vkey}\r\norigin b.example/other-origin\r\nqpd 24\r\ncontact sysadmin (at) b.example\r\n`,
    );
    const r = parseLogListV0(text);
    expect(r.ok && r.value).toEqual([
      { vkey: a.vkey, origin: 'a.example/log', qpd: 86400, contact: 'ops@a.example' },
      { vkey: b.vkey, origin: 'b.example/other-origin', qpd: 24, contact: 'sysadmin (at) b.example' },
    ]);
    expect(parseLogListV0('logs/v0\n').ok).toBe(true);
  });

  it.each([
    ['no header', `vkey ${a.vkey}\nqpd 1\ncontact x\n`],
    ['another header', `logs/v1\nvkey ${a.vkey}\nqpd 1\ncontact x\n`],
    ['missing qpd', `logs/v0\nvkey ${a.vkey}\ncontact x\n`],
    ['qpd 0', `logs/v0\nvkey ${a.vkey}\nqpd 0\ncontact x\n`],
    ['qpd not a number', `logs/v0\nvkey ${a.vkey}\nqpd lots\ncontact x\n`],
    ['two origins', `logs/v0\nvkey ${a.vkey}\norigin x\norigin y\nqpd 1\ncontact x\n`],
    ['an invalid vkey', `logs/v0\nvkey a.example+00000000+AAAA\nqpd 1\ncontact x\n`],
    ['an incomplete last log', `logs/v0\nvkey ${a.vkey}\nqpd 1\n`],
    ['no contact details', `logs/v0\nvkey ${a.vkey}\nqpd 1\ncontact\n`],
    ['a truncated vkey', `logs/v0\nvkey ${a.vkey.replace(/\+[^+]+$/, '')}+AQ==\nqpd 1\ncontact x\n`],
    [
      'a witness (cosignature/v1) key as a log key',
      `logs/v0\nvkey ${createWitnessCosigner('w.example/w1', testKey('ll-w', 'witness').signer).vkey}\nqpd 1\ncontact x\n`,
    ],
  ])('refuses %s', (_name, text) => {
    expect(parseLogListV0(text).ok).toBe(false);
  });
});

describe('admission is add-only', () => {
  it('the registry refuses another key for a known origin, including a Cookwala log', () => {
    const fake = createFakeLog('kitchen.example.org/missions/reg', 'reg-seq');
    const reg = createLogRegistry([{ log: fake.origin, sequencer: fake.keyRecord }], [{ origin: 'a.example/log', vkey: a.vkey }]);
    expect(reg.ok).toBe(true);
    if (!reg.ok) return;
    expect(reg.value.vkeyOf(fake.origin)).toBe((logVkeyOf(fake.origin, fake.keyRecord) as { value: string }).value);
    expect(reg.value.admit({ origin: 'a.example/log', vkey: a.vkey })).toEqual({ ok: true, value: { added: false } });
    const changed = reg.value.admit({ origin: 'a.example/log', vkey: b.vkey });
    expect(!changed.ok && changed.code).toBe('descriptor_mismatch');
    expect(reg.value.admit({ origin: fake.origin, vkey: c.vkey }).ok).toBe(false);
    expect(reg.value.vkeyOf('a.example/log')).toBe(a.vkey);
  });

  it('the config admits by origin + vkey once and never switches the key', () => {
    const cfg = readWitnessConfig({ kind: 'WitnessConfig', name: 'w' });
    if (!cfg.ok) throw new Error(cfg.detail);
    const one = admitC2spLog(cfg.value, { origin: 'a.example/log', vkey: a.vkey });
    expect(one.ok && one.value.changed).toBe(true);
    if (!one.ok) return;
    expect(readWitnessConfig(JSON.parse(JSON.stringify(one.value.config))).ok).toBe(true);
    const same = admitC2spLog(one.value.config, { origin: 'a.example/log', vkey: a.vkey });
    expect(same.ok && same.value.changed).toBe(false);
    expect(admitC2spLog(one.value.config, { origin: 'a.example/log', vkey: b.vkey }).ok).toBe(false);
  });

  it('follows a list file: adds, keeps a dropped log after a reopen, refuses a changed vkey', async () => {
    const dir = await tmp.make();
    const listPath = join(dir, 'log-list');
    await writeFile(listPath, LIST(`vkey ${a.vkey}\nqpd 24\ncontact a\n\nvkey ${b.vkey}\nqpd 24\ncontact b\n`));
    let state = await openStateStore(join(dir, 'state'));
    stores.push(state);
    const mk = () => {
      const r = createLogRegistry([], []);
      if (!r.ok) throw new Error(r.detail);
      return r.value;
    };
    const reg1 = mk();
    const added: string[] = [];
    const s1 = await refreshLogLists({ lists: [listPath], registry: reg1, state, onAdded: (o) => void added.push(o) });
    expect(s1).toEqual({ added: 2, refused: 0, failed: 0 });
    expect(added).toEqual(['a.example/log', 'b.example/log']);

    // The list now drops b, gives a another key, adds c; and the witness restarted in between.
    await state.close();
    stores.splice(0);
    state = await openStateStore(join(dir, 'state'));
    stores.push(state);
    const reg2 = mk();
    expect(await restoreAdmissions({ registry: reg2, state })).toBe(2);
    const a2 = specSigner('a.example/log');
    await writeFile(listPath, LIST(`vkey ${a2.vkey}\nqpd 24\ncontact a\n\nvkey ${c.vkey}\nqpd 24\ncontact c\n`));
    const refused: string[] = [];
    const s2 = await refreshLogLists({
      lists: [listPath],
      registry: reg2,
      state,
      onRefused: (o, _s, d) => void refused.push(`${o}: ${d}`),
    });
    expect(s2).toEqual({ added: 1, refused: 1, failed: 0 });
    expect(refused[0]).toMatch(/^a\.example\/log: listed with vkey/);
    expect([reg2.vkeyOf('a.example/log'), reg2.vkeyOf('b.example/log'), reg2.vkeyOf('c.example/log')]).toEqual([a.vkey, b.vkey, c.vkey]);

    // An unreadable or malformed list changes nothing.
    await writeFile(listPath, 'logs/v9\n');
    const errors: string[] = [];
    const s3 = await refreshLogLists({
      lists: [listPath, join(dir, 'missing')],
      registry: reg2,
      state,
      onError: (s) => void errors.push(s),
    });
    expect(s3).toEqual({ added: 0, refused: 0, failed: 2 });
    expect(reg2.size()).toBe(3);
    expect((await state.admissions()).map((x) => x.origin).sort()).toEqual(['a.example/log', 'b.example/log', 'c.example/log']);
  });
});
