import type { CreateAccountSlotRequest, SlotResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { newId } from "../../shared/ids.ts";
import type { PlanName } from "../../shared/plans.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { writeSnapshot } from "./history.ts";
import { loadAccount } from "./load.ts";
import { type SlotDoc, activeKeyOf, toSlotResponse } from "./repo.ts";

/**
 * A new active slot at version 1 with its first snapshot. The unique active key settles concurrent
 * creates: the loser gets `slot_already_exists`.
 */
export async function insertSlot(deps: Deps, plan: PlanName, account: { _id: string; envId: string }, req: CreateAccountSlotRequest, now: Date): Promise<SlotDoc> {
  const at = now.toISOString();
  const slot: SlotDoc = {
    _id: newId("slt"),
    accountId: account._id,
    envId: account.envId,
    slotId: req.slotId,
    activeKey: activeKeyOf(account._id, req.slotId),
    status: "active",
    slotInfo: JSON.stringify(req.slotInfo ?? {}),
    data: JSON.stringify(req.data),
    version: 1,
    createdAt: at,
    updatedAt: at,
    lastSnapshotAt: at,
    snapshotSeq: 1,
  };
  try {
    await deps.repo.slots.insert(slot);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw fail.slotAlreadyExists(req.slotId);
    throw err;
  }
  await writeSnapshot(deps, plan, { ownerId: slot._id, accountId: account._id, seq: 1, version: 1, payload: { slotInfo: req.slotInfo ?? {}, data: req.data }, at: now });
  return slot;
}

/** Route 12. */
export async function createSlot(deps: Deps, msg: RouteMessage<typeof contractRoutes.createSlot>): Promise<SlotResponse> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return toSlotResponse(await insertSlot(deps, msg.tenant.plan, account, msg.body, deps.now()));
}
