import type { AccountResponse } from "../../../shared/contract/accounts.ts";
import type { RestoreDataConflictWire } from "../../../shared/contract/restore-points.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import { conflict } from "../../../shared/serving/reply.ts";
import { accountDataBytes } from "../account-bytes.ts";
import { adminAccount } from "../admin/admin-target.ts";
import type { Deps } from "../deps.ts";
import { loadAccount } from "../load.ts";
import { type AccountDoc, activeSlotsOf, toAccountResponse } from "../repo.ts";
import { playerRestore, type RestoreTarget, restoreVersion } from "./restore.ts";

type RestoreData = RouteMessage<typeof contractRoutes.restoreAccountData>;

/** A status change meanwhile (a deletion) makes the conditional update fail and the next load answer. */
const dataTarget = (deps: Deps, accountId: string, load: () => Promise<AccountDoc>): RestoreTarget<AccountDoc> => ({
  collection: deps.repo.accounts,
  accountId,
  load,
  contentOf: (account) => ({ accountData: JSON.parse(account.accountData) }),
  fieldsOf: (payload) => ({ accountData: JSON.stringify(payload.accountData) }),
  bytesOf: accountDataBytes,
  account: async (doc) => doc,
});

/** Operators: restore point `version` becomes the account's next accountData version (restore.ts). */
export async function adminRestoreAccountData(
  deps: Deps,
  accountId: string,
  version: number,
): Promise<AccountResponse> {
  const outcome = await restoreVersion(
    deps,
    dataTarget(deps, accountId, () => adminAccount(deps, accountId)),
    version,
  );
  if (outcome.status !== "accepted") throw new Error("an operator's restore is never stale");
  return toAccountResponse(outcome.updated, await activeSlotsOf(deps.repo, accountId));
}

/** Players: the same restore from `baseVersion`; a stale base is the 409 with the restored accountData as the client side. */
export async function restoreAccountData(deps: Deps, msg: RestoreData, key?: IdempotencyRecordId) {
  const { accountId } = msg.session;
  const target = dataTarget(deps, accountId, () => loadAccount(deps, msg.tenant.envId, accountId));
  return playerRestore(deps, target, msg.body, key, async (current, restored) =>
    conflict<RestoreDataConflictWire>({
      status: "conflict",
      account: toAccountResponse(current, await activeSlotsOf(deps.repo, accountId)),
      version: current.version,
      updatedAt: current.updatedAt,
      details: { reason: "base_version_mismatch", clientAccountData: restored.accountData as Record<string, unknown> },
    }),
  );
}
