import { adminRoutes, contractRoutes as routes } from "../../shared/contract/routes.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { rereadForm } from "../../shared/serving/idempotency.ts";
import { deleteSave } from "./delete-save.ts";
import type { Deps } from "./deps.ts";
import { getSave } from "./get-save.ts";
import { openRepo, saveDocId } from "./repo.ts";
import { adminRestoreSave, adminSaveDocId, adminSaveHistory, adminSaveVersion } from "./restore-save.ts";
import { syncSave } from "./sync-save.ts";

const { route, idempotentRoute } = endpointsFor<Deps>();

/** The save-based model: one save per id, no accounts (route 18 and its load route). */
export const service = defineService<"saves", Deps>({
  name: "saves",
  endpoints: [
    // A replay of an accepted sync shows the save as it is then (docs/api-rules.md#idempotent-retries); a conflict is never recorded.
    idempotentRoute(routes.syncSave, syncSave, (deps) =>
      rereadForm(async (m) => ({ status: "accepted", ...(await getSave(deps, m)) })),
    ),
    route(routes.getSave, getSave),
    // Operators look a save up by environment and id: the same read, with the environment from the path.
    route(adminRoutes.getSave, (deps, { params: { projectId, env, saveId } }) =>
      getSave(deps, {
        tenant: { envId: envIdOf(projectId, env) } as Parameters<typeof getSave>[1]["tenant"],
        params: { saveId },
      }),
    ),
    route(routes.deleteSave, (deps, m) =>
      deleteSave(deps, saveDocId(m.tenant.envId, m.params.saveId), m.params.saveId),
    ),
    route(adminRoutes.saveHistory, (deps, m) => adminSaveHistory(deps, m.params)),
    route(adminRoutes.getSaveRestorePoint, (deps, m) => adminSaveVersion(deps, m.params, m.params.version)),
    route(adminRoutes.restoreSave, (deps, m) => adminRestoreSave(deps, m.params, m.body.version)),
    route(adminRoutes.deleteSave, (deps, m) => deleteSave(deps, adminSaveDocId(m.params), m.params.saveId)),
  ],
  open: async ({ store }) => ({ repo: await openRepo(store) }),
});
