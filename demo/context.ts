// demo/context.ts: what the demo's steps share (docs/design.md §12): the data directory, the log, the
// child supervisor, the abort signal (Ctrl-C or a dead child), the demo's own output, and what
// the steps learn as they go (URLs, keys, the policy). The steps are plain async functions over
// this context; only demo/cli.ts decides their order. Left out: any global state.

import type { KeyRecord } from '../verifier/signing/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import type { Child, Supervisor } from './children.ts';

export interface DemoOptions {
  /** The log's origin (docs/design.md §4). */
  log: string;
  witnesses: number;
  quorum: number;
  devices: number;
  missions: number;
  /** Simulated clock speed-up of the executors during the mission. */
  speed: number;
  checkpointIntervalMs: number;
}

export const DEFAULT_OPTIONS: DemoOptions = {
  log: 'localhost/missions/demo',
  witnesses: 3,
  quorum: 2,
  devices: 3,
  missions: 4,
  speed: 2_000,
  checkpointIntervalMs: 500,
};

export interface WitnessNode {
  /** witness-1, witness-2, … (also its folder and log name). */
  name: string;
  dir: string;
  peerId: string;
  multiaddrs: string[];
  /** Its status API (GET /v1/logs, /v1/forks, /.well-known/cookwala.json, /metrics). */
  http: string;
  keyRecord: KeyRecord;
  /** Set for the witness the sequencer reaches over C2SP tlog-witness HTTP instead of libp2p. */
  c2sp?: { url: string; vkey: string };
  /** The running process (witness-keeper.ts replaces it on a restart). */
  child?: Child;
  /** Its `witness run` arguments, to start it again. */
  args?: string[];
}

export interface Network {
  sequencerDir: string;
  sequencerUrl: string;
  token: string;
  sequencerKey: KeyRecord;
  policy: WitnessPolicy;
  witnesses: WitnessNode[];
}

export interface DemoContext {
  /** Absolute data directory. */
  dir: string;
  opts: DemoOptions;
  sup: Supervisor;
  signal: AbortSignal;
  /** One line of the demo's own output (stdout). */
  say(line: string): void;
  /** Seconds since the demo started, for step lines. */
  elapsed(): string;
}

/** The name a witness KeyRecord was made for (`cookwala:witness/<name>`), else its kid. A C2SP kid (`<name>+<key id>`) names the witness whose vkey starts with it. */
export function witnessName(net: Pick<Network, 'witnesses'>, kid: string): string {
  return net.witnesses.find((w) => w.keyRecord.kid === kid || (w.c2sp !== undefined && w.c2sp.vkey.startsWith(`${kid}+`)))?.name ?? kid;
}
