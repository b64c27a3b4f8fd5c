import { serveEndpoint, serveRoute } from "../../shared/bus/serve.ts";
import { internal } from "../../shared/contract/internal.ts";
import { adminRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { createRuntimeKey, resolveRuntimeKey, revokeRuntimeKey } from "./runtime-keys.ts";
import { setSyncPolicy } from "./sync-policy.ts";
import { createProject, createWorkspace } from "./workspaces.ts";

export const group = "config";

/** Workspaces, projects, runtime keys and sync policy. */
export function startConfig(deps: Deps): void {
  const { bus } = deps;
  serveRoute(bus, group, adminRoutes.createWorkspace, (m) => createWorkspace(deps, m));
  serveRoute(bus, group, adminRoutes.createProject, (m) => createProject(deps, m));
  serveRoute(bus, group, adminRoutes.createRuntimeKey, (m) => createRuntimeKey(deps, m.params.projectId, m.params.env, m.body?.label));
  serveRoute(bus, group, adminRoutes.revokeRuntimeKey, (m) => revokeRuntimeKey(deps, m.params.keyId));
  serveRoute(bus, group, adminRoutes.setSyncPolicy, (m) => setSyncPolicy(deps, m.params.projectId, m.body));
  serveEndpoint(bus, group, internal.resolveRuntimeKey, (input) => resolveRuntimeKey(deps, input.keyHash));
}
