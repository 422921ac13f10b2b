// web/src/verifier-page/main.ts: the offline verifier page (docs/design.md §12b): the auditor drops or
// picks the evidence (an audit bundle, an event proof or a ForkProof), the witness policy (or,
// for a fork proof, the sequencer's KeyRecord) and an optional key cache; a Web Worker checks
// them (worker.ts) while a progress bar moves, and the report (report-view.ts) gives the verdict,
// counts and named failures that `cookwala verify --json` (or verify-event, verify-fork) gives.
// The worker's code is inlined by the build (web/build.ts) and started from a blob: URL, so the
// page works opened from disk (file://) as well as from any static host. Nothing leaves the page:
// its Content-Security-Policy has connect-src 'none', and nothing here asks for the network.
// Keyboard: every control is a native input or button; the drop zone is also a button.

import { byId, bytes, download, fill, h } from '../lib/dom.ts';
import { classify, type EvidenceKind } from '../lib/audit-checks.ts';
import type { CheckRequest, CryptoPath, WorkerMessage } from './messages.ts';
import { exitCodeOf, renderBundleReport, renderEventProof, renderFork } from './report-view.ts';

declare const __COOKWALA_WORKER__: string;
declare const __COOKWALA_SIG_WORKER__: string;

type Slot = 'evidence' | 'policy' | 'keys';
const state: Record<Slot, { file: File; kind: EvidenceKind } | undefined> = { evidence: undefined, policy: undefined, keys: undefined };
let worker: Worker | undefined;
let sigWorkers: Worker[] = [];
let cryptoPath: CryptoPath | undefined;
let lastJson = '';

const KIND_NAME: Record<EvidenceKind, string> = {
  bundle: 'audit bundle',
  'event-proof': 'event proof',
  'fork-proof': 'fork proof',
  policy: 'witness policy',
  'key-cache': 'key cache',
  'key-record': 'KeyRecord',
  unknown: 'unrecognised file',
};

function slotFor(kind: EvidenceKind): Slot | undefined {
  if (kind === 'bundle' || kind === 'event-proof' || kind === 'fork-proof') return 'evidence';
  if (kind === 'policy' || kind === 'key-record') return 'policy';
  if (kind === 'key-cache') return 'keys';
  return undefined;
}

/**
 * Signature workers beside the verifier's: one for each core but the one the verifier's worker
 * parses on (at least one, at most four). WebCrypto verifies on the calling thread, so these are
 * what lets a bundle's signatures use the other cores, as the CLI's worker pool does.
 */
function sigWorkerCount(): number {
  return Math.min(4, Math.max(1, (navigator.hardwareConcurrency || 2) - 1));
}

function startWorker(): Worker {
  const url = URL.createObjectURL(new Blob([__COOKWALA_WORKER__], { type: 'text/javascript' }));
  const w = new Worker(url, { name: 'cookwala-verifier' });
  URL.revokeObjectURL(url);
  w.onmessage = (e: MessageEvent<WorkerMessage>) => onWorker(e.data);
  w.onerror = (e) => showError(`the verifier stopped: ${e.message}`);
  const sigUrl = URL.createObjectURL(new Blob([__COOKWALA_SIG_WORKER__], { type: 'text/javascript' }));
  const ports: MessagePort[] = [];
  for (let i = 0; i < sigWorkerCount(); i++) {
    const s = new Worker(sigUrl, { name: `cookwala-signatures-${i + 1}` });
    s.onerror = (e) => showError(`a signature worker stopped: ${e.message}`);
    const ch = new MessageChannel();
    s.postMessage({ type: 'port', port: ch.port1 }, [ch.port1]);
    ports.push(ch.port2);
    sigWorkers.push(s);
  }
  URL.revokeObjectURL(sigUrl);
  w.postMessage({ type: 'sig-ports', ports }, ports);
  return w;
}

function stopWorkers(): void {
  worker?.terminate();
  worker = undefined;
  for (const s of sigWorkers) s.terminate();
  sigWorkers = [];
}

function showSlots(): void {
  for (const s of ['evidence', 'policy', 'keys'] as Slot[]) {
    const v = state[s];
    fill(byId(`${s}-name`), v ? `${v.file.name} — ${KIND_NAME[v.kind]}, ${bytes(v.file.size)}` : s === 'keys' ? 'none (optional)' : 'none');
  }
  const ready = state.evidence !== undefined && state.policy !== undefined;
  byId<HTMLButtonElement>('verify').disabled = !ready;
  const ev = state.evidence?.kind;
  fill(
    byId('policy-hint'),
    ev === 'fork-proof'
      ? 'For a fork proof: the witness policy, or the sequencer’s KeyRecord alone.'
      : 'The witness policy you trust (from the log operator, checked out of band).',
  );
}

async function place(files: Iterable<File>, into?: Slot): Promise<void> {
  const notes: string[] = [];
  for (const file of files) {
    const kind = await classify(file);
    const slot = into ?? slotFor(kind);
    if (!slot) {
      notes.push(`${file.name}: not a bundle, proof, policy or key cache`);
      continue;
    }
    state[slot] = { file, kind: kind === 'unknown' && into ? (into === 'evidence' ? 'bundle' : kind) : kind };
  }
  fill(byId('drop-note'), notes.join('; '));
  showSlots();
}

function setBusy(busy: boolean): void {
  byId<HTMLButtonElement>('verify').disabled = busy || !(state.evidence && state.policy);
  byId('cancel').hidden = !busy;
  byId('progress-box').hidden = !busy;
}

function showError(msg: string): void {
  setBusy(false);
  const out = byId('result');
  out.hidden = false;
  fill(
    out,
    h(
      'div',
      { class: 'verdict bad', role: 'status' },
      h('span', { id: 'verdict' }, 'ERROR'),
      h('span', { class: 'verdict-sub' }, 'the verifier itself failed: please report it'),
    ),
    h('pre', { class: 'error' }, msg),
  );
}

let started = 0;
let currentKind: 'bundle' | 'event-proof' | 'fork-proof' = 'bundle';

function verify(): void {
  const ev = state.evidence;
  const pol = state.policy;
  if (!ev || !pol) return;
  worker ??= startWorker();
  const allowLegacy = byId<HTMLInputElement>('allow-legacy').checked;
  const requireWitnessed = byId<HTMLInputElement>('require-witnessed').checked;
  let req: CheckRequest;
  if (ev.kind === 'event-proof') req = { type: 'event-proof', proof: ev.file, policy: pol.file, keys: state.keys?.file, allowLegacy };
  else if (ev.kind === 'fork-proof') req = { type: 'fork-proof', proof: ev.file, trust: pol.file };
  else req = { type: 'bundle', bundle: ev.file, policy: pol.file, keys: state.keys?.file, allowLegacy, requireWitnessed };
  currentKind = req.type;
  started = performance.now();
  byId<HTMLProgressElement>('progress').value = 0;
  byId<HTMLProgressElement>('progress').max = Math.max(1, ev.file.size);
  fill(byId('progress-text'), `reading ${ev.file.name}…`);
  const out = byId('result');
  out.hidden = true;
  fill(out);
  delete out.dataset.exitCode;
  setBusy(true);
  worker.postMessage(req);
}

function cancel(): void {
  stopWorkers();
  setBusy(false);
  fill(byId('progress-text'), 'cancelled');
}

function onWorker(m: WorkerMessage): void {
  if (m.type === 'ready') {
    cryptoPath = m.crypto;
    fill(
      byId('crypto'),
      m.crypto === 'webcrypto'
        ? 'Signatures: WebCrypto Ed25519 and ECDSA P-256 (native), ML-DSA-44 with @noble/post-quantum, after the same key and signature rules as the CLI.'
        : 'Signatures: @noble/ed25519 and @noble/curves for Ed25519 and ECDSA P-256 (this browser has no usable WebCrypto Ed25519), ML-DSA-44 with @noble/post-quantum, after the same rules as the CLI.',
    );
    return;
  }
  if (m.type === 'progress') {
    const p = byId<HTMLProgressElement>('progress');
    p.max = Math.max(1, m.total);
    p.value = m.bytes;
    const s = (performance.now() - started) / 1000;
    fill(
      byId('progress-text'),
      `${Math.floor((100 * m.bytes) / Math.max(1, m.total))}% — ${bytes(m.bytes)} of ${bytes(m.total)}, ${m.entries} entries${s > 0.5 ? `, ${Math.round(m.entries / s)} entries/s` : ''}`,
    );
    return;
  }
  if (m.type === 'error') return showError(m.message);
  setBusy(false);
  const secs = (m.ms / 1000).toFixed(2);
  let json: unknown;
  let view: HTMLElement;
  if (m.type === 'bundle-result') {
    json = m.report;
    const rate = 'entries' in m.report && m.ms > 1000 ? `, ${Math.round((m.report.entries * 1000) / m.ms)} entries/s` : '';
    view = renderBundleReport(
      m.report,
      `Checked in ${secs} s${rate} in this browser (signatures: ${m.crypto === 'webcrypto' ? 'WebCrypto; ML-DSA-44: @noble/post-quantum' : '@noble; ML-DSA-44: @noble/post-quantum'}); nothing was sent anywhere.`,
    );
  } else if (m.type === 'event-result') {
    json = m.output;
    view = renderEventProof(m.output, `Checked in ${secs} s in this browser; nothing was sent anywhere.`);
  } else {
    json = m.output;
    view = renderFork(m.output, `Checked in ${secs} s in this browser; nothing was sent anywhere.`);
  }
  lastJson = JSON.stringify(json, null, 2) + '\n';
  const exit = exitCodeOf(currentKind, json);
  const out = byId('result');
  out.hidden = false;
  out.dataset.exitCode = String(exit);
  out.dataset.crypto = cryptoPath ?? m.crypto;
  const cmd =
    currentKind === 'bundle'
      ? 'cookwala verify --json'
      : currentKind === 'event-proof'
        ? 'cookwala verify-event --json'
        : 'cookwala verify-fork --json';
  fill(
    out,
    view,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', id: 'download', onclick: () => download(`${currentKind}-report.json`, lastJson) },
        'Download the report (JSON)',
      ),
    ),
    h(
      'details',
      {},
      h('summary', {}, `The report as JSON (what ${cmd} prints; exit code ${exit})`),
      h('pre', { id: 'report-json', class: 'json' }, lastJson),
    ),
  );
  byId('verdict').focus?.();
}

function wire(): void {
  for (const s of ['evidence', 'policy', 'keys'] as Slot[]) {
    const input = byId<HTMLInputElement>(`${s}-file`);
    input.addEventListener('change', () => {
      if (input.files && input.files.length > 0) void place([input.files[0]], s);
    });
  }
  const drop = byId('drop');
  const pick = byId<HTMLInputElement>('any-file');
  drop.addEventListener('click', () => pick.click());
  drop.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      pick.click();
    }
  });
  pick.addEventListener('change', () => {
    if (pick.files) void place(Array.from(pick.files));
  });
  for (const ev of ['dragenter', 'dragover']) {
    drop.addEventListener(ev, (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
  }
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const files = (e as DragEvent).dataTransfer?.files;
    if (files) void place(Array.from(files));
  });
  // A file dropped outside the zone must not make the browser navigate away to it.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
  byId('verify').addEventListener('click', verify);
  byId('cancel').addEventListener('click', cancel);
  byId('clear').addEventListener('click', () => {
    state.evidence = state.policy = state.keys = undefined;
    for (const s of ['evidence', 'policy', 'keys']) byId<HTMLInputElement>(`${s}-file`).value = '';
    byId('result').hidden = true;
    showSlots();
  });
  showSlots();
  worker = startWorker();
}

wire();
