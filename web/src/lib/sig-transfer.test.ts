// web/src/lib/sig-transfer.test.ts: the packed batch of raw checks (sig-transfer.ts) gives back the
// same checks in the same order, and the port pool (sig-pool.ts) answers each batch with its own
// verdicts from a worker-like peer on a real MessageChannel, whichever port runs it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawCheck } from '../../../verifier/bundle/index.ts';
import { createPortPool } from './sig-pool.ts';
import { packChecks, unpackChecks } from './sig-transfer.ts';

const check = fc.record({
  alg: fc.constantFrom('EdDSA', 'ES256') as fc.Arbitrary<RawCheck['alg']>,
  publicKey: fc.uint8Array({ maxLength: 70 }),
  msg: fc.uint8Array({ maxLength: 400 }),
  sig: fc.uint8Array({ maxLength: 70 }),
});

describe('sig-transfer', () => {
  it('unpack(pack(checks)) gives the same checks in order', () => {
    fc.assert(
      fc.property(fc.array(check, { maxLength: 40 }), (items) => {
        const back = unpackChecks(packChecks(items));
        expect(back.map((c) => ({ ...c, publicKey: [...c.publicKey], msg: [...c.msg], sig: [...c.sig] }))).toEqual(
          items.map((c) => ({ ...c, publicKey: [...c.publicKey], msg: [...c.msg], sig: [...c.sig] })),
        );
      }),
    );
  });

  it('an algorithm outside the two comes back as one that no backend accepts', () => {
    const [c] = unpackChecks(
      packChecks([{ alg: 'RS256' as RawCheck['alg'], publicKey: new Uint8Array(1), msg: new Uint8Array(0), sig: new Uint8Array(1) }]),
    );
    expect(['EdDSA', 'ES256']).not.toContain(c.alg);
  });
});

describe('sig-pool', () => {
  it('answers every batch with its own verdicts, spread over the ports', async () => {
    const served = [0, 0];
    const channels = [new MessageChannel(), new MessageChannel()];
    channels.forEach((ch, i) => {
      // The peer: a check is good when its first message byte is odd.
      ch.port1.onmessage = (e: MessageEvent<{ id: number; buf: ArrayBuffer }>) => {
        served[i]++;
        const verdicts = Uint8Array.from(unpackChecks(e.data.buf), (c) => (c.msg[0] ?? 0) & 1);
        ch.port1.postMessage({ id: e.data.id, verdicts });
      };
    });
    const pool = createPortPool(channels.map((c) => c.port2));
    const batches = Array.from({ length: 20 }, (_, b) =>
      Array.from({ length: 1 + (b % 7) }, (_, i): RawCheck => ({
        alg: 'EdDSA',
        publicKey: new Uint8Array(32),
        msg: Uint8Array.of((b * 7 + i) & 0xff),
        sig: new Uint8Array(64),
      })),
    );
    const got = await Promise.all(batches.map((b) => pool(b)));
    expect(got).toEqual(batches.map((b) => b.map((c) => (c.msg[0] & 1) === 1)));
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
    for (const ch of channels) {
      ch.port1.close();
      ch.port2.close();
    }
  });

  it('rejects a batch whose answer is an error or the wrong length', async () => {
    const ch = new MessageChannel();
    ch.port1.onmessage = (e: MessageEvent<{ id: number }>) =>
      ch.port1.postMessage(e.data.id === 1 ? { id: 1, error: 'boom' } : { id: e.data.id, verdicts: new Uint8Array(5) });
    const pool = createPortPool([ch.port2]);
    const one: RawCheck = { alg: 'EdDSA', publicKey: new Uint8Array(32), msg: new Uint8Array(1), sig: new Uint8Array(64) };
    await expect(pool([one])).rejects.toThrow('boom');
    await expect(pool([one, one])).rejects.toThrow();
    ch.port1.close();
    ch.port2.close();
  });
});
