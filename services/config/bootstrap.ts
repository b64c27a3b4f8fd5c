import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { newId } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import { createRuntimeKey } from "./runtime-keys.ts";

/**
 * First start of the embedded deployment: with no workspace at all, create a `self_hosted` workspace,
 * a project and a stage runtime key. Returns the key (to print once) or null when the store had data.
 */
export async function bootstrapDefaults(
  deps: Deps,
): Promise<{ workspaceId: string; projectId: string; keyId: string; runtimeKey: string } | null> {
  const { repo } = deps;
  if ((await repo.workspaces.find({}, { limit: 1 })).length > 0) return null;
  const at = deps.now().toISOString();
  const workspaceId = newId("wsp");
  const projectId = newId("prj");
  await repo.workspaces.insert({
    _id: workspaceId,
    name: "Default workspace",
    plan: "self_hosted",
    billingStatus: "active",
    createdAt: at,
  });
  const syncPolicy = JSON.stringify(defaultSyncPolicy);
  await repo.projects.insert({
    _id: projectId,
    workspaceId,
    name: "Default project",
    syncPolicy,
    createdAt: at,
    updatedAt: at,
  });
  const { keyId, runtimeKey } = await createRuntimeKey(deps, projectId, "stage", "bootstrap");
  return { workspaceId, projectId, keyId, runtimeKey };
}

/** The oldest project, whose stage key the first start printed: a later start names it in its hint. */
export async function firstProjectId(deps: Deps): Promise<string | undefined> {
  return (await deps.repo.projects.findOne({}, { field: "createdAt", direction: 1 }))?._id;
}
