// sequencer/policy-watch.ts: how a running `cookwala sequencer` notices a new witness policy:
// `cookwala policy add-witness` (or an editor) replaces DIR/policy.json and
// DIR/config.json, and the sequencer re-opens itself with them, with no restart by the operator.
// Also on SIGHUP. It watches the folder (fs.watch, inotify on Linux: the atomic rename of
// writeFileDurable is one event), waits until the files have been quiet for `settleMs`, and
// fires only when what witnessing depends on changed: the policy's bytes or config.witnessPeers
// (SIGHUP fires in any case).
// A file that does not read (half-edited by hand) is reported and ignored until it does.
// Left out: other config.json fields (ports, limits), which still need a restart, as the log says.

import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';
import { readWitnessPolicy } from '../verifier/documents/index.ts';
import { readConfig } from './config.ts';

export interface PolicyWatch {
  close(): void;
}

export interface PolicyWatchOptions {
  dir: string;
  settleMs?: number;
  /** The witnessing inputs changed and both files read: re-open with them. */
  onChange(why: string): void;
  /** A file changed but does not read: keep running as before. */
  onUnreadable(detail: string): void;
}

/** config.json, and the policy file it names (config.policy), as one comparable key. */
async function snapshot(dir: string): Promise<{ ok: true; key: string; policyFile: string } | { ok: false; detail: string }> {
  const read = async (name: string) => readFile(join(dir, name), 'utf8').catch(() => undefined);
  const c = await read('config.json');
  if (c === undefined) return { ok: false, detail: `${join(dir, 'config.json')} is missing` };
  const cj = parseJson(c);
  const cfg = cj.ok ? readConfig(cj.value) : cj;
  if (!cfg.ok) return { ok: false, detail: `${join(dir, 'config.json')}: ${cfg.code}: ${cfg.detail}` };
  const policyFile = cfg.value.policy;
  const p = await read(policyFile);
  if (p !== undefined) {
    const pj = parseJson(p);
    const pol = pj.ok ? readWitnessPolicy(pj.value) : pj;
    if (!pol.ok) return { ok: false, detail: `${join(dir, policyFile)}: ${pol.code}: ${pol.detail}` };
  }
  return { ok: true, key: JSON.stringify([cfg.value.witnessPeers, policyFile, p ?? null]), policyFile };
}

/**
 * Start watching; the first snapshot is taken now, so only later changes fire. Call it before the
 * sequencer loads the files: a change made while it starts then fires once more (harmless).
 */
export async function watchPolicy(o: PolicyWatchOptions): Promise<PolicyWatch> {
  const settleMs = o.settleMs ?? 250;
  const first = await snapshot(o.dir);
  let last = first.ok ? first.key : '';
  let policyFile = first.ok ? first.policyFile : 'policy.json';
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let force = false;
  const check = async (why: string) => {
    if (closed) return;
    const s = await snapshot(o.dir);
    if (closed) return;
    if (!s.ok) return o.onUnreadable(s.detail);
    if (s.key === last && !force) return;
    last = s.key;
    policyFile = s.policyFile;
    force = false;
    o.onChange(why);
  };
  const poke = (why: string) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void check(why), settleMs);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(o.dir, { persistent: false }, (_event, name) => {
      if (name === 'config.json' || name === policyFile) poke(`${name} changed`);
    });
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined; // no watching on this file system: SIGHUP still works
  }
  const onHup = () => ((force = true), poke('SIGHUP'));
  process.on('SIGHUP', onHup);
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
      process.off('SIGHUP', onHup);
    },
  };
}
