// witness/server/protocol-server.ts: the serving end of `/cookwala/witness/1.0.0` over libp2p 3
// (DESIGN §7, §15). One long-lived stream per client carries many requests; requests on a stream
// are decided concurrently (so a sequencer with many logs gets group commit) but replies go back
// in request order, so the client matches them first-in first-out without ids.
// Invariants: every handler closes its stream in `finally` (libp2p caps inbound streams at 32); a
// framing error (`message_too_large`, `malformed_frame`) is answered after the replies already
// owed and then the stream is closed; a handler that throws answers `witness_unavailable` and the
// node keeps running. At most `maxInFlight` requests per stream are undecided at a time.

import type { Connection, Stream } from '@libp2p/interface';
import { encodeMessage, failureReply, WITNESS_PROTOCOL, type Reply } from '../wire/messages.ts';
import { createFrameChannel } from '../wire/frame-channel.ts';
import type { P2pNode } from '../wire/p2p-node.ts';
import { fail } from '../../verifier/errors.ts';

export type FrameHandler = (frame: Uint8Array, remotePeer: string) => Promise<Reply>;

export interface ServeOptions {
  maxInFlight?: number;
  maxFrame?: number;
  onError?: (e: Error) => void;
}

export async function serveStream(stream: Stream, remotePeer: string, handle: FrameHandler, opts: ServeOptions = {}): Promise<void> {
  const ch = createFrameChannel(stream, { maxFrame: opts.maxFrame });
  const maxInFlight = opts.maxInFlight ?? 64;
  const owed: Promise<Reply>[] = [];
  let writer = Promise.resolve();
  let writeFailed = false;
  const safe = async (frame: Uint8Array): Promise<Reply> => {
    try {
      return await handle(frame, remotePeer);
    } catch (e) {
      opts.onError?.(e as Error);
      return failureReply(fail('witness_unavailable', 'the witness could not decide this request'));
    }
  };
  const enqueueReply = (p: Promise<Reply>) => {
    owed.push(p);
    writer = writer.then(async () => {
      const reply = await p;
      void owed.shift(); // p, just awaited
      if (writeFailed) return;
      try {
        await ch.send(encodeMessage(reply));
      } catch (e) {
        writeFailed = true;
        opts.onError?.(e as Error);
      }
    });
  };
  try {
    for (;;) {
      // Bounded: each wait lets the writer send (and drop) at least the oldest decided reply.
      while (owed.length >= maxInFlight && !writeFailed) {
        await owed[0];
        await new Promise((r) => setImmediate(r));
      }
      const n = await ch.next();
      if ('end' in n) break;
      if ('error' in n) {
        enqueueReply(Promise.resolve(failureReply(n.error)));
        break;
      }
      enqueueReply(safe(n.frame));
      if (writeFailed) break;
    }
    await writer;
  } finally {
    await ch.close();
  }
}

export async function registerWitnessProtocol(node: P2pNode, handle: FrameHandler, opts: ServeOptions = {}): Promise<void> {
  await node.handle(
    WITNESS_PROTOCOL,
    (stream: Stream, connection: Connection) =>
      serveStream(stream, connection.remotePeer.toString(), handle, opts).catch((e) => opts.onError?.(e as Error)),
    { maxInboundStreams: 64 },
  );
}
