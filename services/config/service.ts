import { internal } from "../../shared/contract/internal.ts";
import { defaultPlanOf } from "../../shared/contract/plans.ts";
import { adminRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { watchGateways } from "../../shared/revocation/cache-drops.ts";
import { serveEndpoint, serveRoute } from "../../shared/serving/serve.ts";
import { createAuditLog } from "./audit.ts";
import { consoleSignOut } from "./console-sign-outs.ts";
import type { Deps } from "./deps.ts";
import { getRuntimeConfig, publishGameConfig } from "./game-config.ts";
import {
  activeGameConfig,
  getGameConfigVersion,
  listGameConfigVersions,
  rollbackGameConfig,
} from "./game-config-versions.ts";
import { getProject, getWorkspace, listProjects, listWorkspaces } from "./lookups.ts";
import { createOperator, getOperator, listOperators, resolveOperator, revokeOperator } from "./operators.ts";
import { getOverview } from "./overview.ts";
import { openRepo } from "./repo.ts";
import {
  createRuntimeKey,
  getRuntimeKey,
  listRuntimeKeys,
  resolveRuntimeKey,
  revokeRuntimeKey,
} from "./runtime-keys.ts";
import { setSettings } from "./settings.ts";
import { getSyncPolicyVersion, listSyncPolicyVersions, rollbackSyncPolicy, setSyncPolicy } from "./sync-policy.ts";
import { updateWorkspace } from "./update-workspace.ts";
import { createProject, createWorkspace } from "./workspaces.ts";

const group = "config";

/** Workspaces, projects, runtime keys, sync policy, settings and game config. */
export const service = defineService({
  name: group,
  async start({ bus, store, env, plans, log }) {
    // Config keeps the wall clock, as it always has: a test that moves the services' clock ages sessions and snapshots, not
    // workspaces, keys or audit entries.
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      plans,
      defaultPlan: defaultPlanOf(env),
      log,
      now: () => new Date(),
    };
    watchGateways(bus);
    serve(deps, env.SAVEPOINT_AUDIT_RETENTION_DAYS);
    return deps;
  },
});

function serve(deps: Deps, auditRetentionDays = 90) {
  const { bus } = deps;
  const audit = createAuditLog(deps, auditRetentionDays);
  serveRoute(bus, group, adminRoutes.createWorkspace, (m) => createWorkspace(deps, m));
  serveRoute(bus, group, adminRoutes.updateWorkspace, (m) => updateWorkspace(deps, m.params.workspaceId, m.body));
  serveRoute(bus, group, adminRoutes.createProject, (m) => createProject(deps, m));
  serveRoute(bus, group, adminRoutes.listWorkspaces, (m) => listWorkspaces(deps, m.query));
  serveRoute(bus, group, adminRoutes.getWorkspace, (m) => getWorkspace(deps, m.params.workspaceId));
  serveRoute(bus, group, adminRoutes.listProjects, (m) => listProjects(deps, m.params.workspaceId, m.query));
  serveRoute(bus, group, adminRoutes.getProject, (m) => getProject(deps, m.params.projectId));
  serveRoute(bus, group, adminRoutes.listRuntimeKeys, (m) => listRuntimeKeys(deps, m.params.projectId));
  serveRoute(bus, group, adminRoutes.getRuntimeKey, (m) => getRuntimeKey(deps, m.params.keyId));
  serveRoute(bus, group, adminRoutes.setSettings, (m) => setSettings(deps, m.params.projectId, m.body));
  serveRoute(bus, group, adminRoutes.publishGameConfig, (m) => publishGameConfig(deps, m));
  serveRoute(bus, group, contractRoutes.runtimeConfig, (m) => getRuntimeConfig(deps, m));
  serveRoute(bus, group, adminRoutes.createRuntimeKey, (m) =>
    createRuntimeKey(deps, m.params.projectId, m.params.env, m.body?.label),
  );
  serveRoute(bus, group, adminRoutes.revokeRuntimeKey, (m) => revokeRuntimeKey(deps, m.params.keyId));
  serveRoute(bus, group, adminRoutes.setSyncPolicy, (m) =>
    setSyncPolicy(deps, m.params.projectId, m.body, m.client.actor ?? "admin-api"),
  );
  serveRoute(bus, group, adminRoutes.listSyncPolicyVersions, (m) => listSyncPolicyVersions(deps, m.params.projectId));
  serveRoute(bus, group, adminRoutes.getSyncPolicyVersion, (m) =>
    getSyncPolicyVersion(deps, m.params.projectId, m.params.version),
  );
  serveRoute(bus, group, adminRoutes.rollbackSyncPolicy, (m) =>
    rollbackSyncPolicy(deps, m.params.projectId, m.body, m.client.actor ?? "admin-api"),
  );
  serveEndpoint(bus, group, internal.resolveRuntimeKey, (input) => resolveRuntimeKey(deps, input.keyHash));
  serveEndpoint(bus, group, internal.setWorkspaceBilling, ({ workspaceId, ...changes }) =>
    updateWorkspace(deps, workspaceId, changes),
  );
  serveRoute(bus, group, adminRoutes.getOverview, (m) =>
    getOverview(deps, m.params.projectId, m.params.env, m.query.minutes),
  );
  serveRoute(
    bus,
    group,
    adminRoutes.getSyncPolicy,
    async (m) => (await getProject(deps, m.params.projectId)).syncPolicy,
  );
  serveRoute(bus, group, adminRoutes.getSettings, async (m) => (await getProject(deps, m.params.projectId)).settings);
  serveRoute(bus, group, adminRoutes.getGameConfig, (m) => activeGameConfig(deps, m.params.projectId, m.params.env));
  serveRoute(bus, group, adminRoutes.listGameConfigVersions, (m) =>
    listGameConfigVersions(deps, m.params.projectId, m.params.env),
  );
  serveRoute(bus, group, adminRoutes.getGameConfigVersion, (m) =>
    getGameConfigVersion(deps, m.params.projectId, m.params.env, m.params.version),
  );
  serveRoute(bus, group, adminRoutes.rollbackGameConfig, (m) =>
    rollbackGameConfig(deps, m.params.projectId, m.params.env, m.body.version),
  );
  serveRoute(bus, group, adminRoutes.listAudit, (m) => audit.list(m.query));
  serveRoute(bus, group, adminRoutes.getAuditEntry, (m) => audit.get(m.params.auditId));
  serveEndpoint(bus, group, internal.recordAudit, (entry) => audit.record(entry));
  serveRoute(bus, group, adminRoutes.createOperator, (m) =>
    createOperator(deps, m.body, m.client.actor ?? "admin-api"),
  );
  serveRoute(bus, group, adminRoutes.listOperators, () => listOperators(deps));
  serveRoute(bus, group, adminRoutes.getOperator, (m) => getOperator(deps, m.params.operatorId));
  serveRoute(bus, group, adminRoutes.revokeOperator, (m) => revokeOperator(deps, m.params.operatorId));
  serveEndpoint(bus, group, internal.resolveOperator, (by) => resolveOperator(deps, by));
  serveEndpoint(bus, group, internal.consoleSignOut, (input) => consoleSignOut(deps, input.sid, input.expiresAt));
  serveEndpoint(bus, group, internal.consoleSignedOut, async ({ sid }) => ({
    signedOut: Boolean(await deps.repo.consoleSignOuts.get(sid)),
  }));
  return { audit };
}
