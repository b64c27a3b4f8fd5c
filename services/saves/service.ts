import { serveIdempotentRoute, serveRoute } from "../../shared/bus/serve.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { getSave } from "./get-save.ts";
import { syncSave } from "./sync-save.ts";

export const group = "saves";

/** The save-based model: one save per id, no accounts (route 18 and its load route). */
export function startSaves(deps: Deps): void {
  serveIdempotentRoute(deps.bus, group, routes.syncSave, deps.idempotency, (m, key) => syncSave(deps, m, key));
  serveRoute(deps.bus, group, routes.getSave, (m) => getSave(deps, m));
}
