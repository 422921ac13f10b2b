// witness/wire/frame-channel.ts: a libp2p 3 stream as a channel of frames (witness/wire/frame.ts), for both
// ends of `/cookwala/witness/1.0.0`. libp2p 3 streams are event based ('message', 'close',
// 'remoteCloseWrite'); this adapter turns them into `next()` / `send()` with backpressure: after
// `maxQueued` undelivered frames, or `maxQueuedBytes` of them (default 4 MiB: a count alone would
// let a peer park 256 frames of 1 MiB each per stream), the stream is paused until the reader
// catches up, so a peer that pipelines faster than we answer cannot grow our memory without bound.
// Invariant: after a framing error no further frame is delivered (the caller answers and closes).

import type { Stream, StreamMessageEvent } from '@libp2p/interface';
import type { Failure } from '../../verifier/errors.ts';
import { createFrameDecoder, encodeFrame, MAX_FRAME_BYTES } from './frame.ts';

export type NextFrame = { frame: Uint8Array } | { end: true } | { error: Failure };

export interface FrameChannel {
  next(): Promise<NextFrame>;
  send(payload: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(e: Error): void;
  readonly open: boolean;
}

export function createFrameChannel(stream: Stream, opts: { maxFrame?: number; maxQueued?: number; maxQueuedBytes?: number } = {}): FrameChannel {
  const decoder = createFrameDecoder(opts.maxFrame ?? MAX_FRAME_BYTES);
  const maxQueued = opts.maxQueued ?? 256;
  const maxQueuedBytes = opts.maxQueuedBytes ?? 4 * MAX_FRAME_BYTES;
  const queue: NextFrame[] = [];
  let queuedBytes = 0;
  let waiter: ((n: NextFrame) => void) | undefined;
  let ended = false;
  let paused = false;

  const deliver = (n: NextFrame) => {
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(n);
    } else {
      queue.push(n);
      if ('frame' in n) queuedBytes += n.frame.length;
    }
  };
  const finish = (n: NextFrame) => {
    if (ended) return;
    ended = true;
    deliver(n);
  };

  const onMessage = (evt: StreamMessageEvent) => {
    if (ended) return;
    const bytes = evt.data instanceof Uint8Array ? evt.data : evt.data.subarray();
    const r = decoder.push(bytes);
    for (const f of r.frames) deliver({ frame: f });
    if (r.error) finish({ error: r.error });
    else if (!paused && (queue.length >= maxQueued || queuedBytes >= maxQueuedBytes) && stream.status === 'open') {
      paused = true;
      stream.pause();
    }
  };
  const onEnd = () => finish({ end: true });
  stream.addEventListener('message', onMessage);
  stream.addEventListener('close', onEnd);
  stream.addEventListener('remoteCloseWrite', onEnd);

  return {
    get open() {
      return !ended && stream.status === 'open';
    },
    next() {
      const n = queue.shift();
      if (n && 'frame' in n) queuedBytes -= n.frame.length;
      if (paused && queue.length < maxQueued / 2 && queuedBytes < maxQueuedBytes / 2) {
        paused = false;
        if (stream.status === 'open') stream.resume();
      }
      if (n) return Promise.resolve(n);
      if (ended) return Promise.resolve({ end: true });
      return new Promise((resolve) => (waiter = resolve));
    },
    async send(payload) {
      if (!stream.send(encodeFrame(payload))) await stream.onDrain();
    },
    async close() {
      stream.removeEventListener('message', onMessage);
      try {
        await stream.close({ signal: AbortSignal.timeout(2000) });
      } catch (e) {
        stream.abort(e as Error);
      }
      finish({ end: true });
    },
    abort(e) {
      stream.abort(e);
      finish({ end: true });
    },
  };
}
