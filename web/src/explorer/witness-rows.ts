// web/src/explorer/witness-rows.ts: the explorer's witness table (docs/design.md §12b, §4): one row per
// policy witness, because a witness is its key (verifier/signing/witness-identity.ts): its one
// name, its transports (libp2p multiaddr, C2SP HTTP URL), whether its cosignature counted on the
// checkpoint shown (decided IN THE PAGE by verifyCheckpoint, by key), and its live state as the
// sequencer's witness client reports it ("cosigned", "unreachable: connection refused, last tried
// …"). The caption says "N cosignatures (quorum K)". Left out: everything else of the checkpoint
// panel (checkpoint-panel.ts). Invariant: a witness is never listed twice, and a row says
// "cosigned" for this checkpoint only when the page's verification counted it.

import type { Checkpoint } from '../../../verifier/documents/index.ts';
import { verifyCheckpoint } from '../../../verifier/documents/index.ts';
import type { WitnessPolicy } from '../../../verifier/documents/index.ts';
import { witnessDisplayName } from '../../../verifier/signing/index.ts';
import { h } from '../lib/dom.ts';
import { badge, when } from './view.ts';

/** What GET /v1/logs/{log}/witnesses says of one witness (sequencer/explorer-routes.ts). */
export interface WitnessRowAnswer {
  name: string;
  kid: string;
  owner: string;
  transports: Array<{ transport: 'libp2p' | 'http'; addr: string }>;
  state: string;
  lastTriedAt: string | null;
  lastCosignedSeq: number | null;
  lastCosignedAt: string | null;
  lastError: string | null;
  latencyMs: number | null;
}

export interface WitnessesAnswer {
  log: string;
  quorum: number;
  witnesses: WitnessRowAnswer[];
  publisher: null | { quorumMissing: boolean; reason: string | null };
  vkey: string | null;
}

/** "3 cosignatures (quorum 2)": how many counted, and the policy's quorum; never "3 of 2". */
export function cosignatureCount(n: number, quorum: number): string {
  return `${n} cosignature${n === 1 ? '' : 's'} (quorum ${quorum})`;
}

/** The live state of a row in words: the state, and for a failing one when it was last tried. */
export function liveState(r: WitnessRowAnswer): string {
  if (r.state === 'cosigned') return `cosigned seq ${r.lastCosignedSeq ?? '–'}${r.latencyMs !== null ? ` in ${r.latencyMs} ms` : ''}`;
  return r.lastTriedAt ? `${r.state}, last tried ${r.lastTriedAt}` : r.state;
}

export function witnessTable(policy: WitnessPolicy | undefined, cp: Checkpoint | undefined, w: WitnessesAnswer | undefined): HTMLElement {
  const witnesses = policy?.witnesses ?? [];
  if (witnesses.length === 0) return h('p', { class: 'note' }, 'The policy names no witnesses (quorum 0): checkpoints are unwitnessed.');
  const verdict = cp && policy ? verifyCheckpoint(cp, policy) : undefined;
  const names = verdict ? (verdict.ok ? verdict.value.names : ((verdict.names as string[] | undefined) ?? [])) : [];
  const live = new Map((w?.witnesses ?? []).map((r) => [r.name, r]));
  const rows = witnesses.map((k) => {
    const name = witnessDisplayName(k);
    const r = live.get(name);
    const counted = names.includes(name);
    return h(
      'tr',
      { 'data-witness': name },
      h(
        'td',
        { 'data-label': 'witness', class: 'wrap' },
        h('code', {}, name),
        ...(r?.transports ?? []).map((t) => h('div', { class: 'note' }, `${t.transport} ${t.addr}`)),
      ),
      h('td', { 'data-label': 'this checkpoint' }, counted ? badge('good', '✓ cosigned') : badge('warn', 'no cosignature counted')),
      h(
        'td',
        { 'data-label': 'live state', class: 'wrap' },
        r
          ? r.state === 'cosigned'
            ? h('span', {}, liveState(r), r.lastCosignedAt ? h('div', { class: 'note' }, 'last cosigned ', when(r.lastCosignedAt)) : null)
            : h('span', { class: 'error' }, liveState(r))
          : 'no report from the sequencer',
      ),
    );
  });
  const quorum = policy?.quorum ?? w?.quorum ?? 0;
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack', id: 'witnesses' },
      h(
        'caption',
        {},
        `Witnesses: ${cosignatureCount(names.length, quorum)}${w?.publisher?.quorumMissing ? ' — quorum missing: ' + (w.publisher.reason ?? '') : ''}`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'witness'),
          h('th', { scope: 'col' }, 'this checkpoint'),
          h('th', { scope: 'col' }, 'live state'),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
  );
}
