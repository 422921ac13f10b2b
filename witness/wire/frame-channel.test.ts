import { describe, expect, it } from 'vitest';
import type { Stream } from '@libp2p/interface';
import { createFrameChannel } from './frame-channel.ts';
import { encodeFrame, MAX_FRAME_BYTES } from './frame.ts';

/** The parts of a libp2p 3 stream the channel uses: events, status, pause and resume. */
function fakeStream() {
  const t = new EventTarget();
  const s = {
    status: 'open',
    pauses: 0,
    resumes: 0,
    addEventListener: t.addEventListener.bind(t),
    removeEventListener: t.removeEventListener.bind(t),
    pause() {
      s.pauses++;
    },
    resume() {
      s.resumes++;
    },
    push(bytes: Uint8Array) {
      t.dispatchEvent(Object.assign(new Event('message'), { data: bytes }));
    },
  };
  return s;
}

describe('frame channel backpressure', () => {
  it('pauses a peer that parks large frames long before the frame count limit, and resumes once they are read', async () => {
    const s = fakeStream();
    const ch = createFrameChannel(s as unknown as Stream);
    const big = encodeFrame(new Uint8Array(MAX_FRAME_BYTES));
    for (let i = 0; i < 4; i++) s.push(big);
    expect(s.pauses).toBe(1); // 4 MiB queued, 4 of 256 frames
    for (let i = 0; i < 4; i++) {
      const n = await ch.next();
      expect('frame' in n && n.frame.length).toBe(MAX_FRAME_BYTES);
    }
    expect(s.resumes).toBe(1);
  });

  it('small frames still pause at the frame count', async () => {
    const s = fakeStream();
    const ch = createFrameChannel(s as unknown as Stream, { maxQueued: 8 });
    for (let i = 0; i < 7; i++) s.push(encodeFrame(new Uint8Array(10)));
    expect(s.pauses).toBe(0);
    s.push(encodeFrame(new Uint8Array(10)));
    expect(s.pauses).toBe(1);
    for (let i = 0; i < 5; i++) await ch.next();
    expect(s.resumes).toBe(1);
  });
});
