import type { Environment } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import type { Deps } from "./deps.ts";
import { publishVersion } from "./game-config.ts";
import type { GameConfigDoc, GameConfigVersionDoc } from "./repo.ts";

const head = (env: Environment, d: GameConfigDoc | GameConfigVersionDoc) => ({
  environment: env,
  version: d.version,
  enabled: d.enabled,
  checksum: d.checksum,
  sizeBytes: d.sizeBytes,
  publishedAt: d.publishedAt,
  ...("rolledBackFrom" in d && d.rolledBackFrom ? { rolledBackFrom: d.rolledBackFrom } : {}),
});

async function project(deps: Deps, projectId: string) {
  if (!(await deps.repo.projects.get(projectId))) throw fail.notFound("Project");
}

/** The live config, version 0 with no data before the first publish. */
export async function activeGameConfig(deps: Deps, projectId: string, env: Environment) {
  await project(deps, projectId);
  const live = await deps.repo.gameConfigs.get(envIdOf(projectId, env));
  if (!live) return { environment: env, version: 0, enabled: false };
  return { environment: env, version: live.version, enabled: live.enabled, data: JSON.parse(live.data) };
}

/**
 * Every kept version, newest first. A version published before versions were kept is only the live
 * document: it is listed from there.
 */
export async function listGameConfigVersions(deps: Deps, projectId: string, env: Environment) {
  await project(deps, projectId);
  const envId = envIdOf(projectId, env);
  const live = await deps.repo.gameConfigs.get(envId);
  const kept = await deps.repo.gameConfigVersions.find({ envId }, { sort: { field: "version", direction: -1 } });
  const versions = kept.map((d) => head(env, d));
  if (live && !kept.some((d) => d.version === live.version)) versions.unshift(head(env, live));
  return { environment: env, activeVersion: live?.version ?? 0, versions };
}

async function versionDoc(
  deps: Deps,
  projectId: string,
  env: Environment,
  version: number,
): Promise<GameConfigDoc | GameConfigVersionDoc> {
  await project(deps, projectId);
  const envId = envIdOf(projectId, env);
  const kept = await deps.repo.gameConfigVersions.get(`${envId}#${version}`);
  if (kept) return kept;
  const live = await deps.repo.gameConfigs.get(envId);
  if (live?.version === version) return live;
  throw fail.notFound(`Game config version ${version}`);
}

export async function getGameConfigVersion(deps: Deps, projectId: string, env: Environment, version: number) {
  const d = await versionDoc(deps, projectId, env, version);
  return { ...head(env, d), data: JSON.parse(d.data) };
}

/** A rollback publishes an earlier version's exact bytes as the next version: history is never rewritten. */
export async function rollbackGameConfig(deps: Deps, projectId: string, env: Environment, version: number) {
  const d = await versionDoc(deps, projectId, env, version);
  return publishVersion(deps, projectId, env, d.data, true, version);
}
