// executor/cli.ts: `cookwala executor` (DESIGN §12): run one device executor, or with --simulate N
// run N simulated devices through realistic missions on a fast clock, printing progress. Creates or
// loads the device key (EdDSA, owner = the device's CloudEvents source urn:cookwala:device:<name>),
// registers it with the sequencer when given an operator token, and delivers from the outbox only
// when consent lets it (none by default). One device listens on 127.0.0.1:--port (default 8710)
// until SIGINT/SIGTERM; the simulator exits 0 after its missions once the outboxes have drained
// (1 if they did not within the limit). Exit 2 on bad flags.

import { join } from 'node:path';
import { parseFlags, runCli, UsageError } from '../platform/args.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { DeviceSetupError, loadOrCreateDevice } from './device-key.ts';
import { createExecutor } from './executor.ts';
import { fastClock, systemClock } from './clock.ts';
import { isDataset, type Dataset } from './request.ts';
import { createSimulatedHardware } from './runner.ts';
import { createSequencerClient, ensureRegistered } from './sequencer-client.ts';
import { RegistrationError, runSimulation } from './simulator.ts';

const USAGE = `usage: cookwala executor --data DIR [--sequencer URL --log ORIGIN] [--port N] [--simulate N]
                         [--consent research_only|open|none] [--register-token TOKEN]

  --data DIR            the device's data dir (key, LevelDB); the simulator puts devices in DIR/devices/
  --sequencer URL       where events are delivered (with --log, the log's origin)
  --log ORIGIN          the log origin, e.g. localhost/missions/demo
  --port N              API port on 127.0.0.1 (default 8710; with --simulate: first port, default any)
  --simulate N          run N simulated devices through realistic missions, then exit
  --missions M          missions per simulated device (default 3)
  --speed X             simulated clock speed-up (default 300 with --simulate, else 1)
  --consent DATASET     set the device consent: none (default; nothing leaves), research_only, open;
                        changing to none withdraws consent (one cookwala.consent.withdrawn is sent)
  --register-token T    operator token: register the device key with the sequencer first
  --name NAME           the device name at creation (default device-<random>)
  --heartbeat-ms MS     heartbeat interval (default 5000; 0 = off)`;

function num(v: string | undefined, flag: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} must be a number >= ${min}`);
  return n;
}

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    try {
      return await main(argv);
    } catch (e) {
      // A held store (another executor on this data dir) or a bad key file: say so, exit 1.
      if (e instanceof ProtocolError || e instanceof DeviceSetupError || e instanceof RegistrationError) {
        process.stderr.write(`cookwala executor: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  });
}

async function main(argv: string[]): Promise<number> {
  {
    const { values } = parseFlags(argv, {
      data: { type: 'string' },
      sequencer: { type: 'string' },
      log: { type: 'string' },
      port: { type: 'string' },
      simulate: { type: 'string' },
      missions: { type: 'string' },
      speed: { type: 'string' },
      consent: { type: 'string' },
      'register-token': { type: 'string' },
      name: { type: 'string' },
      'heartbeat-ms': { type: 'string' },
    }, false);
    if (!values.data) throw new UsageError('--data DIR is required');
    if (values.sequencer && !values.log) throw new UsageError('--sequencer needs --log ORIGIN');
    if (values['register-token'] && !values.sequencer) throw new UsageError('--register-token needs --sequencer');
    if (values.consent !== undefined && !isDataset(values.consent)) throw new UsageError('--consent is none, research_only or open');
    const consent = values.consent as Dataset | undefined;
    const simulate = num(values.simulate, '--simulate', 1);
    const port = num(values.port, '--port', 0);
    const heartbeatIntervalMs = num(values['heartbeat-ms'], '--heartbeat-ms', 0);
    const speed = num(values.speed, '--speed', 1);

    if (simulate !== undefined) {
      const sum = await runSimulation({
        dir: values.data,
        devices: Math.floor(simulate),
        missions: num(values.missions, '--missions', 1),
        speed: speed ?? 300,
        sequencerUrl: values.sequencer,
        log: values.log,
        consent,
        registerToken: values['register-token'],
        port: port ?? 0,
        heartbeatIntervalMs,
      });
      return sum.drained ? 0 : 1;
    }

    const dir = values.data;
    const identity = await loadOrCreateDevice(dir, { name: values.name });
    if (values['register-token'] && values.sequencer && values.log) {
      const r = await ensureRegistered(createSequencerClient({ url: values.sequencer, log: values.log }), identity.keyRecord, values['register-token']);
      if (!r.ok) {
        process.stderr.write(`cookwala executor: registering ${identity.keyRecord.kid}: ${r.detail}\n`);
        return 1;
      }
      process.stdout.write(`registered ${identity.keyRecord.kid} with ${values.sequencer}\n`);
    }
    const clock = speed && speed > 1 ? fastClock(speed) : systemClock();
    const ex = await createExecutor(
      {
        dataDir: dir,
        source: identity.source,
        signer: identity.signer,
        keyRecord: identity.keyRecord,
        clock,
        hardware: (svc, c, limits) => createSimulatedHardware(svc, c, { spinDownMs: limits.limits.cutHeatMs, onError: (m) => process.stderr.write(`${m}\n`) }),
        onError: (m) => process.stderr.write(`${m}\n`),
      },
      { sequencerUrl: values.sequencer, log: values.log, consent, heartbeatIntervalMs },
    );
    const rec = await ex.start();
    const url = await ex.app.listen({ host: '127.0.0.1', port: port ?? 8710 });
    process.stdout.write(`device ${identity.name} (${identity.source}, key ${identity.keyRecord.kid}) listening on ${url}\n`);
    process.stdout.write(`consent: ${ex.store.consent().dataset}; data: ${join(dir, 'db')}; recovered: ${JSON.stringify(rec)}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await ex.close();
    return 0;
  }
}
