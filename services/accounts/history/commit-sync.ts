import type { SyncAcceptedResponse } from "../../../shared/contract/accounts.ts";
import type { Tenant } from "../../../shared/contract/tenant.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import { stampChanges } from "../../../shared/serving/write-stamp.ts";
import type { Collection, Doc, Filter } from "../../../shared/store/port.ts";
import type { Deps } from "../deps.ts";
import { withinEnvironment } from "../environment-budget.ts";
import type { AccountDoc } from "../repo.ts";
import { type OwnerWrite, writeWithinBudget } from "../storage.ts";
import { acceptedSync, intervalWarnings, updateWithHistory } from "./history.ts";

/** A sync of accountData or of a slot: the document's conditional update and what it changes besides. */
type Sync<T extends Doc> = Omit<OwnerWrite, "kind" | "replaced"> & {
  collection: Collection<T>;
  filter: Filter<T>;
  changes: Partial<T>;
};

/**
 * Commits an accepted sync (docs/api-rules.md#versions-and-conflicts): within the account's and the
 * environment's storage budgets, in one commit with its restore point, the account's byte count and the request's write
 * stamp. Null when another write won between the caller's read and this update: the caller answers
 * with whatever won.
 */
export async function commitSync<T extends Doc>(
  deps: Deps,
  tenant: Tenant,
  account: AccountDoc,
  sync: Sync<T>,
  recordId: IdempotencyRecordId,
): Promise<SyncAcceptedResponse | null> {
  const { collection, filter, changes, ...write } = sync;
  return withinEnvironment(deps, tenant.plan, async (envTry) => {
    const { stamp, writes, settle } = await writeWithinBudget(
      deps,
      tenant.plan,
      account,
      { kind: "sync", ...write },
      envTry,
    );
    const warnings = intervalWarnings(
      write.owner.lastSyncAt,
      tenant.syncPolicy.minRemoteSyncIntervalSeconds,
      stamp.now,
    );
    const stamped = {
      ...changes,
      version: write.version,
      ...stamp.changes,
      ...stampChanges(recordId, write.version, warnings),
    } as Partial<T>;
    const { updated, historyRetained } = await updateWithHistory(
      deps,
      collection,
      { filter, changes: stamped, followers: writes },
      stamp.snapshot,
    );
    if (!updated) return null;
    await settle();
    return acceptedSync(write.version, stamp, historyRetained, warnings);
  });
}
