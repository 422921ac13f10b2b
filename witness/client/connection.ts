// witness/client/connection.ts: the asking end of `/cookwala/witness/1.0.0` (docs/design.md §7, §15): one
// long-lived stream per witness, opened on first use and reopened after it breaks; requests are
// pipelined on it and replies matched first-in first-out (the server answers in order). A
// request that gets no reply in `timeoutMs` poisons the stream (a late reply would be matched to
// the wrong request), so the stream is aborted and every pending request fails with
// `witness_unavailable`; the caller decides whether to ask again. Requests made in one event-loop
// turn leave in one write (one yamux frame, one noise message), still in the order their replies
// are matched: the write waits for setImmediate, not a microtask, so the requests a caller makes
// while a chunk of replies is read (one per reply, when it keeps a window full) join one write
// instead of leaving one or two at a time (so the witness decrypts and demultiplexes
// one message per chunk, not per request).
// Invariant: a reply is handed out only after parseReply checked its shape; what it means (a
// cosignature that verifies, a knownSeq to resend from) is the publisher's to judge.

import type { Stream } from '@libp2p/interface';
import { fail, ok, type Result } from '../../verifier/index.ts';
import { encodeMessage, parseReply, WITNESS_PROTOCOL, type AddCheckpointRequest, type Reply } from '../wire/messages.ts';
import { createFrameChannel, type FrameChannel } from '../wire/frame-channel.ts';
import { parseMultiaddr, type P2pNode } from '../wire/p2p-node.ts';

export interface WitnessConnection {
  /** The witness's multiaddr (with /p2p/<peerId>), as configured. */
  readonly addr: string;
  readonly peerId: string | undefined;
  request(req: AddCheckpointRequest | Record<string, unknown>, opts?: { timeoutMs?: number }): Promise<Result<Reply>>;
  /** Whether a stream is open right now. */
  readonly connected: boolean;
  close(): Promise<void>;
}

export interface ConnectionOptions {
  timeoutMs?: number;
  dialTimeoutMs?: number;
}

interface Waiter {
  resolve(r: Result<Reply>): void;
  timer: NodeJS.Timeout;
}

export function createWitnessConnection(node: P2pNode, addr: string, opts: ConnectionOptions = {}): WitnessConnection {
  const ma = parseMultiaddr(addr);
  const peerId = ma.getComponents().find((c) => c.name === 'p2p')?.value;
  let channel: FrameChannel | undefined;
  let opening: Promise<FrameChannel> | undefined;
  let waiters: Waiter[] = [];
  let closed = false;
  /** Requests encoded in this event-loop turn, sent in one write (in order, as their waiters were queued). */
  let outbox: { ch: FrameChannel; frames: Uint8Array[] } | undefined;
  const flushOutbox = () => {
    const o = outbox;
    outbox = undefined;
    if (o) o.ch.sendMany(o.frames).catch((e) => drop(o.ch, `send: ${(e as Error).message}`));
  };

  const failAll = (detail: string) => {
    const ws = waiters;
    waiters = [];
    for (const w of ws) {
      clearTimeout(w.timer);
      w.resolve(fail('witness_unavailable', `${addr}: ${detail}`));
    }
  };

  const drop = (ch: FrameChannel, why: string) => {
    if (channel === ch) channel = undefined;
    if (outbox?.ch === ch) outbox = undefined;
    ch.abort(new Error(why));
    failAll(why);
  };

  const readLoop = async (ch: FrameChannel) => {
    for (;;) {
      const n = await ch.next();
      if ('frame' in n) {
        const w = waiters.shift();
        if (!w) {
          drop(ch, 'a reply nobody asked for');
          return;
        }
        clearTimeout(w.timer);
        const r = parseReply(n.frame);
        w.resolve(r.ok ? r : fail('witness_unavailable', `${addr}: unreadable reply: ${r.code} ${r.detail}`));
        continue;
      }
      if (channel === ch) channel = undefined;
      failAll('error' in n ? `framing: ${n.error.detail}` : 'stream closed');
      return;
    }
  };

  const open = async (): Promise<FrameChannel> => {
    if (channel?.open) return channel;
    opening ??= (async () => {
      try {
        const stream: Stream = await node.dialProtocol(ma, WITNESS_PROTOCOL, { signal: AbortSignal.timeout(opts.dialTimeoutMs ?? 3000) });
        const ch = createFrameChannel(stream);
        channel = ch;
        void readLoop(ch);
        return ch;
      } finally {
        opening = undefined;
      }
    })();
    return opening;
  };

  return {
    addr,
    peerId,
    get connected() {
      return channel?.open === true;
    },
    async request(req, ropts = {}) {
      if (closed) return fail('witness_unavailable', `${addr}: client closed`);
      let ch: FrameChannel;
      try {
        ch = await open();
      } catch (e) {
        return fail('witness_unavailable', `${addr}: ${(e as Error).message}`);
      }
      const bytes = encodeMessage(req);
      return new Promise<Result<Reply>>((resolve) => {
        const timer = setTimeout(
          () => drop(ch, `no reply in ${ropts.timeoutMs ?? opts.timeoutMs ?? 5000} ms`),
          ropts.timeoutMs ?? opts.timeoutMs ?? 5000,
        );
        waiters.push({ resolve, timer });
        if (outbox && outbox.ch !== ch) flushOutbox();
        if (outbox) outbox.frames.push(bytes);
        else {
          outbox = { ch, frames: [bytes] };
          setImmediate(flushOutbox);
        }
      });
    },
    async close() {
      closed = true;
      outbox = undefined;
      const ch = channel;
      channel = undefined;
      failAll('client closed');
      if (ch) await ch.close();
    },
  };
}

/** A reply that is a cosignature, or the failure it carries. */
export function cosignatureOf(r: Result<Reply>): Result<Extract<Reply, { ok: true }>['cosignature']> {
  if (!r.ok) return r;
  if (r.value.ok) return ok(r.value.cosignature);
  const { ok: _ok, code, detail, ...extra } = r.value;
  return fail(code, detail, extra);
}
