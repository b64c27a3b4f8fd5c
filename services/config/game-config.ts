import { createHash } from "node:crypto";
import type { Environment } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { adminRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { updateVersioned, writtenOf } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { GameConfigDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

/**
 * Operators publish a game config for one environment: each publish is the next version, written as
 * one document replacement conditional on the version read, so a reader sees the old or the new
 * config whole and two concurrent publishes get two versions. Each version is also kept, with the
 * write that makes it live (port.ts, Write), for the list and rollback.
 */
export const publishGameConfig = (deps: Deps, msg: RouteMessage<typeof adminRoutes.publishGameConfig>) =>
  publishVersion(deps, msg.params.projectId, msg.params.env, JSON.stringify(msg.body.data), msg.body.enabled ?? true);

export async function publishVersion(
  deps: Deps,
  projectId: string,
  env: Environment,
  data: string,
  enabled: boolean,
  rolledBackFrom?: number,
) {
  if (!(await deps.repo.projects.get(projectId))) throw fail.notFound("Project");
  const _id = envIdOf(projectId, env);
  const checksum = `sha256:${createHash("sha256").update(data).digest("hex")}`;
  let next = { enabled, data, checksum, sizeBytes: Buffer.byteLength(data), publishedAt: "" };
  const outcome = await updateVersioned<GameConfigDoc>(
    deps.repo.gameConfigs,
    _id,
    () => {
      next = { ...next, publishedAt: deps.now().toISOString() };
      const kept = (version: number) => ({
        ...next,
        version,
        _id: `${_id}#${version}`,
        envId: _id,
        ...(rolledBackFrom ? { rolledBackFrom } : {}),
      });
      return { next, followers: (version: number) => [{ insert: kept(version), into: deps.repo.gameConfigVersions }] };
    },
    { rounds: maxRounds },
  );
  const { version } = writtenOf(outcome);
  return {
    environment: env,
    enabled: next.enabled,
    version,
    checksum,
    sizeBytes: next.sizeBytes,
    publishedAt: next.publishedAt,
  };
}

/**
 * Route 2: the project's sync policy and the environment's game config. A client that already has
 * the active version (`gameConfigVersion`) gets `unchanged: true` and no data. No config, or a
 * disabled one, is `enabled: false`, version 0.
 */
export async function getRuntimeConfig(deps: Deps, msg: RouteMessage<typeof contractRoutes.runtimeConfig>) {
  const { tenant } = msg;
  const project = await deps.repo.projects.get(tenant.projectId);
  const syncPolicy = project ? JSON.parse(project.syncPolicy) : tenant.syncPolicy;
  const config = await deps.repo.gameConfigs.get(tenant.envId);
  if (!config?.enabled) return { syncPolicy, gameConfig: { enabled: false, version: 0, sizeBytes: 0 } };
  const head = {
    enabled: true,
    version: config.version,
    checksum: config.checksum,
    sizeBytes: config.sizeBytes,
    publishedAt: config.publishedAt,
  };
  if (msg.query.gameConfigVersion === config.version) return { syncPolicy, gameConfig: { ...head, unchanged: true } };
  return { syncPolicy, gameConfig: { ...head, data: JSON.parse(config.data) } };
}
