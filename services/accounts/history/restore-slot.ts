import type { SlotResponse } from "../../../shared/contract/accounts.ts";
import type { RestoreSlotConflictWire } from "../../../shared/contract/restore-points.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import { conflict } from "../../../shared/serving/reply.ts";
import { slotFieldBytes } from "../account-bytes.ts";
import { adminAccount } from "../admin/admin-target.ts";
import type { Deps } from "../deps.ts";
import { activeSlotForWrite, loadAccount } from "../load.ts";
import { type AccountDoc, type SlotDoc, toSlotResponse } from "../repo.ts";
import { playerRestore, type RestoreTarget, restoreVersion } from "./restore.ts";

type RestoreSlot = RouteMessage<typeof contractRoutes.restoreSlot>;

/** Only an active slot is restored: archived is 409 `slot_archived`, deleted 410 (docs/using-the-api.md#restoring-a-slot). */
const slotTarget = (
  deps: Deps,
  accountId: string,
  slotId: string,
  account: () => Promise<AccountDoc>,
): RestoreTarget<SlotDoc> => ({
  collection: deps.repo.slots,
  accountId,
  load: () => activeSlotForWrite(deps.repo, accountId, slotId),
  contentOf: (slot) => ({ slotInfo: JSON.parse(slot.slotInfo), data: JSON.parse(slot.data) }),
  fieldsOf: (payload) => ({ slotInfo: JSON.stringify(payload.slotInfo), data: JSON.stringify(payload.data) }),
  bytesOf: slotFieldBytes,
  account,
});

/** Operators: restore point `version` becomes the active slot's next version (restore.ts). */
export async function adminRestoreSlot(
  deps: Deps,
  accountId: string,
  slotId: string,
  version: number,
): Promise<SlotResponse> {
  await adminAccount(deps, accountId);
  const outcome = await restoreVersion(
    deps,
    slotTarget(deps, accountId, slotId, () => adminAccount(deps, accountId)),
    version,
  );
  if (outcome.status !== "accepted") throw new Error("an operator's restore is never stale");
  return toSlotResponse(outcome.updated);
}

/**
 * Players: the same restore, from `baseVersion` like a sync; a stale base answers the usual 409 with
 * the restored content as the client side.
 */
export async function restoreSlot(deps: Deps, msg: RestoreSlot, key?: IdempotencyRecordId) {
  const { accountId } = msg.session;
  const account = () => loadAccount(deps, msg.tenant.envId, accountId);
  await account();
  const target = slotTarget(deps, accountId, msg.params.slotId, account);
  return playerRestore(deps, target, msg.body, key, (current, restored) =>
    conflict<RestoreSlotConflictWire>({
      status: "conflict",
      slot: toSlotResponse(current),
      version: current.version,
      updatedAt: current.updatedAt,
      details: {
        reason: "base_version_mismatch",
        clientSlot: {
          slotInfo: restored.slotInfo as Record<string, unknown>,
          data: restored.data as Record<string, unknown>,
        },
      },
    }),
  );
}
