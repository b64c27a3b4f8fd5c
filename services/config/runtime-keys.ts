import type { Environment } from "../../shared/contract/common.ts";
import { SyncPolicy } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import { envIdOf, type Tenant } from "../../shared/contract/tenant.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { newId, newRuntimeKey } from "../../shared/util/ids.ts";
import type { Deps } from "./deps.ts";
import { entitlementsOf } from "./entitlements.ts";
import type { RuntimeKeyDoc } from "./repo.ts";
import { settingsOf } from "./settings.ts";

/** A new key for one environment of a project; the caller sees it once, the store only its hash. */
export async function createRuntimeKey(deps: Deps, projectId: string, environment: Environment, label?: string) {
  const project = await deps.repo.projects.get(projectId);
  if (!project) throw fail.notFound("Project");
  const runtimeKey = newRuntimeKey(environment);
  const keyId = newId("key");
  await deps.repo.runtimeKeys.insert({
    _id: keyId,
    keyHash: sha256Hex(runtimeKey),
    workspaceId: project.workspaceId,
    projectId,
    environment,
    label,
    createdAt: deps.now().toISOString(),
  });
  return { keyId, runtimeKey };
}

/** Revocation is stored, then announced, before the answer: no gateway serves the key after that. */
export async function revokeRuntimeKey(deps: Deps, keyId: string) {
  const key = await deps.repo.runtimeKeys.get(keyId);
  if (!key) throw fail.notFound("Runtime key");
  const revokedAt = key.revokedAt ?? deps.now().toISOString();
  if (!key.revokedAt) await deps.repo.runtimeKeys.update({ _id: keyId }, { revokedAt });
  await dropEverywhere(deps.bus, events.tenantsChanged, { projectId: key.projectId });
  return { keyId, revokedAt };
}

/** What operators see of a key: never the key or its hash. */
const keyView = (k: RuntimeKeyDoc) => ({
  keyId: k._id,
  environment: k.environment,
  ...(k.label ? { label: k.label } : {}),
  createdAt: k.createdAt,
  ...(k.lastUsedAt ? { lastUsedAt: k.lastUsedAt } : {}),
  ...(k.revokedAt ? { revokedAt: k.revokedAt } : {}),
});

/** A project's keys by id, label, environment and use: never a key or its hash. */
export async function listRuntimeKeys(deps: Deps, projectId: string) {
  if (!(await deps.repo.projects.get(projectId))) throw fail.notFound("Project");
  const keys = await deps.repo.runtimeKeys.find({ projectId }, { sort: { field: "createdAt", direction: 1 } });
  return { projectId, keys: keys.map(keyView) };
}

/** One key by id, for `key get` and the audit's read around its creation and revocation: never the key or its hash. */
export async function getRuntimeKey(deps: Deps, keyId: string) {
  const k = await deps.repo.runtimeKeys.get(keyId);
  if (!k) throw fail.notFound("Runtime key");
  // The listed view with its project and workspace, in the order the answer has always had.
  const { keyId: id, ...rest } = keyView(k);
  return { keyId: id, projectId: k.projectId, workspaceId: k.workspaceId, ...rest };
}

const unknownKey =
  "No such runtime key: send a key of this server, `Authorization: Bearer spk_<env>_...`, as created by `npx savepoint key create`.";

/** Last use is written at most this often per key: gateways resolve a key about once a minute each. */
const lastUseResolutionMs = 60_000;

/** What the gateway needs to serve a runtime request: the key's tenant, plan, policy and settings. */
export async function resolveRuntimeKey(deps: Deps, keyHash: string): Promise<Tenant> {
  const key = await deps.repo.runtimeKeys.findOne({ keyHash });
  if (!key) throw fail.unauthorized(unknownKey);
  if (key.revokedAt)
    throw fail.unauthorized(
      "This runtime key has been revoked: use another key of the environment (npx savepoint key create).",
    );
  const now = deps.now();
  if (!key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) >= lastUseResolutionMs) {
    await deps.repo.runtimeKeys.update(
      { _id: key._id, lastUsedAt: key.lastUsedAt ?? null },
      { lastUsedAt: now.toISOString() },
    );
  }
  const project = await deps.repo.projects.get(key.projectId);
  const workspace = await deps.repo.workspaces.get(key.workspaceId);
  if (!project || !workspace) throw fail.unauthorized(unknownKey);
  return {
    workspaceId: workspace._id,
    projectId: project._id,
    environment: key.environment,
    envId: envIdOf(project._id, key.environment),
    keyId: key._id,
    plan: workspace.plan,
    billingStatus: workspace.billingStatus,
    entitlements: entitlementsOf(deps.plans, workspace, key.environment, now),
    syncPolicy: SyncPolicy.parse(JSON.parse(project.syncPolicy)),
    settings: settingsOf(project),
  };
}
