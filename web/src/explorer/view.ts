// web/src/explorer/view.ts: what the parts of the log explorer (docs/design.md §12b) share: the log being
// shown (its descriptor, latest checkpoint, policy, keys, head, the entries page with its filter and
// search, the entry open on its own),
// held as one current view so that an answer that arrives after the user moved to another log is
// dropped, and the small renderers every panel uses (a verdict badge or sentence, an age with the
// exact time, an error note, a file-safe name for downloads). Left out: fetching and the panels
// themselves (checkpoint-panel.ts, entries-panel.ts, main.ts). Invariant: a panel writes only while
// the view it was loaded for is still the current one.

import type { Checkpoint } from '../../../verifier/documents/index.ts';
import type { WitnessPolicy } from '../../../verifier/documents/index.ts';
import type { KeyRecord } from '../../../verifier/signing/index.ts';
import type { LogDescriptor } from '../../../verifier/documents/index.ts';
import { age, h } from '../lib/dom.ts';

export interface View {
  log: string;
  descriptor?: LogDescriptor;
  checkpoint?: Checkpoint;
  policy?: WitnessPolicy;
  witnessed?: string[];
  /** Entries page: the `to` it was read from (undefined: the head), and where older ones start. */
  to?: number;
  next?: number;
  newer: number[];
  filter: Filter;
  keys?: KeyRecord[];
  /** The durable head seq, as the last entries answer said (live.ts keeps it fresh). */
  head?: number;
  /** Entries of the page shown whose payload was erased, and the seq of the erasure entry. */
  erased: Map<number, number>;
  /** The entry shown on its own (its URL is /logs/{log}/entries/{seq}). */
  open?: { seq: number; proofPending: boolean };
}

/** The entries filter and search: prefixes of subject and source, exact type, event id, event hash. */
export interface Filter {
  subjectPrefix: string;
  sourcePrefix: string;
  type: string;
  id: string;
  eventHash: string;
}

export const NO_FILTER: Filter = { subjectPrefix: '', sourcePrefix: '', type: '', id: '', eventHash: '' };

export const isFiltered = (f: Filter) => Object.values(f).some((x) => x !== '');

let view: View | undefined;

/** The view now shown; an answer loaded for another one is stale. */
export const currentView = (): View | undefined => view;

export function setView(v: View): void {
  view = v;
}

export function errorNote(e: unknown): HTMLElement {
  return h('p', { class: 'error' }, e instanceof Error ? e.message : String(e));
}

export function badge(kind: 'good' | 'bad' | 'warn', text: string): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}

/** How long ago, with the exact time on hover and for screen readers' datetime. */
export function when(t: string): HTMLElement {
  return h('time', { datetime: t, title: t }, age(t));
}

/** A verdict sentence (wraps, unlike a badge). */
export function check(kind: 'good' | 'bad' | 'warn', text: string): HTMLElement {
  return h('span', { class: `check ${kind}` }, text);
}

export const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
