import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { openIdempotency, rereadForm } from "../../shared/serving/idempotency.ts";
import { serveIdempotentRoute, serveRoute } from "../../shared/serving/serve.ts";
import { deleteSave } from "./delete-save.ts";
import type { Deps } from "./deps.ts";
import { getSave } from "./get-save.ts";
import { openRepo, saveDocId } from "./repo.ts";
import { adminRestoreSave, adminSaveDocId, adminSaveHistory, adminSaveVersion } from "./restore-save.ts";
import { syncSave } from "./sync-save.ts";

const group = "saves";

/** The save-based model: one save per id, no accounts (route 18 and its load route). */
export const service = defineService({
  name: group,
  async start({ bus, store, env, plans, log, now }) {
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      plans,
      log,
      now,
      idempotency: await openIdempotency(store, log, now, {
        dailyCap: env.SAVEPOINT_IDEMPOTENCY_DAILY_CAP,
      }),
    };
    serve(deps);
    return deps;
  },
});

function serve(deps: Deps): void {
  // A replay of an accepted sync shows the save as it is then (docs/api-rules.md#idempotent-retries); a conflict is never recorded.
  const accepted = rereadForm(async (m: Parameters<typeof getSave>[1]) => ({
    status: "accepted",
    ...(await getSave(deps, m)),
  }));
  serveIdempotentRoute(
    deps.bus,
    group,
    routes.syncSave,
    deps.idempotency,
    (m, key) => syncSave(deps, m, key),
    accepted,
  );
  serveRoute(deps.bus, group, routes.getSave, (m) => getSave(deps, m));
  // Operators look a save up by environment and id: the same read, with the environment from the path.
  serveRoute(deps.bus, group, adminRoutes.getSave, ({ params: { projectId, env, saveId } }) =>
    getSave(deps, {
      tenant: { envId: envIdOf(projectId, env) } as Parameters<typeof getSave>[1]["tenant"],
      params: { saveId },
    }),
  );
  serveRoute(deps.bus, group, routes.deleteSave, (m) =>
    deleteSave(deps, saveDocId(m.tenant.envId, m.params.saveId), m.params.saveId),
  );
  serveRoute(deps.bus, group, adminRoutes.saveHistory, (m) => adminSaveHistory(deps, m.params));
  serveRoute(deps.bus, group, adminRoutes.getSaveRestorePoint, (m) =>
    adminSaveVersion(deps, m.params, m.params.version),
  );
  serveRoute(deps.bus, group, adminRoutes.restoreSave, (m) => adminRestoreSave(deps, m.params, m.body.version));
  serveRoute(deps.bus, group, adminRoutes.deleteSave, (m) =>
    deleteSave(deps, adminSaveDocId(m.params), m.params.saveId),
  );
}
