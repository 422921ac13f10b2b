// sequencer/store-backend.ts: which logstore driver a sequencer's logs live in (docs/design.md §6, §12a).
// Default: LevelDB under DIR/logs/ (embedded, one process per log). With `--store postgres://…`
// (cookwala init and cookwala sequencer) every log of the process lives in that PostgreSQL
// database (logstore/postgres/), and several sequencer processes, each with a copy of the same
// data directory (the same sequencer key), may run for the same logs: one leads each log, the
// others answer not_leader with the leader's advertised URL (`--advertise`). Leaves out: keeping
// the URL in config.json (it may hold a password; pass it per run, or use PGPASSWORD / .pgpass,
// which the pg client reads). Invariant: a malformed URL or value is a usage error before
// anything is opened.

import { UsageError } from '../platform/index.ts';
import { isPostgresUrl, type LeaseChange, type WipeChange } from '../logstore/postgres/index.ts';

export interface StoreBackend {
  /** postgres://user@host:port/db */
  url: string;
  /** This process's HTTP base URL, returned by standbys in not_leader. */
  address?: string;
  /** How long a paused or cut-off leader keeps the lease (ms). */
  leaseMs?: number;
  /** Every change of this process's lease on a log (app.ts logs it and sets the lease metrics). */
  onLeaseChange?(c: LeaseChange): void;
  /** An erasure's wipe deferred by an older snapshot, or done later (app.ts logs it and sets the pending-wipe gauge). */
  onWipe?(w: WipeChange): void;
}

export function storeBackendOf(v: { store?: string; advertise?: string; 'lease-ms'?: string }): StoreBackend | undefined {
  if (v.store === undefined) {
    if (v.advertise !== undefined || v['lease-ms'] !== undefined)
      throw new UsageError('--advertise and --lease-ms go with --store postgres://…');
    return undefined;
  }
  if (!isPostgresUrl(v.store))
    throw new UsageError('--store takes a postgres:// (or postgresql://) URL; without it the logs live in LevelDB under DIR/logs');
  let leaseMs: number | undefined;
  if (v['lease-ms'] !== undefined) {
    leaseMs = Number(v['lease-ms']);
    if (!Number.isInteger(leaseMs) || leaseMs < 200 || leaseMs > 600_000)
      throw new UsageError('--lease-ms is an integer from 200 to 600000');
  }
  if (v.advertise !== undefined && !/^https?:\/\/[^\s]+$/.test(v.advertise)) throw new UsageError('--advertise is an http(s) URL');
  return { url: v.store, address: v.advertise, leaseMs };
}
