import type { SlotResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { newId } from "../../shared/ids.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { writeSnapshot } from "./history.ts";
import { loadAccount } from "./load.ts";
import { type SlotDoc, activeKeyOf, toSlotResponse } from "./repo.ts";

/** Route 12: a new active slot at version 1. The unique active key settles concurrent creates. */
export async function createSlot(deps: Deps, msg: RouteMessage<typeof contractRoutes.createSlot>): Promise<SlotResponse> {
  const { tenant, body } = msg;
  const account = await loadAccount(deps, tenant.envId, msg.session.accountId);
  const now = deps.now();
  const at = now.toISOString();
  const slot: SlotDoc = {
    _id: newId("slt"),
    accountId: account._id,
    envId: tenant.envId,
    slotId: body.slotId,
    activeKey: activeKeyOf(account._id, body.slotId),
    status: "active",
    slotInfo: JSON.stringify(body.slotInfo ?? {}),
    data: JSON.stringify(body.data),
    version: 1,
    createdAt: at,
    updatedAt: at,
    lastSnapshotAt: at,
    snapshotSeq: 1,
  };
  try {
    await deps.repo.slots.insert(slot);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw fail.slotAlreadyExists(body.slotId);
    throw err;
  }
  await writeSnapshot(deps, tenant.plan, {
    ownerId: slot._id,
    accountId: account._id,
    seq: 1,
    version: 1,
    payload: { slotInfo: body.slotInfo ?? {}, data: body.data },
    at: now,
  });
  return toSlotResponse(slot);
}
