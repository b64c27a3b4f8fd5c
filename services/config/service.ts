import { serveEndpoint, serveRoute } from "../../shared/bus/serve.ts";
import { internal } from "../../shared/contract/internal.ts";
import { adminRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { getRuntimeConfig, publishGameConfig } from "./game-config.ts";
import { createRuntimeKey, listRuntimeKeys, resolveRuntimeKey, revokeRuntimeKey } from "./runtime-keys.ts";
import { setSettings } from "./settings.ts";
import { updateWorkspace } from "./update-workspace.ts";
import { setSyncPolicy } from "./sync-policy.ts";
import { createProject, createWorkspace } from "./workspaces.ts";

export const group = "config";

/** Workspaces, projects, runtime keys, sync policy, settings and game config. */
export function startConfig(deps: Deps): void {
  const { bus } = deps;
  serveRoute(bus, group, adminRoutes.createWorkspace, (m) => createWorkspace(deps, m));
  serveRoute(bus, group, adminRoutes.updateWorkspace, (m) => updateWorkspace(deps, m.params.workspaceId, m.body));
  serveRoute(bus, group, adminRoutes.createProject, (m) => createProject(deps, m));
  serveRoute(bus, group, adminRoutes.listRuntimeKeys, (m) => listRuntimeKeys(deps, m.params.projectId));
  serveRoute(bus, group, adminRoutes.setSettings, (m) => setSettings(deps, m.params.projectId, m.body));
  serveRoute(bus, group, adminRoutes.publishGameConfig, (m) => publishGameConfig(deps, m));
  serveRoute(bus, group, contractRoutes.runtimeConfig, (m) => getRuntimeConfig(deps, m));
  serveRoute(bus, group, adminRoutes.createRuntimeKey, (m) => createRuntimeKey(deps, m.params.projectId, m.params.env, m.body?.label));
  serveRoute(bus, group, adminRoutes.revokeRuntimeKey, (m) => revokeRuntimeKey(deps, m.params.keyId));
  serveRoute(bus, group, adminRoutes.setSyncPolicy, (m) => setSyncPolicy(deps, m.params.projectId, m.body));
  serveEndpoint(bus, group, internal.resolveRuntimeKey, (input) => resolveRuntimeKey(deps, input.keyHash));
  serveEndpoint(bus, group, internal.setWorkspaceBilling, ({ workspaceId, ...changes }) => updateWorkspace(deps, workspaceId, changes));
}
