import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { saveDocId, toSave } from "./repo.ts";

/** Loads a save of the key's environment (decisions.md, Save-based model: an extension of route 18). */
export async function getSave(deps: Deps, msg: RouteMessage<typeof contractRoutes.getSave>) {
  const doc = await deps.repo.saves.get(saveDocId(msg.tenant.envId, msg.params.saveId));
  if (!doc) throw fail.notFound("Save");
  return { save: toSave(doc) };
}
