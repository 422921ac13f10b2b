// tools/soak-audit.ts: the soak's log audit (docs/design.md §14: after every restart, every
// acknowledged event exactly once at its seq, no gap, chains and trees that verify, no fork), made
// incremental so a 1,000-kill soak does not re-read a log of half a million entries after each
// kill. The audit keeps what it has verified: the entry hash at every seq, the seq of every
// (source, id), and the RFC 6962 root at every size (a frontier, so memory is one root per size).
// An incremental check reads only the entries after the verified head, verifies each fully (entry
// hash, link to the verified head, device signature), and re-reads the verified head and a sample
// of older seqs to see that they still hold the same hashes; a full check (every `fullEvery`
// checks and at the end) re-reads the whole log from seq 1 and compares every entry with what was
// verified, so a rewrite of an old entry is found within `fullEvery` kills. Acknowledgements and
// observed checkpoints are each checked once, against the verified prefix. Never imported by
// production code.

import { checkLink, entryLeaf, verifyEntryEventSignature, verifyEntryHash, type Entry } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { createFrontier, hashLeaf } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/index.ts';

export interface AuditAck {
  ce: CloudEvent;
  seq: number;
  hash: string;
}

export interface LogAudit {
  /** Verified entries (the head seq of the verified prefix). */
  readonly size: number;
  readonly fullChecks: number;
  /**
   * One check: reads the log (from the verified head on, or whole when `full`), then checks the
   * acknowledgements and checkpoints given (all taken before the read). Returns the faults found.
   */
  check(acks: readonly AuditAck[], checkpoints: readonly Checkpoint[], full: boolean, after: string): Promise<string[]>;
}

export interface AuditDeps {
  descriptorHash: string;
  keys: KeyRecord[];
  /** Entries from seq `from` (to `to` when given), at most one page, and the log's head. */
  readPage(from: number, to?: number): Promise<{ entries: Entry[]; head: number }>;
  /** Seqs of older entries to re-read in an incremental check (a sample). */
  sample(size: number): number[];
}

export function createLogAudit(d: AuditDeps): LogAudit {
  const hashes: string[] = [''];
  const roots: string[] = [];
  const where = new Map<string, number>();
  const frontier = createFrontier();
  roots.push(formatHash(frontier.root()));
  let headHash = d.descriptorHash;
  let ackChecked = 0;
  const cpChecked = new Map<number, string>();
  let fullChecks = 0;
  const lookup = (kid: string) => d.keys.find((k) => k.kid === kid);
  const owners = new Set(d.keys.map((k) => k.owner));

  /** Extends the verified prefix with one new entry; a fault stops the extension. */
  const extend = (e: Entry): string | undefined => {
    const h = verifyEntryHash(e);
    if (!h.ok) return `entry ${e.seq}: ${h.code} ${h.detail}`;
    const l = checkLink({ seq: hashes.length - 1, hash: headHash }, e);
    if (!l.ok) return `entry ${e.seq}: ${l.code} ${l.detail}`;
    if (owners.has(e.ce.source)) {
      const s = verifyEntryEventSignature(e, lookup);
      if (!s.ok) return `entry ${e.seq}: ${s.code} ${s.detail}`;
    }
    const id = `${e.ce.source} ${e.ce.id}`;
    const dup = where.get(id);
    if (dup !== undefined) return `one event at seqs ${dup},${e.seq}`;
    where.set(id, e.seq);
    hashes.push(e.hash);
    frontier.append(hashLeaf(entryLeaf(e)));
    roots.push(formatHash(frontier.root()));
    headHash = e.hash;
    return undefined;
  };

  /** Every entry from `from` to the head; each page's entries are handed to `each`. */
  const readFrom = async (
    from: number,
    each: (e: Entry) => string | undefined,
  ): Promise<{ head: number; fault?: string; read: number }> => {
    let next = from;
    let head: number;
    for (;;) {
      const page = await d.readPage(next);
      head = page.head;
      for (const e of page.entries) {
        if (e.seq !== next) return { head, read: next - from, fault: `gap: entry ${next} has seq ${e.seq}` };
        const f = each(e);
        if (f) return { head, read: next - from, fault: f };
        next++;
      }
      if (page.entries.length === 0 || next > head) return { head, read: next - from };
    }
  };

  return {
    get size() {
      return hashes.length - 1;
    },
    get fullChecks() {
      return fullChecks;
    },
    async check(acks, checkpoints, full, after) {
      const faults: string[] = [];
      const verified = hashes.length - 1;
      if (full) {
        fullChecks++;
        // The whole log again: every verified entry must be byte-for-byte the one verified
        // (same hash, and the hash still that of its content), then the rest is new.
        const r = await readFrom(1, (e) => {
          if (e.seq <= verified) {
            const h = verifyEntryHash(e);
            if (!h.ok) return `entry ${e.seq}: ${h.code} ${h.detail}`;
            return e.hash === hashes[e.seq] ? undefined : `entry ${e.seq} changed: ${e.hash} was ${hashes[e.seq]}`;
          }
          return extend(e);
        });
        if (r.fault) faults.push(`after ${after}: ${r.fault}`);
        if (r.head < verified) faults.push(`after ${after}: the log shrank from ${verified} to ${r.head}`);
      } else {
        // The verified head and a sample of older entries still hold the verified hashes.
        for (const seq of [verified, ...d.sample(verified)]) {
          if (seq < 1) continue;
          const page = await d.readPage(seq, seq);
          const e = page.entries[0];
          if (!e || e.seq !== seq || e.hash !== hashes[seq])
            faults.push(`after ${after}: entry ${seq} is ${e ? `${e.seq} ${e.hash}` : 'missing'}, was ${hashes[seq]}`);
        }
        const r = await readFrom(verified + 1, extend);
        if (r.fault) faults.push(`after ${after}: ${r.fault}`);
        if (r.head < verified) faults.push(`after ${after}: the log shrank from ${verified} to ${r.head}`);
      }
      const size = hashes.length - 1;
      for (; ackChecked < acks.length; ackChecked++) {
        const a = acks[ackChecked];
        const at = where.get(`${a.ce.source} ${a.ce.id}`);
        if (at !== a.seq || hashes[a.seq] !== a.hash)
          faults.push(`after ${after}: acknowledged ${a.ce.id} at ${a.seq} is at ${at ?? 'nowhere'}`);
      }
      for (const cp of checkpoints) {
        const seen = cpChecked.get(cp.seq);
        if (seen !== undefined) {
          if (seen !== cp.root) faults.push(`after ${after}: fork: two roots at checkpoint seq ${cp.seq}`);
          continue;
        }
        if (cp.seq > size || roots[cp.seq] !== cp.root) faults.push(`after ${after}: checkpoint ${cp.seq} root is not the rebuilt tree's`);
        cpChecked.set(cp.seq, cp.root);
      }
      return faults;
    },
  };
}
