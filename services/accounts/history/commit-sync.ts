import type { SyncAcceptedResponse } from "../../../shared/contract/accounts.ts";
import type { Tenant } from "../../../shared/contract/tenant.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import { stampChanges } from "../../../shared/serving/write-stamp.ts";
import type { Collection, Filter } from "../../../shared/store/port.ts";
import type { Deps } from "../deps.ts";
import { withinEnvironment } from "../environment-budget.ts";
import type { AccountDoc, SlotDoc } from "../repo.ts";
import { writeWithinBudget } from "../storage.ts";
import { acceptedSync, intervalWarnings, updateWithHistory } from "./history.ts";

/**
 * A sync of accountData or of a slot, `doc` as read at the client's base version: its new stored fields,
 * the content its restore point holds, and how the account's budget counts its stored bytes.
 */
type Sync<T extends AccountDoc | SlotDoc> = {
  collection: Collection<T>;
  doc: T;
  changes: Partial<T>;
  payload: unknown;
  /** `payload` as JSON, when the caller has it already. */
  json?: string;
  bytesOf: (fields: Partial<T>) => number;
};

/**
 * Commits an accepted sync (docs/api-rules.md#versions-and-conflicts): within the account's and the
 * environment's storage budgets, in one commit with its restore point, the account's byte count and the request's write
 * stamp. Null when another write won between the caller's read and this update: the caller answers
 * with whatever won.
 */
export async function commitSync<T extends AccountDoc | SlotDoc>(
  deps: Deps,
  tenant: Tenant,
  account: AccountDoc,
  recordId: IdempotencyRecordId,
  sync: Sync<T>,
): Promise<SyncAcceptedResponse | null> {
  const { collection, doc, changes, payload, json, bytesOf } = sync;
  const filter = { _id: doc._id, version: doc.version, status: "active" } as Filter<T>;
  const write = { owner: doc, before: bytesOf(doc), after: bytesOf(changes), payload, json, version: doc.version + 1 };
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
