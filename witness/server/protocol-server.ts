// witness/server/protocol-server.ts: the serving end of `/cookwala/witness/1.0.0` over libp2p 3
// (docs/design.md §7, §15). One long-lived stream per client carries many requests; requests on a stream
// are decided concurrently (so a sequencer with many logs gets group commit) but replies go back
// in request order, so the client matches them first-in first-out without ids; replies already
// decided when the writer runs leave in one write (fewer yamux frames and noise messages).
// Invariants: every handler closes its stream in `finally` (libp2p caps inbound streams at 32); a
// framing error (`message_too_large`, `malformed_frame`) is answered after the replies already
// owed and then the stream is closed; a handler that throws answers `witness_unavailable` and the
// node keeps running. At most `maxInFlight` requests (256) and `maxInFlightBytes` of request
// frames (8 MiB, or one frame over it) per stream are unanswered at a time: the bytes bound what a
// peer can make us hold (64 streams a connection; 64 frames of 1 MiB were 64 MiB a stream); the
// count lets one sequencer's round of small requests be decided together, so that group commit,
// the verify and signing workers and the reply writes share their fixed costs over more requests
// (a larger count, 64, cost more CPU per request on the bench's 1,000 logs over 4 streams).

import type { Connection, Stream } from '@libp2p/interface';
import { encodeMessage, failureReply, WITNESS_PROTOCOL, type Reply } from '../wire/messages.ts';
import { createFrameChannel } from '../wire/frame-channel.ts';
import type { P2pNode } from '../wire/p2p-node.ts';
import { fail } from '../../verifier/index.ts';

export type FrameHandler = (frame: Uint8Array, remotePeer: string) => Promise<Reply>;

export interface ServeOptions {
  /** Unanswered requests per stream before reading pauses (default 256). */
  maxInFlight?: number;
  /** Bytes of unanswered request frames per stream before reading pauses (default 8 MiB). */
  maxInFlightBytes?: number;
  maxFrame?: number;
  onError?: (e: Error) => void;
}

export async function serveStream(stream: Stream, remotePeer: string, handle: FrameHandler, opts: ServeOptions = {}): Promise<void> {
  const ch = createFrameChannel(stream, { maxFrame: opts.maxFrame });
  const maxInFlight = opts.maxInFlight ?? 256;
  const maxInFlightBytes = opts.maxInFlightBytes ?? 8 * 1024 * 1024;
  /** Replies owed in request order; `reply` is set as soon as its request is decided. */
  const owed: Array<{ p: Promise<Reply>; reply?: Reply; bytes: number }> = [];
  /** Frame bytes of the requests in `owed`. */
  let owedBytes = 0;
  let writer = Promise.resolve();
  let pumping = false;
  let writeFailed = false;
  const safe = async (frame: Uint8Array): Promise<Reply> => {
    try {
      return await handle(frame, remotePeer);
    } catch (e) {
      opts.onError?.(e as Error);
      return failureReply(fail('witness_unavailable', 'the witness could not decide this request'));
    }
  };
  // One writer per stream: waits for the oldest owed reply, then sends it together with every
  // reply already decided behind it in one write (one yamux frame, one noise message), in order.
  const pump = async (): Promise<void> => {
    for (;;) {
      if (owed.length === 0) {
        pumping = false; // no await between the check and this: a reply enqueued later starts a new pump
        return;
      }
      await owed[0].p;
      // Decisions that finish in this turn (a group commit resolves many at once) join the write.
      if (owed.length > 1) await new Promise((r) => setImmediate(r));
      const batch: Uint8Array[] = [];
      while (owed.length > 0 && owed[0].reply !== undefined) {
        const o = owed.shift()!;
        owedBytes -= o.bytes;
        batch.push(encodeMessage(o.reply!));
      }
      if (writeFailed) continue;
      try {
        await ch.sendMany(batch);
      } catch (e) {
        writeFailed = true;
        opts.onError?.(e as Error);
      }
    }
  };
  const enqueueReply = (p: Promise<Reply>, bytes = 0) => {
    const o: { p: Promise<Reply>; reply?: Reply; bytes: number } = { p, bytes };
    owedBytes += bytes;
    // Registered before the writer awaits p, so it has run by the time the writer resumes.
    void p.then((r) => (o.reply = r));
    owed.push(o);
    if (!pumping) {
      pumping = true;
      writer = pump();
    }
  };
  try {
    for (;;) {
      // Bounded: each wait lets the writer send (and drop) at least the oldest decided reply.
      while ((owed.length >= maxInFlight || (owedBytes >= maxInFlightBytes && owed.length > 0)) && !writeFailed) {
        await owed[0].p;
        await new Promise((r) => setImmediate(r));
      }
      const n = await ch.next();
      if ('end' in n) break;
      if ('error' in n) {
        enqueueReply(Promise.resolve(failureReply(n.error)));
        break;
      }
      enqueueReply(safe(n.frame), n.frame.length);
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
