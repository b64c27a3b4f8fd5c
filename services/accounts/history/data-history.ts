import type { Deps } from "../deps.ts";
import { adminAccount } from "../admin/admin-target.ts";
import { type SnapshotListing, listRestorePoints } from "./restore-points.ts";

/** Operators: the restore points of an account's accountData, newest first. */
export async function adminDataHistory(deps: Deps, accountId: string): Promise<SnapshotListing> {
  const account = await adminAccount(deps, accountId);
  return { accountId, snapshots: await listRestorePoints(deps, account) };
}
