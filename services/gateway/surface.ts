import type { Route } from "../../shared/contract/route.ts";

/**
 * What one listener serves. By default the one port serves everything. With SAVEPOINT_ADMIN_ADDRESS
 * set (docs/operators.md), the gateway runs two listeners: "public" on PORT (the runtime API, the
 * webhook, the docs) and "admin" on the admin address (the admin API, the console and /metrics); each
 * answers 404 for what the other serves. /healthz and /readyz are on both, for probes.
 */
export type Surface = "all" | "public" | "admin";

export const servesRoute = (surface: Surface, r: Route) =>
  surface === "all" || (surface === "admin") === (r.auth === "admin");
export const servesMetrics = (surface: Surface) => surface !== "public";
export const servesDocs = (surface: Surface) => surface !== "admin";
/** The console checks the admin token at its sign-in: it belongs where the admin API is. */
export const servesConsole = (surface: Surface) => surface !== "public";
