// web/src/lib/dom.ts: the few DOM helpers the pages share (no framework, docs/design.md §12b): `h` builds
// an element from a tag, attributes and children; text always goes in as text nodes, never as
// HTML, so nothing a log or a file holds can inject markup (the pages render hostile data).
// Also short formatting helpers for hashes, times and byte counts.

type Child = Node | string | number | false | null | undefined | Child[];
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replace an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** A hash shortened for reading (`sha256:1a2b3c4d…9f0e`), with the whole of it as the title. */
export function shortHash(s: string | undefined | null): HTMLElement {
  const t = String(s ?? '');
  const m = /^sha256:([0-9a-f]{64})$/.exec(t);
  const shown = m ? `${m[1].slice(0, 12)}…${m[1].slice(-4)}` : t.length > 40 ? t.slice(0, 37) + '…' : t;
  return h('code', { class: 'hash', title: t }, shown);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  return `${(n / (1 << 30)).toFixed(2)} GiB`;
}

/** A short, unambiguous display of any JSON value (for expected/found). */
export function show(v: unknown, max = 300): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** "3 min ago" style age of an RFC 3339 time, against `now` (ms). */
export function age(t: string | undefined, now = Date.now()): string {
  if (!t) return '';
  const ms = now - Date.parse(t);
  if (!Number.isFinite(ms)) return '';
  const s = Math.round(ms / 1000);
  if (s < 0) return 'in the future';
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** Offer `text` as a file download from memory (a blob: URL; nothing is sent anywhere). */
export function download(name: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** An integer with thousands separators (1,234,567), the same in every locale. */
export function num(n: number): string {
  return n.toLocaleString('en-US');
}

/** A small button that copies `text` to the clipboard and says so (falls back to a selection copy). */
export function copyButton(text: string, what: string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'copy', 'aria-label': `copy ${what}`, 'data-copy': text }, 'copy');
  b.addEventListener('click', () => {
    const done = (ok: boolean) => {
      b.textContent = ok ? 'copied' : 'copy failed';
      setTimeout(() => (b.textContent = 'copy'), 1500);
    };
    const fallback = () => {
      const t = h('textarea', { readonly: true, class: 'offscreen' });
      t.value = text;
      document.body.appendChild(t);
      t.select();
      let ok: boolean;
      try {
        ok = document.execCommand('copy');
      } catch {
        ok = false;
      }
      t.remove();
      done(ok);
    };
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(() => done(true), fallback);
    else fallback();
  });
  return b;
}
