import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { saveDocId, toSave } from "./repo.ts";

/** Loads a save of the key's environment (docs/api-rules.md#the-save-based-model: the load route beside route 18). */
export async function getSave(deps: Deps, msg: Pick<RouteMessage<typeof contractRoutes.getSave>, "tenant" | "params">) {
  const doc = await deps.repo.saves.get(saveDocId(msg.tenant.envId, msg.params.saveId));
  if (!doc) throw fail.notFound("Save");
  return { save: toSave(doc) };
}
