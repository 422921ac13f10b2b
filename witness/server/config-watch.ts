// witness/server/config-watch.ts: a running witness follows its own DIR/witness.json (docs/design.md
// §7, §7a), so `cookwala witness add-log` takes effect without a restart. The file stays the one
// source of truth: add-log writes it durably (data-dir.ts, write + rename), a restart reads the
// same file, a hand edit or a configuration tool is seen the same way, and the HTTP port keeps no
// write endpoint (nothing to authenticate). The folder is watched (fs.watch: a rename replaces the
// file, so watching the file itself would lose it after the first write) and, as a safety net where
// watching is not delivered (network file systems), the file's identity (inode, size, mtime) is
// polled every `pollMs`. A change is read strictly (config.ts readWitnessConfig) and handed to
// `onConfig`; a file that does not read is reported (`onError`) and changes nothing. Left out:
// what the witness does with it (service.ts admitConfig: add-only), and fields that need a restart
// (listen, httpPort, name), which are only reported by the caller.

import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonIfExists } from '../../platform/index.ts';
import { readWitnessConfig, type WitnessConfig } from './config.ts';

export interface ConfigWatch {
  /** Reread the file now (also what the watcher and the poll do); resolves once handled. */
  check(): Promise<void>;
  close(): void;
}

export function watchWitnessConfig(
  dir: string,
  fileName: string,
  on: { onConfig: (c: WitnessConfig) => Promise<void>; onError: (detail: string) => void },
  opts: { pollMs?: number; debounceMs?: number } = {},
): ConfigWatch {
  const path = join(dir, fileName);
  let last = '';
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const identity = async () => {
    const s = await stat(path).catch(() => undefined);
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '';
  };

  const readOnce = async () => {
    const id = await identity();
    if (id === '' || id === last) return;
    last = id;
    let j: unknown;
    try {
      j = await readJsonIfExists(path);
    } catch (e) {
      on.onError(`${path}: ${(e as Error).message}`);
      return;
    }
    if (j === undefined) return;
    const c = readWitnessConfig(j, 'on-use');
    if (!c.ok) {
      on.onError(`${path}: ${c.code}: ${c.detail} (the running witness keeps its logs)`);
      return;
    }
    await on.onConfig(c.value);
  };

  // One reread at a time; a change during one is read once more after it.
  const check = async (): Promise<void> => {
    if (closed) return;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await readOnce().catch((e) => on.onError(`${path}: ${(e as Error).message}`));
      } while (again && !closed);
    })();
    try {
      await running;
    } finally {
      running = undefined;
    }
  };

  const soon = () => {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void check();
    }, opts.debounceMs ?? 50);
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name === null || name === fileName) soon();
    });
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined; // the poll alone then
  }
  const poll = setInterval(() => void check(), opts.pollMs ?? 2000);
  poll.unref();
  // No identity is taken at start: the first check reads the file once more, and taking the same
  // logs again changes nothing (admission is add-only), while a write between the witness reading
  // its config and this watch starting is never missed.

  return {
    check,
    close() {
      closed = true;
      watcher?.close();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    },
  };
}
