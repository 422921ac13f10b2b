// executor/cli.ts: `cookwala executor` (docs/design.md §12): run one device executor, or with --simulate N
// run N simulated devices through realistic missions on a fast clock, printing progress. Creates or
// loads the device key (EdDSA, owner = the device's CloudEvents source urn:cookwala:device:<name>),
// registers it with the sequencer when given an operator token, and delivers from the outbox only
// when consent lets it (none by default). One device listens on 127.0.0.1:--port (default 8710)
// until SIGINT/SIGTERM; the simulator exits 0 after its missions once the outboxes have drained
// (1 if they did not within the limit). Exit 2 on bad flags. A single device also creates its owner
// token (DATA/owner-token, mode 0600) for the owner routes, logs every status change as one JSON
// line on stdout (platform/logger.ts: event `execution_status`, msg `status <id> #<seq> <state>
// [(<reason>)]`; also `device_registered`, `listening`, `attendance`, `local_stop`, `service_error`, `shutdown`), takes its initial attendance from --attendance
// (§6.6; nobody by default), and offers its local stop control without HTTP: SIGUSR2 and
// DATA/control.sock (local-control.ts).

import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { readTextIfExists, writeFileOnce } from '../platform/index.ts';
import { parseAttendanceFlag, type AttendanceState } from './attendance.ts';
import { startLocalControl } from './local-control.ts';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { claimDataDir } from '../platform/index.ts';
import { readOperatorToken } from '../platform/index.ts';
import { ProtocolError } from '../verifier/index.ts';
import { DeviceSetupError, loadOrCreateDevice } from './device-key.ts';
import { createExecutor } from './executor.ts';
import { fastClock, systemClock } from '../platform/index.ts';
import { isDataset, type Dataset } from './request.ts';
import { createSimulatedHardware } from './runner.ts';
import { createSequencerClient, ensureRegistered, sequencerUrls } from './sequencer-client.ts';
import { RegistrationError, runSimulation } from './simulator.ts';
import { createLogger } from '../platform/index.ts';

const USAGE = `usage: cookwala executor --data DIR [--sequencer URL --log ORIGIN] [--port N] [--simulate N]
                         [--consent research_only|open|none] [--register-token-file FILE]
                         [--attendance present|absent|reachable:S] [--max-connections N]

  --data DIR            the device's data dir (key, LevelDB); the simulator puts devices in DIR/devices/
  --sequencer URL       where events are delivered (with --log, the log's origin); several sequencers
                        serving one log (one leads): repeat the flag or give a comma list; the
                        outbox follows the leader a 503 not_leader names (docs/failover.md)
  --log ORIGIN          the log origin, e.g. localhost/missions/demo
  --port N              API port on 127.0.0.1 (default 8710; with --simulate: first port, default any)
  --simulate N          run N simulated devices through realistic missions, then exit
  --missions M          missions per simulated device (default 3)
  --speed X             simulated clock speed-up (default 300 with --simulate, else 1)
  --consent DATASET     set the device consent: none (default; nothing leaves), research_only, open;
                        changing to none withdraws consent (one cookwala.consent.withdrawn is sent);
                        while running, the owner does the same with PUT /v1/consent {"dataset":…}
  --register-token-file FILE  the operator token (e.g. SEQ/operator.token): register the device key
                        with the sequencer first; or set COOKWALA_OPERATOR_TOKEN (--register-token=T
                        works too, but shows the token in \`ps\`)
  --name NAME           the device name at creation (default device-<random>)
  --heartbeat-ms MS     heartbeat interval (default 5000; 0 = off)
  --attendance A        who is around at start (§6.6): present, absent (default) or reachable:<seconds>
                        (60 or less counts); the owner changes it with PUT /v1/attendance. With
                        --simulate the default is present (a simulated cook stands by).
  --max-connections N   at most N open HTTP connections (the rest are dropped)

Owner routes (pause, attendance, consent) need Authorization: Bearer <DATA/owner-token> from
127.0.0.1. Local stop without HTTP: kill -USR2 <pid> (everything), or a line "stop" / "stop <id>"
to the Unix socket DATA/control.sock.`;

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
    const { values } = parseFlags(
      argv,
      {
        data: { type: 'string' },
        sequencer: { type: 'string', multiple: true },
        log: { type: 'string' },
        port: { type: 'string' },
        simulate: { type: 'string' },
        missions: { type: 'string' },
        speed: { type: 'string' },
        consent: { type: 'string' },
        'register-token': { type: 'string' },
        'register-token-file': { type: 'string' },
        name: { type: 'string' },
        'heartbeat-ms': { type: 'string' },
        attendance: { type: 'string' },
        'max-connections': { type: 'string' },
      },
      false,
    );
    if (!values.data) throw new UsageError('--data DIR is required');
    // --sequencer repeated or a comma list: every process that may serve the log, kept as one comma list.
    const urls = values.sequencer ? sequencerUrls(values.sequencer) : [];
    for (const u of urls) if (!/^https?:\/\/[^\s]+$/.test(u)) throw new UsageError(`--sequencer ${u} is not an http(s) URL`);
    const sequencer = urls.length > 0 ? urls.join(',') : undefined;
    if (sequencer && !values.log) throw new UsageError('--sequencer needs --log ORIGIN');
    const tok = await readOperatorToken({ flag: values['register-token'], file: values['register-token-file'] });
    if (!tok.ok) {
      process.stderr.write(`cookwala executor: ${tok.detail}\n`);
      return 2;
    }
    const registerToken = tok.value?.token;
    if (registerToken && !sequencer) throw new UsageError(`the operator token (${tok.value!.from}) needs --sequencer`);
    if (tok.value?.from === '--register-token')
      process.stderr.write(
        'cookwala executor: --register-token shows the token to anyone running `ps`: prefer --register-token-file FILE or COOKWALA_OPERATOR_TOKEN\n',
      );
    if (values.consent !== undefined && !isDataset(values.consent)) throw new UsageError('--consent is none, research_only or open');
    const consent = values.consent as Dataset | undefined;
    const simulate = num(values.simulate, '--simulate', 1);
    const port = num(values.port, '--port', 0);
    const heartbeatIntervalMs = num(values['heartbeat-ms'], '--heartbeat-ms', 0);
    const speed = num(values.speed, '--speed', 1);
    let attendance: AttendanceState | undefined;
    if (values.attendance !== undefined) {
      const a = parseAttendanceFlag(values.attendance);
      if (!a.ok) throw new UsageError(a.detail);
      attendance = a.value;
    }
    const maxConnections = num(values['max-connections'], '--max-connections', 1);

    const claim = await claimDataDir(values.data, simulate !== undefined ? 'simulator' : 'executor', { create: true });
    if (!claim.ok) {
      process.stderr.write(`cookwala executor: ${claim.reason}\n`);
      return 2;
    }
    if (simulate !== undefined) {
      const sum = await runSimulation({
        dir: values.data,
        devices: Math.floor(simulate),
        missions: num(values.missions, '--missions', 1),
        speed: speed ?? 300,
        sequencerUrl: sequencer,
        log: values.log,
        consent,
        registerToken,
        port: port ?? 0,
        heartbeatIntervalMs,
        attendance,
      });
      return sum.drained ? 0 : 1;
    }

    const dir = values.data;
    const identity = await loadOrCreateDevice(dir, { name: values.name });
    if (registerToken && sequencer && values.log) {
      const r = await ensureRegistered(createSequencerClient({ url: sequencer, log: values.log }), identity.keyRecord, registerToken);
      if (!r.ok) {
        process.stderr.write(`cookwala executor: registering ${identity.keyRecord.kid}: ${r.detail}\n`);
        return 1;
      }
    }
    const clock = speed && speed > 1 ? fastClock(speed) : systemClock();
    const logger = createLogger({ service: 'executor', level: process.env.COOKWALA_LOG_LEVEL }).child({ device: identity.name });
    if (registerToken && sequencer && values.log)
      logger.info(
        { event: 'device_registered', kid: identity.keyRecord.kid, sequencer, log: values.log },
        `registered ${identity.keyRecord.kid} with ${sequencer}`,
      );
    const onError = (m: string) => logger.error({ event: 'service_error', detail: m }, m);
    const ex = await createExecutor(
      {
        dataDir: dir,
        source: identity.source,
        signer: identity.signer,
        keyRecord: identity.keyRecord,
        clock,
        hardware: (svc, c, limits, att) =>
          createSimulatedHardware(svc, c, { spinDownMs: limits.limits.cutHeatMs, attendance: att, onError }),
        onError,
      },
      {
        sequencerUrl: sequencer,
        log: values.log,
        consent,
        heartbeatIntervalMs,
        ownerToken: await ownerToken(dir),
        attendance,
        logger,
      },
    );
    ex.service.onChange((x, events) => {
      for (const e of events) {
        const status = e.type.replace('cookwala.execution.', '');
        const reason = x.reason && e === events[events.length - 1] ? x.reason.code : undefined;
        logger.info(
          { event: 'execution_status', execution: x.id, seq: e.cookwalaseq, status, reason },
          `status ${x.id} #${String(e.cookwalaseq)} ${status}${reason ? ` (${reason})` : ''}`,
        );
      }
    });
    ex.attendance.onChange((available, a) =>
      logger.info(
        { event: 'attendance', available, attendance: a },
        `attendance ${available ? 'available' : 'nobody'} ${JSON.stringify(a)}`,
      ),
    );
    const rec = await ex.start();
    const control = await startLocalControl(
      join(dir, 'control.sock'),
      {
        stopAll: () => ex.stopAll(),
        stopOne: async (id) => {
          const r = await ex.service.stop(id, 'local_stop');
          return r.ok ? { id, status: r.value.execution.status } : undefined;
        },
      },
      (what, res) =>
        logger.warn(
          { event: 'local_stop', via: what, stopped: res },
          `local stop (${what}): ${res.map((r) => `${r.id} ${r.status}`).join(', ') || 'nothing running'}`,
        ),
    );
    if (maxConnections !== undefined) ex.app.server.maxConnections = maxConnections;
    const url = await ex.app.listen({ host: '127.0.0.1', port: port ?? 8710 });
    // Before `listening` is announced: a SIGTERM sent as soon as it is read stops the device cleanly.
    const signal = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    logger.info(
      {
        event: 'listening',
        url,
        source: identity.source,
        kid: identity.keyRecord.kid,
        log: values.log,
        consent: ex.store.consent().dataset,
        attendance: ex.attendance.get(),
        ownerToken: join(dir, 'owner-token'),
        control: control.socketPath ?? `unavailable: ${control.socketError}`,
        data: join(dir, 'db'),
        recovered: rec,
      },
      `device ${identity.name} (${identity.source}, key ${identity.keyRecord.kid}) listening on ${url}`,
    );
    const received = await signal;
    logger.info({ event: 'shutdown', signal: received }, `${received}: stopping`);
    await control.close();
    await ex.close();
    return 0;
  }
}

/** The device owner's token: DATA/owner-token, created once (mode 0600), never overwritten. */
async function ownerToken(dir: string): Promise<string> {
  const path = join(dir, 'owner-token');
  await writeFileOnce(path, randomBytes(32).toString('base64url') + '\n', 0o600);
  const t = (await readTextIfExists(path))?.trim();
  if (!t) throw new DeviceSetupError(`${path} is empty`);
  return t;
}
