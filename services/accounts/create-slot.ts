import type { CreateAccountSlotRequest, SlotResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { newId } from "../../shared/ids.ts";
import type { PlanName } from "../../shared/plans.ts";
import { DuplicateKeyError, FollowerFailedError, type Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { snapshotWrites } from "./history.ts";
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
  // Each lost race means another create took a seat, so this ends within cap + 1 rounds.
  for (let round = 0; round <= cap; round++) {
    const active = await activeSlotsOf(repo, account._id);
    if (active.some((s) => s.slotId === req.slotId)) throw fail.slotAlreadyExists(req.slotId);
    const taken = new Set(active.map((s) => s.seatKey));
    const free = Array.from({ length: cap }, (_, n) => seatKeyOf(account._id, n)).filter((k) => !taken.has(k));
    if (free.length === 0) throw fail.slotLimitReached(cap);
    // A random free seat keeps concurrent creates from all racing for the same one.
    const seatKey = free[Math.floor(Math.random() * free.length)]!;
    const { slot, snapshot } = newSlot(deps, plan, account, req, seatKey, now);
    try {
      await repo.slots.insert(slot, snapshot);
    } catch (err) {
      if (err instanceof DuplicateKeyError) continue; // the id or the seat was taken meanwhile: look again
      // MongoDB: the slot stands without its first snapshot; only history misses it.
      if (err instanceof FollowerFailedError) deps.log.warn("snapshot not written", { err: err.cause });
      else throw err;
    }
    return slot;
  }
  throw fail.serviceUnavailable();
}

/** A slot document at version 1 in seat `seatKey`, and the writes of its first snapshot. */
export function newSlot(deps: Deps, plan: PlanName, account: { _id: string; envId: string }, req: CreateAccountSlotRequest, seatKey: string, now: Date): { slot: SlotDoc; snapshot: Write[] } {
  const at = now.toISOString();
  const slot: SlotDoc = {
    _id: newId("slt"),
    accountId: account._id,
    envId: account.envId,
    slotId: req.slotId,
    activeKey: activeKeyOf(account._id, req.slotId),
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
  const snapshot = snapshotWrites(deps, plan, { ownerId: slot._id, accountId: account._id, seq: 1, version: 1, payload: { slotInfo: req.slotInfo ?? {}, data: req.data }, at: now });
  return { slot, snapshot };
}

/** Route 12. */
export async function createSlot(deps: Deps, msg: RouteMessage<typeof contractRoutes.createSlot>): Promise<SlotResponse> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return toSlotResponse(await insertSlot(deps, msg.tenant.plan, account, msg.body, deps.now()));
}
