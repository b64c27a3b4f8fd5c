import type { SlotResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { Deps } from "./deps.ts";
import { adminAccount } from "./admin-target.ts";
import { snapshotWrites, syncStamp, updateWithHistory } from "./history.ts";
import { activeSlotForWrite } from "./load.ts";
import { toSlotResponse } from "./repo.ts";
import { restorePoint } from "./restore-points.ts";

/** Lost races before giving up with 503: each one means a device synced in between. */
const attempts = 5;

/**
 * Operators: writes restore point `version`'s content as the slot's next version, in one conditional
 * update on the current version, and records it as a restore point itself. History is never
 * rewritten, and a device still on an older version gets the usual 409 on its next sync. Only an
 * active slot is restored: archived is 409 `slot_archived`, deleted 410 (decisions.md, Slots).
 */
export async function adminRestoreSlot(deps: Deps, accountId: string, slotId: string, version: number): Promise<SlotResponse> {
  const { repo } = deps;
  await adminAccount(deps, accountId);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const slot = await activeSlotForWrite(repo, accountId, slotId);
    const { payload, plan } = await restorePoint(deps, slot, version);
    const stamp = syncStamp(deps, plan, slot, "restore");
    const snapshot = snapshotWrites(deps, plan, { ownerId: slot._id, accountId, seq: stamp.seq, version: slot.version + 1, payload, at: stamp.now });
    const { updated } = await updateWithHistory(
      deps,
      repo.slots,
      { _id: slot._id, version: slot.version, status: "active" },
      { slotInfo: JSON.stringify(payload.slotInfo), data: JSON.stringify(payload.data), version: slot.version + 1, ...stamp.changes },
      snapshot,
    );
    if (!updated) continue; // a sync won: restore on top of what it wrote
    return toSlotResponse(updated);
  }
  throw fail.serviceUnavailable();
}
