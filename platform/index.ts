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
