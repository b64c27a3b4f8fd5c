import type { AccountResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { Deps } from "./deps.ts";
import { adminAccount } from "./admin-target.ts";
import { snapshotWrites, syncStamp, updateWithHistory } from "./history.ts";
import { activeSlotsOf, toAccountResponse } from "./repo.ts";
import { restorePoint } from "./restore-points.ts";

/** Lost races before giving up with 503: each one means a device synced in between. */
const attempts = 5;

/**
 * Operators: writes restore point `version`'s accountData as the account's next version, in one
 * conditional update on the current version and status (a deletion meanwhile makes it fail and answer
 * 410), and records it as a restore point itself. History is never rewritten.
 */
export async function adminRestoreAccountData(deps: Deps, accountId: string, version: number): Promise<AccountResponse> {
  const { repo } = deps;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const account = await adminAccount(deps, accountId);
    const { payload, plan } = await restorePoint(deps, account, version);
    const stamp = syncStamp(deps, plan, account, "restore");
    const snapshot = snapshotWrites(deps, plan, { ownerId: account._id, accountId, seq: stamp.seq, version: account.version + 1, payload, at: stamp.now });
    const { updated } = await updateWithHistory(
      deps,
      repo.accounts,
      { _id: account._id, version: account.version, status: account.status },
      { accountData: JSON.stringify(payload.accountData), version: account.version + 1, ...stamp.changes },
      snapshot,
    );
    if (!updated) continue; // a sync or a status change won: look again
    return toAccountResponse(updated, await activeSlotsOf(repo, accountId));
  }
  throw fail.serviceUnavailable();
}
