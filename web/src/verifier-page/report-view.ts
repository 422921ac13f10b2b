// web/src/verifier-page/report-view.ts: the verifier page's report (docs/design.md §8, §12b), the same
// model the CLI's human summary renders (verifier/bundle/report-model.ts), laid out for a screen:
// the verdict first (VALID, INVALID or UNUSABLE; PROVED / NOT PROVED for one event; FORK PROVEN /
// NOT A FORK PROOF), then every line the CLI prints (counts, cosigners and the C2SP log note, time
// bounds, erased payloads, skipped checks), then the causes, first first, each with what follows
// from it collapsed beneath, and the policy fingerprint to compare out of band. The JSON the CLI
// prints with --json is shown beneath it and offered as a download. Everything from the file is
// rendered as text.

import type { BundleReport } from '../../../verifier/bundle/index.ts';
import { buildReportModel, erasedLine, skippedLine, type ReportItem, type ReportModel } from '../../../verifier/bundle/index.ts';
import { shortFingerprint } from '../../../verifier/documents/index.ts';
import type { EventProofOutput, ForkVerdict, Unusable } from '../lib/audit-checks.ts';
import { h, shortHash } from '../lib/dom.ts';

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

function itemRow(x: ReportItem, cls: string, tag: 'li' | 'div' = 'li'): HTMLElement {
  return h(
    tag,
    { class: cls, 'data-kind': x.failure.kind, 'data-seq': x.failure.seq ?? '' },
    h('code', { class: 'kind' }, x.failure.kind),
    x.where ? h('span', { class: 'where' }, ` (${x.where})`) : null,
    ': ',
    h('span', { class: 'title wrap' }, x.title),
    ...x.more.map((m) => h('div', { class: 'note mono wrap' }, m)),
  );
}

/** Each cause with what follows from it collapsed beneath, first cause first (report-model.ts). */
function causeList(m: ReportModel, total: number, listed: number): HTMLElement {
  let shown = 0;
  const items: HTMLElement[] = [];
  for (const c of m.causes) {
    if (shown >= SHOWN_FAILURES) break;
    shown++;
    const under = c.consequences.slice(0, Math.max(0, SHOWN_FAILURES - shown));
    shown += under.length;
    items.push(
      h(
        'li',
        { class: 'cause' },
        itemRow(c, 'cause-head', 'div'),
        c.consequences.length
          ? h(
              'details',
              { class: 'consequences' },
              h('summary', {}, `${c.consequences.length} following from it: ${c.consequenceCounts}`),
              h('ul', { class: 'consequence-list' }, ...under.map((x) => itemRow(x, 'consequence'))),
              c.consequences.length > under.length
                ? h('p', { class: 'note' }, `… ${c.consequences.length - under.length} more (the JSON lists them)`)
                : null,
            )
          : null,
      ),
    );
  }
  const more =
    total > shown ? h('p', { class: 'note' }, `… ${total - shown} more failures (counted above; the JSON lists ${listed})`) : null;
  return h(
    'div',
    { id: 'failures' },
    h(
      'h3',
      {},
      m.causes.length === 1
        ? 'The cause, and what follows from it'
        : `Causes (${m.causes.length}), first first, each with what follows from it`,
    ),
    h('ol', { class: 'causes', id: 'causes' }, ...items),
    more,
  );
}

function fingerprintBox(r: BundleReport): HTMLElement | null {
  const p = r.policy;
  if (!p) return null;
  return h(
    'details',
    { class: 'fingerprint', id: 'policy-fingerprint' },
    h(
      'summary',
      {},
      'Policy fingerprint ',
      h('code', { class: 'mono' }, shortFingerprint(p.fingerprint)),
      ' — compare it with the operator out of band',
    ),
    h(
      'dl',
      { class: 'facts' },
      ...fact('fingerprint', h('code', { class: 'mono wrap' }, p.fingerprint)),
      ...fact('log', p.log),
      ...fact('log key', h('code', {}, p.sequencer.kid), ` ${p.sequencer.alg} `, h('code', { class: 'mono wrap' }, p.sequencer.publicKey)),
      ...p.witnesses.flatMap((w) =>
        fact('witness key', h('code', {}, w.kid), ` ${w.alg} `, h('code', { class: 'mono wrap' }, w.publicKey)),
      ),
      ...fact('quorum', String(p.quorum)),
    ),
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
  const m = buildReportModel(r);
  // Every line the CLI prints, in its order (report-model.ts), the counts with ids for a reader.
  const rows: HTMLElement[] = [];
  for (const f of m.facts) rows.push(...fact(f.label, h('span', { id: `count-${f.key}` }, f.value), f.rest));
  const shown = r.erased.slice(0, SHOWN_ERASED);
  for (const e of shown) rows.push(...fact('erased', erasedLine(e)));
  if (r.payloads.erased > shown.length)
    rows.push(...fact('erased', `… ${r.payloads.erased - shown.length} more (the JSON lists ${r.erased.length})`));
  for (const s of r.skipped) rows.push(...fact('skipped', skippedLine(s)));
  if (m.failureCounts) rows.push(...fact('failures', h('span', { id: 'count-failures' }, m.failureCounts)));
  return h(
    'div',
    {},
    verdictBox(m.verdict, m.subject),
    h('dl', { class: 'facts', id: 'facts' }, ...rows),
    m.causes.length ? causeList(m, r.failuresTotal, r.failures.length) : null,
    fingerprintBox(r),
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
  if (o.valid && o.format === 'tlog-proof') {
    const v = o.value as { log: string; seq: number; eventHash: string; signedBy?: string; signatureNotChecked?: string };
    const c = (o.value as { checkpoint: { size: number; witnesses: string[] } }).checkpoint;
    return h(
      'div',
      {},
      verdictBox('PROVED', `${v.log} seq ${v.seq} (c2sp.org/tlog-proof@v1)`),
      h(
        'dl',
        { class: 'facts' },
        fact('eventHash', shortHash(v.eventHash)),
        fact('signed by', v.signedBy ?? `NOT CHECKED: ${v.signatureNotChecked ?? ''}`),
        fact('checkpoint', `size ${c.size}, witnesses ${c.witnesses.join(', ') || 'none (policy quorum 0)'}`),
      ),
      h('p', { class: 'note' }, meta),
    );
  }
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
