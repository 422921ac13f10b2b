// platform/index.ts: the Node plumbing the services share (docs/design.md §2, §15), one import for
// the folders above it: the one logger and its named events, the injectable Clock, argument
// parsing, OpenAPI, data-directory kinds, the signature worker pool, problem+json, durable files,
// service URLs, LevelDB opening, HTTP limits, the raw route, the operator token and metrics. It
// only re-exports. Left out: the worker scripts (loaded by URL, never imported). Invariant: no file
// here defines anything.

export * from './logger.ts';
export * from './clock.ts';
export * from './args.ts';
export * from './openapi.ts';
export * from './data-dir-kind.ts';
export * from './sig-pool.ts';
export * from './http-problem.ts';
export * from './durable-file.ts';
export * from './service-url.ts';
export * from './level-open.ts';
export * from './http-limits.ts';
export * from './raw-route.ts';
export * from './operator-token.ts';
export * from './metrics.ts';
export { UsageError, parseFlags, runCli } from './args.ts';
export { fastClock, sleep, systemClock } from './clock.ts';
export type { TimerHandle } from './clock.ts';
export { DEFAULT_DIRS, DEMO_CHILD_ENV, claimDataDir, describeKind, inspectDataDir } from './data-dir-kind.ts';
export { DownloadFailed, DownloadRefused, downloadToFile, progressLine } from './download.ts';
export { createHttp1ResponseParser, type ResponseHead } from './http1-response.ts';
export { connectGet, getRequestHead } from './socket-get.ts';
export { readBoundedText, readJsonIfExists, readTextIfExists, removeStaleTemps, writeFileDurable, writeFileOnce } from './durable-file.ts';
export { answerHalfClosed, boundedServerOptions, capConnections } from './http-limits.ts';
export type { HttpLimits } from './http-limits.ts';
export { isServiceFault, PROBLEM_TYPE, problemOf, registerProblemHandlers, retryAfterOf, sendProblem, toFailure } from './http-problem.ts';
export { openLevel } from './level-open.ts';
export { createLogger, readLogLines, silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';
export { createMetrics } from './metrics.ts';
export type { MetricFamily, Metrics } from './metrics.ts';
export { componentsFromDefinitions, describe, problems, ref, registerOpenApi } from './openapi.ts';
export type { JsonSchema } from './openapi.ts';
export { readOperatorToken } from './operator-token.ts';
export { routeRawPost } from './raw-route.ts';
export type { RawAnswer } from './raw-route.ts';
export { describeFetchError, expectSequencer, getSmallJson } from './service-url.ts';
export { createSigPool } from './sig-pool.ts';
export type { SigItem, SigPool, SigTextItem } from './sig-pool.ts';
export { readTextCapped } from './read-capped.ts';
