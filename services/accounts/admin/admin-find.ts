import type { z } from "zod";
import type { Environment } from "../../../shared/contract/common.ts";
import type { FindPlayersQuery, FoundPlayers } from "../../../shared/contract/desk.ts";
import { adminRoutes } from "../../../shared/contract/routes.ts";
import { envIdOf } from "../../../shared/contract/tenant.ts";
import { callRoute } from "../../../shared/serving/call.ts";
import type { Filter } from "../../../shared/store/port.ts";
import type { Deps } from "../deps.ts";
import type { AccountDoc } from "../repo.ts";

/** The most a lookup lists: a reference names one player, rarely a few (as adminFindAccounts). */
const foundLimit = 50;
const environments: Environment[] = ["stage", "prod"];

/** The envIds of a workspace's projects, both environments each, from config's own listing (404 for no such workspace). */
async function workspaceEnvIds(deps: Deps, workspaceId: string): Promise<string[]> {
  const envIds: string[] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: 200, ...(cursor ? { cursor } : {}) };
    const page = (await callRoute(deps.bus, adminRoutes.listProjects.subject, {
      client: { ip: "" },
      params: { workspaceId },
      query,
    })) as {
      projects: { projectId: string }[];
      next?: string;
    };
    for (const p of page.projects) envIds.push(...environments.map((e) => envIdOf(p.projectId, e)));
    cursor = page.next;
  } while (cursor);
  return envIds;
}

const shown = (a: AccountDoc): FoundPlayers["accounts"][number] => {
  const cut = a.envId.lastIndexOf(":");
  return {
    accountId: a._id,
    projectId: a.envId.slice(0, cut),
    environment: a.envId.slice(cut + 1) as Environment,
    status: a.status,
    ...(a.playerRef !== undefined ? { playerRef: a.playerRef } : {}),
    ...(a.externalProvider && a.externalSubject
      ? { externalAccountRef: { provider: a.externalProvider, subject: a.externalSubject } }
      : {}),
    createdAt: a.createdAt,
  };
};

/**
 * Operators only (docs/operators.md#a-player-says-their-save-is-gone): a player by account id, player
 * reference or external reference in every project and environment, or in one workspace's.
 */
export async function adminFindPlayers(deps: Deps, q: z.infer<typeof FindPlayersQuery>): Promise<FoundPlayers> {
  const by: Filter<AccountDoc> =
    q.accountId !== undefined
      ? { _id: q.accountId }
      : q.playerRef !== undefined
        ? { playerRef: q.playerRef }
        : { externalProvider: q.provider, externalSubject: q.subject };
  const sort = { field: "createdAt", direction: 1 } as const;
  const scopes = q.workspaceId ? await workspaceEnvIds(deps, q.workspaceId) : undefined;
  const found = scopes
    ? (
        await Promise.all(scopes.map((envId) => deps.repo.accounts.find({ ...by, envId }, { sort, limit: foundLimit })))
      ).flat()
    : await deps.repo.accounts.find(by, { sort, limit: foundLimit });
  found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id));
  return { accounts: found.slice(0, foundLimit).map(shown) };
}
