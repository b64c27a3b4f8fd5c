import type { DeleteAccountResponse } from "../../../shared/contract/accounts.ts";
import type { Environment } from "../../../shared/contract/common.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import { envIdOf } from "../../../shared/contract/tenant.ts";
import { pointsOf } from "../../../shared/synced/restore-points.ts";
import { deleteAccount } from "../delete-account.ts";
import type { Deps } from "../deps.ts";
import { restorePoint } from "../history/restore-points.ts";
import { newestWithStatus } from "../load.ts";
import { adminAccount, slotWithHistory } from "./admin-target.ts";

/** The most an operator's lookup lists: a reference names one player, rarely a few. */
const foundLimit = 50;

/** Operators only, never a runtime route: an environment's accounts by player or external account reference. */
export async function adminFindAccounts(
  deps: Deps,
  projectId: string,
  env: Environment,
  q: { playerRef?: string; provider?: string; subject?: string },
) {
  const envId = envIdOf(projectId, env);
  const filter =
    q.playerRef !== undefined
      ? { envId, playerRef: q.playerRef }
      : { envId, externalProvider: q.provider, externalSubject: q.subject };
  const found = await deps.repo.accounts.find(filter, {
    sort: { field: "createdAt", direction: 1 },
    limit: foundLimit,
  });
  return {
    accounts: found.map((a) => ({
      accountId: a._id,
      status: a.status,
      ...(a.playerRef !== undefined ? { playerRef: a.playerRef } : {}),
      createdAt: a.createdAt,
    })),
  };
}

/** A slot as stored now: the active one, else the newest archived, else the newest deleted generation. */
export async function adminGetSlot(deps: Deps, accountId: string, slotId: string) {
  await adminAccount(deps, accountId);
  const slot =
    (await slotWithHistory(deps, accountId, slotId).catch(() => null)) ??
    (await newestWithStatus(deps.repo, accountId, slotId, "deleted"));
  if (!slot) throw fail.notFound("Slot");
  const deleted = slot.status === "deleted";
  return {
    accountId,
    slotId,
    status: slot.status,
    version: slot.version,
    slotInfo: deleted ? {} : JSON.parse(slot.slotInfo),
    data: deleted ? {} : JSON.parse(slot.data),
    updatedAt: slot.updatedAt,
  };
}

/** One restore point's content, for the console's diff; 404 when it is not kept. */
export async function adminGetRestorePoint(deps: Deps, accountId: string, slotId: string, version: number) {
  await adminAccount(deps, accountId);
  const slot = await slotWithHistory(deps, accountId, slotId);
  const { payload } = await restorePoint(deps, slot, version);
  const snapshot = await deps.repo.snapshots.findOne(pointsOf(slot._id, { version }));
  return {
    accountId,
    slotId,
    version,
    createdAt: snapshot!.createdAt,
    slotInfo: (payload.slotInfo ?? {}) as object,
    data: (payload.data ?? {}) as object,
  };
}

/** Operators delete an account as its player would (route 7), in whatever environment it lives. */
export async function adminDeleteAccount(deps: Deps, accountId: string): Promise<DeleteAccountResponse> {
  const account = await deps.repo.accounts.get(accountId);
  if (!account) throw fail.notFound("Account");
  const msg = { session: { accountId }, tenant: { envId: account.envId } } as unknown as RouteMessage<
    typeof contractRoutes.deleteAccount
  >;
  return deleteAccount(deps, msg);
}
