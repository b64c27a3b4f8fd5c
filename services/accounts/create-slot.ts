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
import { type SlotDoc, activeKeyOf, activeSlotsOf, seatKeyOf, toSlotResponse } from "./repo.ts";

/**
 * A new active slot at version 1 with its first snapshot. Two unique keys settle concurrent creates
 * without a transaction: the active key (the loser of a race for one id gets `slot_already_exists`)
 * and a seat below the plan's cap (a loser for a seat tries a free one; none left is
 * `slot_limit_reached`).
 */
export async function insertSlot(deps: Deps, plan: PlanName, account: { _id: string; envId: string }, req: CreateAccountSlotRequest, now: Date): Promise<SlotDoc> {
  const { repo } = deps;
  const cap = deps.plans[plan].maxActiveSlots;
  const at = now.toISOString();
  const activeKey = activeKeyOf(account._id, req.slotId);
  // Each lost race means another create took a seat, so this ends within cap + 1 rounds.
  for (let round = 0; round <= cap; round++) {
    const active = await activeSlotsOf(repo, account._id);
    if (active.some((s) => s.slotId === req.slotId)) throw fail.slotAlreadyExists(req.slotId);
    const taken = new Set(active.map((s) => s.seatKey));
    const free = Array.from({ length: cap }, (_, n) => seatKeyOf(account._id, n)).filter((k) => !taken.has(k));
    if (free.length === 0) throw fail.slotLimitReached(cap);
    // A random free seat keeps concurrent creates from all racing for the same one.
    const seatKey = free[Math.floor(Math.random() * free.length)]!;
    const slot: SlotDoc = {
      _id: newId("slt"),
      accountId: account._id,
      envId: account.envId,
      slotId: req.slotId,
      activeKey,
      seatKey,
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
      await repo.slots.insert(slot);
    } catch (err) {
      if (err instanceof DuplicateKeyError) continue; // the id or the seat was taken meanwhile: look again
      throw err;
    }
    await writeSnapshot(deps, plan, { ownerId: slot._id, accountId: account._id, seq: 1, version: 1, payload: { slotInfo: req.slotInfo ?? {}, data: req.data }, at: now });
    return slot;
  }
  throw fail.serviceUnavailable();
}

/** Route 12. */
export async function createSlot(deps: Deps, msg: RouteMessage<typeof contractRoutes.createSlot>): Promise<SlotResponse> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return toSlotResponse(await insertSlot(deps, msg.tenant.plan, account, msg.body, deps.now()));
}
