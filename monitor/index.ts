// monitor/index.ts: the public surface of the auditor's monitor (docs/monitoring.md): the
// factory, the configuration reader, the per-log follower and its state, the tiles reader, and
// the event and metric names. The command itself is monitor/cli.ts. Left out: nothing else is
// meant for other parts. Invariant: the monitor imports only verifier/ and platform/.

export { createMonitor, type Monitor, type MonitorDeps, type RoundResult } from './service.ts';
export { readMonitorConfig, ConfigError, type MonitorConfig } from './config.ts';
export { createFollower, type FollowedLog, type Finding, type Follower, type StepResult } from './follow.ts';
export { loadState, saveState, statePath, type LogState } from './state.ts';
export { createTileReader, tilePath, tileIndexPath, type TileReader } from './tiles.ts';
export { MONITOR_EVENTS, PROBLEMS, createMonitorMetrics, type MonitorEvent } from './events.ts';
export { httpGet, type HttpGet } from './http-get.ts';
export { originHash, verifyPolicyNote, type ServedView } from './served.ts';
