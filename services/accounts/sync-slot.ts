import type { SlotConflictWire, SyncAcceptedResponse } from "../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { acceptedSync, syncStamp } from "./history.ts";
import { activeSlotForWrite } from "./load.ts";
import { type SlotDoc, toSlotResponse } from "./repo.ts";

/**
 * Route 15. The version check lives in the store's single conditional update, so of N concurrent
 * syncs from one base version exactly one is accepted.
 */
export async function syncSlot(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.syncSlot>,
): Promise<SyncAcceptedResponse | SlotConflictWire> {
  const { repo } = deps;
  const { tenant, body } = msg;
  const { accountId } = msg.session;
  const slot = await activeSlotForWrite(repo, accountId, msg.params.slotId);
  if (slot.version !== body.baseVersion) return conflict(slot);

  const stamp = syncStamp(deps, tenant.plan, slot);
  const slotInfo = body.slotInfo ?? JSON.parse(slot.slotInfo);
  const updated = await repo.slots.update(
    { _id: slot._id, version: body.baseVersion, status: "active" },
    {
      slotInfo: JSON.stringify(slotInfo),
      data: JSON.stringify(body.data),
      version: body.baseVersion + 1,
      ...stamp.changes,
    },
  );
  if (!updated) {
    // Another write won between the read and the update: answer with the state that won.
    return conflict(await activeSlotForWrite(repo, accountId, msg.params.slotId));
  }

  return acceptedSync(deps, tenant, slot, stamp, { ownerId: slot._id, accountId, version: updated.version, payload: { slotInfo, data: body.data } });
}

function conflict(slot: SlotDoc): SlotConflictWire {
  return { status: "conflict", slot: toSlotResponse(slot), version: slot.version, updatedAt: slot.updatedAt, details: { reason: "base_version_mismatch" } };
}
