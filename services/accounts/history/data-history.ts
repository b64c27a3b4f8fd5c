import { fail } from "../../../shared/contract/errors.ts";
import { adminAccount } from "../admin/admin-target.ts";
import type { Deps } from "../deps.ts";
import { keptVersion, listRestorePoints, type SnapshotListing } from "./restore-points.ts";

/** Operators: the restore points of an account's accountData, newest first. */
export async function adminDataHistory(deps: Deps, accountId: string): Promise<SnapshotListing> {
  const account = await adminAccount(deps, accountId);
  return { accountId, snapshots: await listRestorePoints(deps, account) };
}

/** Operators: one kept accountData restore point's content, for the console's diff; 404 when it is not kept. */
export async function adminDataVersion(deps: Deps, accountId: string, version: number) {
  const account = await adminAccount(deps, accountId);
  const snapshot = await keptVersion(deps, account, version);
  if (!snapshot) throw fail.notFound(`Restore point ${version}`);
  return {
    accountId,
    version: snapshot.version,
    createdAt: snapshot.createdAt,
    accountData: JSON.parse(snapshot.payload).accountData,
  };
}
