// web/src/witness-page/main.ts: the status page a witness serves at its `/` (docs/design.md §7, §12b),
// over its read-only status API (witness/server/status-api.ts): who this witness is (its KeyRecord,
// peer id), the logs it follows with the last checkpoint it cosigned for each (seq, root, when),
// its own cosignature on that checkpoint checked IN THE PAGE against its KeyRecord, and every
// ForkProof it holds, each downloadable so an auditor can check it offline (the verifier page or
// `cookwala verify-fork` with the log's policy: the sequencer key comes from the auditor).

import { setDefaultBackend } from '../../../verifier/crypto/index.ts';
import { createNobleBackend } from '../../../verifier/crypto/index.ts';
import { computeHash, type JsonObject } from '../../../verifier/signing/index.ts';
import { verifyHashSignature } from '../../../verifier/signing/index.ts';
import type { Checkpoint } from '../../../verifier/documents/index.ts';
import type { ForkProof } from '../../../verifier/documents/index.ts';
import type { NoteForkProof } from '../../../verifier/documents/index.ts';
import type { KeyRecord } from '../../../verifier/signing/index.ts';
import { age, byId, download, fill, h, shortHash } from '../lib/dom.ts';
import { getJson } from '../lib/http.ts';

setDefaultBackend(createNobleBackend());

interface FollowedLog {
  log: string;
  sequencer: string;
  seq: number | null;
  root: string | null;
  head: string | null;
  updatedAt: string | null;
  checkpoint: Checkpoint | null;
}

/** seq, a and b of a fork proof: JSON checkpoints (root and head) or a C2SP log's two signed notes (size and root lines). */
function forkCells(f: ForkProof | NoteForkProof): HTMLElement[] {
  if (f.kind === 'NoteForkProof') {
    const [, size, rootA] = f.a.split('\n');
    const rootB = f.b.split('\n')[2];
    return [
      h('td', { 'data-label': 'seq' }, size ?? ''),
      h('td', { 'data-label': 'a' }, 'signed note, root ', shortHash(rootA)),
      h('td', { 'data-label': 'b' }, 'signed note, root ', shortHash(rootB)),
    ];
  }
  return [
    h('td', { 'data-label': 'seq' }, f.a.seq),
    h('td', { 'data-label': 'a' }, 'root ', shortHash(f.a.root), h('div', {}, 'head ', shortHash(f.a.head))),
    h('td', { 'data-label': 'b' }, 'root ', shortHash(f.b.root), h('div', {}, 'head ', shortHash(f.b.head))),
  ];
}

function badge(kind: 'good' | 'bad' | 'warn', text: string): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}

/** This witness's cosignature on cp, checked with its own KeyRecord. */
function ownCosignature(cp: Checkpoint, me: KeyRecord | undefined): HTMLElement {
  if (!me) return badge('warn', 'not checked');
  const sig = cp.signature.slice(1).find((s) => s.kid === me.kid);
  if (!sig) return badge('warn', 'no cosignature by this witness');
  const hash = computeHash(cp as unknown as JsonObject);
  if (!hash.ok) return badge('bad', `✗ ${hash.code}`);
  const r = verifyHashSignature(hash.value, 'Checkpoint', sig, me, { role: 'witness' });
  return r.ok ? badge('good', `✓ cosigned ${age(sig.signedAt)}`) : badge('bad', `✗ ${r.code}`);
}

async function main(): Promise<void> {
  fill(byId('host'), location.host);
  const [wk, logs, forks] = await Promise.allSettled([
    getJson<{ keys?: KeyRecord[] }>('/.well-known/cookwala.json'),
    getJson<{ logs: FollowedLog[]; peerId?: string; multiaddrs?: string[] } & Record<string, unknown>>('/v1/logs'),
    getJson<{ forks: Array<ForkProof | NoteForkProof> }>('/v1/forks'),
  ]);
  const me = wk.status === 'fulfilled' ? wk.value.keys?.[0] : undefined;
  const who = byId('who');
  if (me) {
    const peer = logs.status === 'fulfilled' ? logs.value.peerId : undefined;
    fill(
      who,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'witness key'),
        h('dd', { id: 'witness-kid' }, h('code', {}, me.kid), ` (${me.alg}, ${me.owner})`),
        h('dt', {}, 'public key'),
        h('dd', {}, h('code', { class: 'mono' }, me.publicKey)),
        peer ? [h('dt', {}, 'libp2p peer'), h('dd', {}, h('code', { class: 'mono' }, peer))] : null,
      ),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', onclick: () => download(`${me.kid}.keyrecord.json`, JSON.stringify(me, null, 2) + '\n') },
          'Download the witness KeyRecord',
        ),
      ),
    );
  } else fill(who, h('p', { class: 'error' }, wk.status === 'rejected' ? String((wk.reason as Error).message) : 'no key'));

  const box = byId('followed');
  if (logs.status === 'rejected') fill(box, h('p', { class: 'error' }, String((logs.reason as Error).message)));
  else if (logs.value.logs.length === 0)
    fill(box, h('p', { class: 'note' }, 'This witness follows no log yet (logs are admitted by its configuration).'));
  else {
    fill(
      box,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'stack', id: 'log-table' },
          h(
            'thead',
            {},
            h('tr', {}, ...['log', 'sequencer key', 'last cosigned', 'root', 'cosignature'].map((c) => h('th', { scope: 'col' }, c))),
          ),
          h(
            'tbody',
            {},
            ...logs.value.logs.map((l) =>
              h(
                'tr',
                { 'data-log': l.log },
                h('td', { 'data-label': 'log', class: 'wrap' }, h('code', {}, l.log)),
                h('td', { 'data-label': 'sequencer' }, h('code', {}, l.sequencer)),
                h(
                  'td',
                  { 'data-label': 'last cosigned' },
                  l.seq === null ? 'nothing yet' : `seq ${l.seq}`,
                  l.updatedAt ? h('div', { class: 'note' }, `${l.updatedAt} (${age(l.updatedAt)})`) : null,
                ),
                h('td', { 'data-label': 'root' }, l.root ? shortHash(l.root) : ''),
                h('td', { 'data-label': 'cosignature' }, l.checkpoint ? ownCosignature(l.checkpoint, me) : ''),
              ),
            ),
          ),
        ),
      ),
    );
  }

  const fbox = byId('forks');
  if (forks.status === 'rejected') fill(fbox, h('p', { class: 'error' }, String((forks.reason as Error).message)));
  else if (forks.value.forks.length === 0)
    fill(
      fbox,
      h(
        'p',
        { id: 'no-forks' },
        badge('good', 'none'),
        ' No fork proof: every checkpoint this witness has seen is consistent with the others.',
      ),
    );
  else {
    fill(
      fbox,
      h(
        'p',
        {},
        badge('bad', `${forks.value.forks.length} fork proof(s)`),
        ' Each pair of checkpoints is signed by one sequencer key at one seq with different trees: the sequencer showed different logs to different parties.',
      ),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'stack', id: 'fork-table' },
          h('thead', {}, h('tr', {}, ...['log', 'seq', 'a', 'b', ''].map((c) => h('th', { scope: 'col' }, c)))),
          h(
            'tbody',
            {},
            ...forks.value.forks.map((f, i) =>
              h(
                'tr',
                {},
                h('td', { 'data-label': 'log', class: 'wrap' }, h('code', {}, f.log)),
                ...forkCells(f),
                h(
                  'td',
                  { 'data-label': '' },
                  h(
                    'button',
                    { type: 'button', onclick: () => download(`fork-proof-${i + 1}.json`, JSON.stringify(f, null, 2) + '\n') },
                    'Download',
                  ),
                ),
              ),
            ),
          ),
        ),
      ),
      h(
        'p',
        { class: 'note' },
        'Check a fork proof offline with the verifier page or ',
        h('code', {}, 'cookwala verify-fork PROOF --policy POLICY'),
        ': the sequencer key must come from your policy, not from this page.',
      ),
    );
  }
}

void main();
