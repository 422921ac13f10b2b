// bench/floor-server.ts: the ingest floor (docs/design.md §13), a child process the ingest
// section measures beside the sequencer under the same load. It does the least any sequencer of
// events over HTTP into LevelDB must do, and nothing of what makes ours a Cookwala log:
// node:http, the body read whole and JSON.parse'd (no I-JSON check), each event written again
// with JSON.stringify (no RFC 8785) and hashed with SHA-256, a dedup lookup of its (source, id) in
// LevelDB, the RFC 6962 leaf and the interior hashes an append completes kept in memory, two
// puts per event (the event with its hash, the dedup key) in one synced batch per group commit
// (concurrent requests share a write, as logstore/group-commit.ts does), and a JSON answer
// ({results:[{status, seq}]} for a batch, {seq} for one event). Left out on purpose: signatures,
// readCloudEvent, the entry document and its hash, node keys, checkpoints, metrics, logging,
// idempotency, time windows, a (source, id) twice in one group commit, and any bound on the body
// (it listens on 127.0.0.1 for the bench alone). So its CPU per event is a floor under ours on this machine with these
// parts, not a design: the bench reports what it leaves of the 0.7 target's budget.
// Usage: node --import tsx bench/floor-server.ts DATA_DIR PORT; prints a log line {"level":"info","event":"listening"}.

import { createServer, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { DEFAULT_WRITE_BUFFER } from '../logstore/store.ts';

interface Item {
  dedup: Buffer;
  entry: Buffer;
}
interface Waiting {
  items: Item[];
  batch: boolean;
  res: ServerResponse;
}

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);
const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export async function startFloorServer(dir: string, port: number): Promise<{ close(): Promise<void> }> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: DEFAULT_WRITE_BUFFER });
  await db.open();
  // The last seq written (entry keys are 0x65 and the seq as 8 bytes big-endian), so a restart
  // carries on after it.
  let seq = 0;
  for await (const k of db.keys({ gte: Buffer.from([0x65]), lt: Buffer.from([0x66]), reverse: true, limit: 1 }))
    seq = Number(k.readBigUInt64BE(1));
  /** The RFC 6962 frontier: at most one complete subtree root per level. */
  const frontier: Array<Buffer | undefined> = [];
  const addLeaf = (entryHash: Buffer): void => {
    let node = sha256(LEAF, entryHash);
    let level = 0;
    for (; frontier[level] !== undefined; level++) {
      node = sha256(NODE, frontier[level]!, node);
      frontier[level] = undefined;
    }
    frontier[level] = node;
  };
  let queue: Waiting[] = [];
  let writing = false;

  async function flush(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      const items = group.flatMap((w) => w.items);
      const found = await db.getMany(items.map((i) => i.dedup));
      const batch = db.batch();
      const seqs: number[] = new Array(items.length);
      const statuses: number[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) {
        if (found[i] !== undefined) {
          seqs[i] = found[i]!.readUInt32BE(0);
          statuses[i] = 200;
          continue;
        }
        seqs[i] = ++seq;
        statuses[i] = 201;
        addLeaf(items[i].entry.subarray(0, 32));
        const key = Buffer.allocUnsafe(9);
        key[0] = 0x65;
        key.writeBigUInt64BE(BigInt(seq), 1);
        const value = Buffer.allocUnsafe(4);
        value.writeUInt32BE(seq, 0);
        batch.put(key, items[i].entry);
        batch.put(items[i].dedup, value);
      }
      await batch.write({ sync: true });
      let k = 0;
      for (const w of group) {
        const results = w.items.map(() => ({ status: statuses[k], seq: seqs[k++] }));
        const body = JSON.stringify(w.batch ? { results } : { seq: results[0].seq });
        w.res.writeHead(w.batch ? 200 : results[0].status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        w.res.end(body);
      }
    }
    writing = false;
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let value: unknown;
      try {
        value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const batch = Array.isArray(value);
      const list = (batch ? value : [value]) as Array<{ source: string; id: string }>;
      const items = list.map((e) => {
        const text = Buffer.from(JSON.stringify(e));
        return { dedup: Buffer.from(`d${e.source}\n${e.id}`), entry: Buffer.concat([sha256(text), text]) };
      });
      queue.push({ items, batch, res });
      if (!writing) void flush();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    async close() {
      await new Promise((r) => server.close(r));
      await db.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, port] = process.argv.slice(2);
  const s = await startFloorServer(dir, Number(port));
  process.stdout.write(JSON.stringify({ level: 'info', event: 'listening', port: Number(port) }) + '\n');
  process.once('SIGTERM', () => void s.close().then(() => process.exit(0)));
}
