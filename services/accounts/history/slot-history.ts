import { adminAccount, slotWithHistory } from "../admin/admin-target.ts";
import type { Deps } from "../deps.ts";
import { listRestorePoints, type SnapshotListing } from "./restore-points.ts";

/** Operators: a slot's restore points, newest first (the active slot, else the newest archived one). */
export async function adminSlotHistory(deps: Deps, accountId: string, slotId: string): Promise<SnapshotListing> {
  await adminAccount(deps, accountId);
  const slot = await slotWithHistory(deps, accountId, slotId);
  return { accountId, slotId, snapshots: await listRestorePoints(deps, slot) };
}
