// platform/level-open.ts: opening a LevelDB database (logstore, witness state, executor
// store) with its failures as reason codes: another process holding the directory's lock is
// store_locked (LevelDB allows one process per directory), and a missing database opened without
// createIfMissing is not_found. Anything else is thrown as it came. Node only (docs/design.md §2).

import { ProtocolError } from '../verifier/index.ts';

/** Open `db`; `what` names it in the error ("witness state /path"). */
export async function openLevel(db: { open(): Promise<void> }, dir: string, what: string): Promise<void> {
  try {
    await db.open();
  } catch (e) {
    const err = e as { code?: string; cause?: { code?: string; message?: string }; message?: string };
    if (err.cause?.code === 'LEVEL_LOCKED' || err.code === 'LEVEL_LOCKED')
      throw new ProtocolError('store_locked', `${what} ${dir} is held by another process`, { dir });
    if (/does not exist/i.test(`${err.message ?? ''} ${err.cause?.message ?? ''}`))
      throw new ProtocolError('not_found', `no ${what} at ${dir}`, { dir });
    throw e;
  }
}
