import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { adminRoutes } from "../../shared/contract/routes.ts";
import { newId } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import type { WorkspaceDoc } from "./repo.ts";

/** A workspace made without a plan gets the deployment's default (`defaultPlanOf`). */
export async function createWorkspace(deps: Deps, msg: RouteMessage<typeof adminRoutes.createWorkspace>) {
  const workspace: WorkspaceDoc = {
    _id: newId("wsp"),
    name: msg.body.name,
    plan: msg.body.plan ?? deps.defaultPlan,
    billingStatus: "active",
    createdAt: deps.now().toISOString(),
  };
  await deps.repo.workspaces.insert(workspace);
  return { workspaceId: workspace._id, plan: workspace.plan };
}

/** A project is one game; it always has the two environments `stage` and `prod`. */
export async function createProject(deps: Deps, msg: RouteMessage<typeof adminRoutes.createProject>) {
  const workspace = await deps.repo.workspaces.get(msg.params.workspaceId);
  if (!workspace) throw fail.notFound("Workspace");
  const at = deps.now().toISOString();
  const syncPolicy = JSON.stringify(defaultSyncPolicy);
  const project = {
    _id: newId("prj"),
    workspaceId: workspace._id,
    name: msg.body.name,
    syncPolicy,
    createdAt: at,
    updatedAt: at,
  };
  await deps.repo.projects.insert(project);
  return { projectId: project._id, environments: ["stage", "prod"] as ("stage" | "prod")[] };
}
