import { internal } from "../../shared/contract/internal.ts";
import { defaultPlanOf } from "../../shared/contract/plans.ts";
import { adminRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { watchGateways } from "../../shared/revocation/cache-drops.ts";
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

const { route, endpoint } = endpointsFor<Deps>();
/** Who an admin change is recorded under when the gateway names no operator. */
const actorOf = (m: { client: { actor?: string } }) => m.client.actor ?? "admin-api";

/** Workspaces, projects, runtime keys, sync policy, settings and game config. */
export const service = defineService<"config", Deps>({
  name: "config",
  endpoints: [
    route(adminRoutes.createWorkspace, createWorkspace),
    route(adminRoutes.updateWorkspace, (deps, m) => updateWorkspace(deps, m.params.workspaceId, m.body)),
    route(adminRoutes.createProject, createProject),
    route(adminRoutes.listWorkspaces, (deps, m) => listWorkspaces(deps, m.query)),
    route(adminRoutes.getWorkspace, (deps, m) => getWorkspace(deps, m.params.workspaceId)),
    route(adminRoutes.listProjects, (deps, m) => listProjects(deps, m.params.workspaceId, m.query)),
    route(adminRoutes.getProject, (deps, m) => getProject(deps, m.params.projectId)),
    route(adminRoutes.listRuntimeKeys, (deps, m) => listRuntimeKeys(deps, m.params.projectId)),
    route(adminRoutes.getRuntimeKey, (deps, m) => getRuntimeKey(deps, m.params.keyId)),
    route(adminRoutes.setSettings, (deps, m) => setSettings(deps, m.params.projectId, m.body)),
    route(adminRoutes.publishGameConfig, publishGameConfig),
    route(contractRoutes.runtimeConfig, getRuntimeConfig),
    route(adminRoutes.createRuntimeKey, (deps, m) =>
      createRuntimeKey(deps, m.params.projectId, m.params.env, m.body?.label),
    ),
    route(adminRoutes.revokeRuntimeKey, (deps, m) => revokeRuntimeKey(deps, m.params.keyId)),
    route(adminRoutes.setSyncPolicy, (deps, m) => setSyncPolicy(deps, m.params.projectId, m.body, actorOf(m))),
    route(adminRoutes.listSyncPolicyVersions, (deps, m) => listSyncPolicyVersions(deps, m.params.projectId)),
    route(adminRoutes.getSyncPolicyVersion, (deps, m) =>
      getSyncPolicyVersion(deps, m.params.projectId, m.params.version),
    ),
    route(adminRoutes.rollbackSyncPolicy, (deps, m) =>
      rollbackSyncPolicy(deps, m.params.projectId, m.body, actorOf(m)),
    ),
    endpoint(internal.resolveRuntimeKey, (deps, input) => resolveRuntimeKey(deps, input.keyHash)),
    endpoint(internal.setWorkspaceBilling, (deps, { workspaceId, ...changes }) =>
      updateWorkspace(deps, workspaceId, changes),
    ),
    route(adminRoutes.getOverview, (deps, m) => getOverview(deps, m.params.projectId, m.params.env, m.query.minutes)),
    route(adminRoutes.getSyncPolicy, async (deps, m) => (await getProject(deps, m.params.projectId)).syncPolicy),
    route(adminRoutes.getSettings, async (deps, m) => (await getProject(deps, m.params.projectId)).settings),
    route(adminRoutes.getGameConfig, (deps, m) => activeGameConfig(deps, m.params.projectId, m.params.env)),
    route(adminRoutes.listGameConfigVersions, (deps, m) =>
      listGameConfigVersions(deps, m.params.projectId, m.params.env),
    ),
    route(adminRoutes.getGameConfigVersion, (deps, m) =>
      getGameConfigVersion(deps, m.params.projectId, m.params.env, m.params.version),
    ),
    route(adminRoutes.rollbackGameConfig, (deps, m) =>
      rollbackGameConfig(deps, m.params.projectId, m.params.env, m.body.version),
    ),
    route(adminRoutes.listAudit, (deps, m) => deps.audit.list(m.query)),
    route(adminRoutes.getAuditEntry, (deps, m) => deps.audit.get(m.params.auditId)),
    endpoint(internal.recordAudit, (deps, entry) => deps.audit.record(entry)),
    route(adminRoutes.createOperator, (deps, m) => createOperator(deps, m.body, actorOf(m))),
    route(adminRoutes.listOperators, listOperators),
    route(adminRoutes.getOperator, (deps, m) => getOperator(deps, m.params.operatorId)),
    route(adminRoutes.revokeOperator, (deps, m) => revokeOperator(deps, m.params.operatorId)),
    endpoint(internal.resolveOperator, resolveOperator),
    endpoint(internal.consoleSignOut, (deps, input) => consoleSignOut(deps, input.sid, input.expiresAt)),
    endpoint(internal.consoleSignedOut, async (deps, { sid }) => ({
      signedOut: Boolean(await deps.repo.consoleSignOuts.get(sid)),
    })),
  ],
  async open({ bus, store, env, log }) {
    // Config keeps the wall clock, as it always has: a test that moves the services' clock ages sessions and
    // snapshots, not workspaces, keys or audit entries.
    const now = () => new Date();
    const repo = await openRepo(store);
    watchGateways(bus);
    return {
      repo,
      now,
      defaultPlan: defaultPlanOf(env),
      audit: createAuditLog({ repo, now, log }, env.SAVEPOINT_AUDIT_RETENTION_DAYS),
    };
  },
});
