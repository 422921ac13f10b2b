// sequencer/routes.ts: every route module of the sequencer app, one line each (docs/design.md §10). A part
// that adds routes (the audit bundle: sequencer/bundle-route.ts) adds its line here; each module
// is `(app, ctx) => void` over the shared SequencerContext (context.ts).

import type { FastifyInstance } from 'fastify';
import type { SequencerContext } from './context.ts';
import { registerIngestRoute } from './ingest-route.ts';
import { registerReadRoutes } from './read-routes.ts';
import { registerEraseRoute } from './erase-route.ts';
import { registerKeyRoutes } from './keys-routes.ts';
import { registerAdminRoutes } from './admin-routes.ts';
import { registerBundleRoute } from './bundle-route.ts';
import { registerTlogRoutes } from './tlog-routes.ts';
import { registerLogsListRoute } from './logs-list-route.ts';
import { registerExplorer } from './explorer-routes.ts';

export type RouteModule = (app: FastifyInstance, ctx: SequencerContext) => void;

export const ROUTE_MODULES: readonly RouteModule[] = [
  registerIngestRoute, // POST /v1/logs/{log}/events
  registerReadRoutes, // GET /v1/logs/{log}, …/checkpoint, …/entries, …/events/{seq}, …/proof/*
  registerEraseRoute, // DELETE /v1/logs/{log}/events/{seq}/payload
  registerKeyRoutes, // POST and GET /v1/logs/{log}/keys
  registerLogsListRoute, // GET /v1/logs (every hosted log with head and last checkpoint, paged)
  registerAdminRoutes, // POST /v1/logs, GET /v1/devices, /.well-known/cookwala.json, /metrics, /openapi.json
  registerBundleRoute, // GET /v1/logs/{log}/bundle (the audit bundle, docs/design.md §8)
  registerTlogRoutes, // GET /tlog/{log}/checkpoint, /tlog/{log}/tile/… (C2SP tlog-tiles, docs/design.md §7a)
  registerExplorer, // GET / (the log explorer), /verifier.html, …/policy, …/witnesses (docs/design.md §12b)
];

export function registerRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  for (const register of ROUTE_MODULES) register(app, ctx);
}
