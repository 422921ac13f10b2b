// test/web-fixture.ts: what the web tests (test/web-*.test.ts) run against (docs/design.md §12b). Headless
// Debian Chromium (/usr/bin/chromium, never a downloaded browser) driven by playwright-core, with
// exactly the flags of docs/design.md §12b, a fresh --user-data-dir per launch and the pipe playwright talks
// over (ignoreDefaultArgs, so no other flag is added). A real log for the pages: `cookwala init`
// into a temp dir, a real sequencer (LevelDB, fastify on 127.0.0.1:0) on a manual clock set to
// now, three witness keys in the policy at quorum 2 and a checkpoint publisher that stands in for
// the libp2p witnesses (as testkit/audit.ts does): it cosigns with the witnesses that are up
// and reports, as the real witness client does (witness/client/publisher.ts status()), what each witness
// last answered, so the explorer can show a witness that is down with its last error. Devices
// register through the operator endpoint and post signed events; payloads are erased by DELETE.

import { witnessDisplayName } from '../verifier/signing/witness-identity.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import type { CheckpointPublisher, PublisherStatus } from '../sequencer/checkpointer.ts';
import { addCosignature, cosignCheckpoint, type Checkpoint } from '../verifier/documents/checkpoint.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { createSigner, type Signer } from '../verifier/signing/signature.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { createManualClock, type ManualClock } from '../testkit/clock.ts';
import { deviceKey, signerKey, type TestKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** docs/design.md §12b, exactly. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y --no-install-recommends chromium); .ci/run does`,
    );
  const profile = await makeTempDir('cookwala-chromium-');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'],
    timeout: 30_000,
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      await removeDir(profile);
    },
  };
}

export const WEB_LOG = 'web.example/missions/m-12';

export interface WebLog {
  dir: string;
  clock: ManualClock;
  seq: Sequencer;
  url: string;
  token: string;
  sequencer: Signer;
  sequencerKey: KeyRecord;
  witnesses: TestKey[];
  devices: TestKey[];
  policyPath: string;
  /** Witness i (0-based) stops answering: later checkpoints lack its cosignature and status() says why. */
  witnessDown(i: number, error: string): void;
  /** Witness i answers again: the next checkpoint carries its cosignature. */
  witnessUp(i: number): void;
  /** Post `n` events per device, then sign (and cosign) a checkpoint. */
  round(n: number): Promise<void>;
  /** Post `n` events per device and no checkpoint (they stay unwitnessed until `checkpoint`). */
  post(n: number): Promise<void>;
  /** Sign (and cosign) a checkpoint of what is in the log. */
  checkpoint(): Promise<void>;
  erase(seq: number): Promise<void>;
  bundle(): Promise<string>;
  keyCache(): Promise<string>;
  close(): Promise<void>;
}

export async function buildWebLog(): Promise<WebLog> {
  const dir = await makeTempDir('cookwala-web-');
  // Now, in whole seconds, minus an hour: the export (on the real clock) comes after every stamp.
  const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  await initDataDir({ dir, logs: [WEB_LOG], mode: 'hash_only', now: () => clock.now() });
  const sequencerKey = JSON.parse(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const sequencer = createSigner(JSON.parse(await readFile(join(dir, DATA_FILES.key), 'utf8')));
  const token = (await readFile(join(dir, DATA_FILES.token), 'utf8')).trim();
  const witnesses = ['alpha', 'beta', 'gamma'].map((n) =>
    signerKey(`web-${n}`, 'witness', { validFrom: formatTime(clock.now() - 86_400_000) }),
  );
  const policy = { kind: 'WitnessPolicy', log: WEB_LOG, sequencer: sequencerKey, witnesses: witnesses.map((w) => w.record), quorum: 2 };
  const policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, JSON.stringify(policy, null, 2) + '\n');
  const down = new Map<number, string>();
  const state = witnesses.map(() => ({ lastCosignedSeq: undefined as number | undefined, kid: undefined as string | undefined }));
  const publisher: CheckpointPublisher = {
    async publish(cp: Checkpoint) {
      let c = cp;
      witnesses.forEach((w, i) => {
        if (down.has(i)) return;
        c = addCosignature(c, cosignCheckpoint(c, w.signer, formatTime(clock.now())));
        state[i] = { lastCosignedSeq: cp.seq, kid: w.record.kid };
      });
      return witnesses.length - down.size >= 2 ? c : undefined;
    },
    status(): PublisherStatus {
      return {
        quorumMissing: witnesses.length - down.size < 2,
        reason: undefined,
        witnesses: witnesses.map((_, i) => ({
          addr: `/ip4/127.0.0.1/tcp/${4101 + i}/p2p/12D3KooWitness${i + 1}`,
          kid: state[i].kid,
          knownSeq: state[i].lastCosignedSeq,
          lastCosignedSeq: state[i].lastCosignedSeq,
          lastError: down.get(i),
        })),
        // One row per witness, as the real client reports them (witness/client/publisher.ts rows()).
        rows: witnesses.map((w, i) => ({
          name: witnessDisplayName(w.record),
          kid: w.record.kid,
          transports: [{ transport: 'libp2p' as const, addr: `/ip4/127.0.0.1/tcp/${4101 + i}/p2p/12D3KooWitness${i + 1}` }],
          state: down.has(i)
            ? `unreachable: ${down.get(i)!.replace(/^[a-z_]+: /, '')}`
            : state[i].lastCosignedSeq !== undefined
              ? 'cosigned'
              : 'not asked yet',
          lastTriedAt: formatTime(clock.now()),
          lastCosignedSeq: state[i].lastCosignedSeq,
          lastCosignedAt: undefined,
          lastError: down.get(i),
          latencyMs: 3,
        })),
      };
    },
  };
  const seq = await openSequencer(dir, { clock, timers: false, publisherFor: () => publisher });
  const url = await seq.app.listen({ host: '127.0.0.1', port: 0 });
  const devices = [deviceKey(121), deviceKey(122)];
  for (const d of devices) {
    const r = await seq.app.inject({
      method: 'POST',
      url: logPath(WEB_LOG, '/keys'),
      headers: { authorization: `Bearer ${token}` },
      payload: d.record,
    });
    if (r.statusCode !== 201 && r.statusCode !== 200) throw new Error(`register ${d.record.kid}: ${r.statusCode} ${r.body}`);
  }
  const streams = devices.map((d) => eventStream(d, { signedAt: () => formatTime(clock.now() - 1000) }));
  let posted = 0;
  async function post(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      clock.advance(1500);
      const events = [
        streams[0].next(i % 2 === 0 ? 'exec-oven-1' : 'exec-oven-2'),
        streams[1].next('exec-mixer-7', { data: { step: i, note: 'é ✓ 𝄞' } }),
      ];
      for (const ce of events) {
        const r = await seq.app.inject({
          method: 'POST',
          url: logPath(WEB_LOG, '/events'),
          headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `web-${++posted}` },
          payload: JSON.stringify(ce),
        });
        if (r.statusCode !== 201) throw new Error(`post: ${r.statusCode} ${r.body}`);
      }
    }
  }
  async function checkpoint(): Promise<void> {
    clock.advance(1000);
    await seq.tick();
  }
  return {
    dir,
    clock,
    seq,
    url,
    token,
    sequencer,
    sequencerKey,
    witnesses,
    devices,
    policyPath,
    witnessDown: (i, error) => void down.set(i, error),
    witnessUp: (i) => void down.delete(i),
    async round(n) {
      await post(n);
      await checkpoint();
    },
    post,
    checkpoint,
    async erase(n) {
      const r = await seq.app.inject({
        method: 'DELETE',
        url: logPath(WEB_LOG, `/events/${n}/payload`),
        headers: { authorization: `Bearer ${token}` },
        payload: { reason: 'consent withdrawn' },
      });
      if (r.statusCode !== 200) throw new Error(`erase: ${r.statusCode} ${r.body}`);
      clock.advance(1000);
      await seq.tick();
    },
    async bundle() {
      const r = await seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, '/bundle') });
      if (r.statusCode !== 200) throw new Error(`bundle: ${r.statusCode} ${r.body}`);
      return r.body;
    },
    async keyCache() {
      const r = await seq.app.inject({ method: 'GET', url: logPath(WEB_LOG, '/keys') });
      return r.body;
    },
    async close() {
      await seq.close();
      await removeDir(dir);
    },
  };
}
