// web/src/verifier-page/report-view.ts: the verifier page's report (docs/design.md §8, §12b), the same
// facts as the CLI's human summary (verifier/bundle/report.ts formatReport) laid out for a screen:
// the verdict first (VALID, INVALID or UNUSABLE; PROVED / NOT PROVED for one event; FORK PROVEN /
// NOT A FORK PROOF), then the counts, then each named failure as a row (kind, seq, line, expected,
// found, detail), erased payloads and skipped checks. The JSON the CLI prints with --json is shown
// beneath it and offered as a download. Everything from the file is rendered as text.

import type { BundleReport, BundleFailure } from '../../../verifier/bundle/report.ts';
import type { EventProofOutput, ForkVerdict, Unusable } from '../lib/audit-checks.ts';
import { h, shortHash, show } from '../lib/dom.ts';

const SHOWN_FAILURES = 200;
const SHOWN_ERASED = 50;

export type Verdict = 'VALID' | 'INVALID' | 'UNUSABLE' | 'PROVED' | 'NOT PROVED' | 'FORK PROVEN' | 'NOT A FORK PROOF';

function verdictBox(v: Verdict, sub: string): HTMLElement {
  const cls = v === 'VALID' || v === 'PROVED' || v === 'FORK PROVEN' ? 'good' : v === 'UNUSABLE' ? 'unusable' : 'bad';
  return h('div', { class: `verdict ${cls}`, role: 'status' }, h('span', { id: 'verdict' }, v), h('span', { class: 'verdict-sub' }, sub));
}

function fact(name: string, ...value: Array<Node | string | number | undefined>): HTMLElement[] {
  return [h('dt', {}, name), h('dd', {}, ...value.map((x) => (x === undefined ? '' : x)))];
}

function failureTable(fs: readonly BundleFailure[], total: number): HTMLElement {
  const rows = fs
    .slice(0, SHOWN_FAILURES)
    .map((f) =>
      h(
        'tr',
        {},
        h('td', { 'data-label': 'kind' }, h('code', { class: 'kind' }, f.kind)),
        h('td', { 'data-label': 'seq' }, f.seq ?? ''),
        h('td', { 'data-label': 'line' }, f.line ?? ''),
        h('td', { 'data-label': 'expected', class: 'wrap' }, show(f.expected)),
        h('td', { 'data-label': 'found', class: 'wrap' }, show(f.found)),
        h(
          'td',
          { 'data-label': 'detail', class: 'wrap' },
          f.detail,
          f.upTo !== undefined
            ? h(
                'div',
                { class: 'note' },
                `first difference in seq ${f.seq}..${f.upTo}${f.firstBadEntry !== undefined ? `; first entry whose hash fails: seq ${f.firstBadEntry}` : ''}`,
              )
            : null,
          f.forkProof
            ? h(
                'div',
                { class: 'note' },
                `fork proof: checkpoints at seq ${f.forkProof.a.seq} with roots ${f.forkProof.a.root} and ${f.forkProof.b.root}`,
              )
            : null,
        ),
      ),
    );
  const more =
    total > rows.length
      ? h('p', { class: 'note' }, `… ${total - rows.length} more failures (counted above; the JSON lists ${fs.length})`)
      : null;
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'failures', id: 'failures' },
      h('caption', {}, 'Failures, in log order'),
      h('thead', {}, h('tr', {}, ...['kind', 'seq', 'line', 'expected', 'found', 'detail'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows),
    ),
    more,
  );
}

export function renderBundleReport(r: BundleReport | Unusable, meta: string): HTMLElement {
  if (!('lines' in r))
    return h(
      'div',
      {},
      verdictBox('UNUSABLE', 'the input cannot be checked (exit 2)'),
      h('p', { class: 'error', id: 'error' }, r.error),
      h('p', { class: 'note' }, meta),
    );
  const verdict: Verdict = r.exitCode === 2 ? 'UNUSABLE' : r.valid ? 'VALID' : 'INVALID';
  const latest = r.checkpoints.latest;
  const sub = `${r.log ?? '(unknown log)'}${r.mode ? ` (${r.mode})` : ''}`;
  const dl = h(
    'dl',
    { class: 'facts', id: 'facts' },
    fact('entries', h('span', { id: 'count-entries' }, r.entries), r.seq !== undefined ? ` (header seq ${r.seq})` : ''),
    fact(
      'payloads',
      h('span', { id: 'count-payloads' }, `${r.payloads.present} present, ${r.payloads.erased} erased, ${r.payloads.missing} missing`),
    ),
    fact('checkpoints', h('span', { id: 'count-checkpoints' }, `${r.checkpoints.count} (${r.checkpoints.verified} met the policy)`)),
    latest
      ? fact(
          'latest checkpoint',
          `seq ${latest.seq}, root `,
          shortHash(latest.root),
          `, witnesses ${latest.witnesses.join(', ') || 'none'}`,
        )
      : [],
    fact(
      'witnessed',
      `through seq ${r.witnessedThrough}`,
      r.unwitnessed ? `; seq ${r.unwitnessed.from}..${r.unwitnessed.to} not yet witnessed` : '',
    ),
    fact('subjects', r.subjects),
    fact('keys trusted', `${r.keys.trusted} (${r.keys.fromBundle} from the bundle, signed by the sequencer)`),
    r.legacySignatures > 0 ? fact('WEAKER', `${r.legacySignatures} legacy (Core 0.2.0 bare-hash) signatures accepted by request`) : [],
    r.failuresTotal > 0
      ? fact(
          'failures',
          h(
            'span',
            { id: 'count-failures' },
            `${r.failuresTotal}: ${Object.entries(r.failureCounts)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')}`,
          ),
        )
      : [],
  );
  const erased = r.erased.length
    ? h(
        'details',
        {},
        h('summary', {}, `Erased payloads (${r.payloads.erased})`),
        h(
          'ul',
          { class: 'plain' },
          ...r.erased
            .slice(0, SHOWN_ERASED)
            .map((e) => h('li', {}, `seq ${e.seq} (eventHash `, shortHash(e.eventHash), `) by entry ${e.erasedBy}: ${e.reason}`)),
        ),
      )
    : null;
  const skipped = r.skipped.length
    ? h(
        'div',
        {},
        h('h3', {}, 'Checks skipped'),
        h(
          'ul',
          { class: 'plain' },
          ...r.skipped.map((s) => h('li', {}, `${s.check}${s.seq !== undefined ? ` at seq ${s.seq}` : ''}: ${s.reason}`)),
        ),
      )
    : null;
  return h(
    'div',
    {},
    verdictBox(verdict, sub),
    dl,
    r.failuresTotal > 0 ? failureTable(r.failures, r.failuresTotal) : null,
    erased,
    skipped,
    h('p', { class: 'note' }, meta),
  );
}

export function renderEventProof(o: EventProofOutput | Unusable, meta: string): HTMLElement {
  if ('exitCode' in o && o.exitCode === 2)
    return h(
      'div',
      {},
      verdictBox('UNUSABLE', 'the input cannot be checked (exit 2)'),
      h('p', { class: 'error', id: 'error' }, String((o as Unusable).error)),
      h('p', { class: 'note' }, meta),
    );
  if (o.valid) {
    const v = o.value as {
      log: string;
      seq: number;
      eventHash: string;
      event: boolean;
      signedBy: string;
      legacy: boolean;
      checkpoint: { seq: number; root: string; witnesses: string[] };
    };
    return h(
      'div',
      {},
      verdictBox('PROVED', `${v.log} seq ${v.seq}`),
      h(
        'dl',
        { class: 'facts' },
        fact('eventHash', shortHash(v.eventHash)),
        fact('signed by', v.signedBy, v.legacy ? ' (WEAKER: a legacy bare-hash signature, accepted by request)' : ''),
        fact('payload', v.event ? 'included and matching' : 'not included (erased or withheld): the entry alone is proved'),
        fact(
          'checkpoint',
          `seq ${v.checkpoint.seq}, root `,
          shortHash(v.checkpoint.root),
          `, witnesses ${v.checkpoint.witnesses.join(', ') || 'none (policy quorum 0)'}`,
        ),
      ),
      h('p', { class: 'note' }, meta),
    );
  }
  const f = o as Record<string, unknown>;
  const seq = typeof f.seq === 'number' ? ` (seq ${f.seq})` : '';
  return h(
    'div',
    {},
    verdictBox('NOT PROVED', `${String(f.code)}${seq}`),
    h('p', { class: 'error', id: 'error' }, String(f.detail)),
    h('p', { class: 'note' }, meta),
  );
}

export function renderFork(o: ForkVerdict | Unusable, meta: string): HTMLElement {
  if ('exitCode' in o)
    return h(
      'div',
      {},
      verdictBox('UNUSABLE', 'the input cannot be checked (exit 2)'),
      h('p', { class: 'error', id: 'error' }, o.error),
      h('p', { class: 'note' }, meta),
    );
  if (o.proven) {
    return h(
      'div',
      {},
      verdictBox('FORK PROVEN', `log ${o.log} at seq ${o.seq}`),
      h(
        'dl',
        { class: 'facts' },
        fact('a', 'head ', shortHash(o.a?.head), ' root ', shortHash(o.a?.root)),
        fact('b', 'head ', shortHash(o.b?.head), ' root ', shortHash(o.b?.root)),
        fact('signed', 'both by the sequencer key: the sequencer showed two different logs'),
      ),
      h('p', { class: 'note' }, meta),
    );
  }
  return h(
    'div',
    {},
    verdictBox('NOT A FORK PROOF', String(o.code)),
    h('p', { class: 'error', id: 'error' }, String(o.detail)),
    h('p', { class: 'note' }, meta),
  );
}

/** The exit code the CLI would return for this output. */
export function exitCodeOf(kind: 'bundle' | 'event-proof' | 'fork-proof', o: unknown): number {
  const x = o as { exitCode?: number; valid?: boolean; proven?: boolean };
  if (x.exitCode === 2) return 2;
  if (kind === 'bundle') return x.exitCode ?? 1;
  if (kind === 'event-proof') return x.valid ? 0 : 1;
  return x.proven ? 0 : 1;
}
