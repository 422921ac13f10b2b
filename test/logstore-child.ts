// test/logstore-child.ts: a child process for the cross-process log store tests
// (test/logstore-lock.test.ts, test/logstore-crash.test.ts, test/logstore-migrate-crash.test.ts);
// not a test itself. Run as
// `node --import tsx test/logstore-child.ts <mode> <dir> [args]`. Modes:
//   hold DIR         open (init if new), print {"ready":true}, close when stdin ends
//   try DIR          try to open, print {"ok":true} or {"code":…}, exit
//   append DIR N     N rounds of 1..3 concurrent appends of 1..20 entries each (hash_only log);
//                    every 4th round also erases an earlier payload; prints "acked SEQ" after
//                    each durable append and "erased SEQ" after each durable erasure (stdout to a
//                    pipe is synchronous on Linux, so a line the parent read was durable first)
//   migrate DIR      open a store of the earlier key layout, printing "step MOVED DONE" after
//                    each durable step of its migration (logstore/migrate.ts), then "opened SEQ";
//                    hold it until stdin ends, so the parent's kill never races a clean exit

import { ProtocolError } from '../verifier/errors.ts';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { TEST_LOG, erasePayloadOf, makeDescriptor, makeItems } from '../testkit/logstore.ts';

async function openInit(dir: string): Promise<LogStore> {
  const s = await openLogStore(dir);
  if (!s.descriptor()) await s.init(makeDescriptor('hash_only'));
  return s;
}

function say(x: unknown): void {
  process.stdout.write((typeof x === 'string' ? x : JSON.stringify(x)) + '\n');
}

async function main(argv: string[]): Promise<number> {
  const [mode, dir, arg] = argv;
  if (mode === 'hold') {
    const s = await openInit(dir);
    say({ ready: true });
    process.stdin.resume();
    await new Promise((r) => process.stdin.on('end', r));
    await s.close();
    return 0;
  }
  if (mode === 'try') {
    try {
      const s = await openLogStore(dir);
      await s.close();
      say({ ok: true });
    } catch (e) {
      say({ code: e instanceof ProtocolError ? e.code : String(e) });
    }
    return 0;
  }
  if (mode === 'append') {
    const s = await openInit(dir);
    const max = Number(arg);
    for (let b = 0; b < max; b++) {
      // 1 to 3 appends in flight at once, each chained on the previous one, so group commit and
      // the pipelined planning are what gets killed too
      let tip = { seq: s.head().seq, hash: s.head().hash };
      const inFlight: Array<Promise<void>> = [];
      for (let k = 1 + Math.floor(Math.random() * 3); k > 0; k--) {
        const items = makeItems(TEST_LOG, tip, 1 + Math.floor(Math.random() * 20), { prefix: `p${process.pid}-` });
        tip = { seq: items[items.length - 1].entry.seq, hash: items[items.length - 1].entry.hash };
        inFlight.push(s.append(items).then((h) => say(`acked ${h.seq}`)));
      }
      await Promise.all(inFlight);
      if (b % 4 === 3) {
        const seq = 1 + Math.floor(Math.random() * s.head().seq);
        const p = await s.getPayload(seq);
        const e = await s.getEntry(seq);
        if (p && 'event' in p && e && e.ce.type !== 'cookwala.log.erased') {
          await erasePayloadOf(s, seq);
          say(`erased ${seq}`);
        }
      }
    }
    await s.close();
    return 0;
  }
  if (mode === 'migrate') {
    const s = await openLogStore(dir, { createIfMissing: false, onMigrateStep: (x) => say(`step ${x.moved} ${x.done}`) });
    say(`opened ${s.head().seq}`);
    process.stdin.resume();
    await new Promise((r) => process.stdin.on('end', r));
    await s.close();
    return 0;
  }
  process.stderr.write(`usage: logstore-child.ts hold|try|append|migrate DIR [N]\n`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
