import type { CreateAccountSlotRequest, CreatedSlotWire } from "../../../shared/contract/accounts.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { PlanName } from "../../../shared/contract/plans.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import { FollowerFailedError, type Write } from "../../../shared/store/port.ts";
import { inRounds, insertOrLose, lostRound } from "../../../shared/store/versioned.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import { newId } from "../../../shared/util/ids.ts";
import { slotBytes } from "../account-bytes.ts";
import type { Deps } from "../deps.ts";
import { withinEnvironment } from "../environment-budget.ts";
import { snapshotWrites } from "../history/history.ts";
import { activeSlotForWrite, loadAccount } from "../load.ts";
import {
  type AccountDoc,
  activeKeyOf,
  activeSlotsOf,
  type SlotDoc,
  toAccountResponse,
  toSlotSummary,
} from "../repo.ts";
import { writeWithinBudget } from "../storage.ts";
import { seatKeyOf } from "./seats.ts";

/**
 * A new active slot at version 1 with its first snapshot. Two unique keys settle concurrent creates
 * without a transaction: the active key (the loser of a race for one id gets `slot_already_exists`)
 * and a seat below the plan's cap (a loser for a seat tries a free one; none left is
 * `slot_limit_reached`).
 */
export async function insertSlot(
  deps: Deps,
  plan: PlanName,
  account: AccountDoc,
  req: CreateAccountSlotRequest,
  now: Date,
): Promise<SlotDoc> {
  const { repo } = deps;
  const cap = deps.plans[plan].maxActiveSlots;
  const next = { slotInfo: JSON.stringify(req.slotInfo ?? {}), data: JSON.stringify(req.data) };
  return withinEnvironment(deps, plan, (envTry) => {
    let budget: Awaited<ReturnType<typeof writeWithinBudget>> | undefined;
    // Each lost round means another create took a seat, so this ends within cap + 1 rounds.
    return inRounds({ rounds: cap + 1 }, async () => {
      const active = await activeSlotsOf(repo, account._id);
      if (active.some((s) => s.slotId === req.slotId)) throw fail.slotAlreadyExists(req.slotId);
      const taken = new Set(active.map((s) => s.seatKey));
      const free = Array.from({ length: cap }, (_, n) => seatKeyOf(account._id, n)).filter((k) => !taken.has(k));
      if (free.length === 0) throw fail.slotLimitReached(cap);
      // A random free seat keeps concurrent creates from all racing for the same one.
      const seatKey = free[Math.floor(Math.random() * free.length)]!;
      // The new slot and its first snapshot must fit the storage budget, checked once the cap let it in.
      const change = {
        kind: "sync",
        owner: { _id: "", snapshotSeq: 0 },
        before: 0,
        after: slotBytes(next),
        payload: firstPayload(req),
        version: 1,
      } as const;
      budget ??= await writeWithinBudget(deps, plan, account, change, envTry);
      const { slot, snapshot } = newSlot(deps, plan, account, req, seatKey, now, budget.stamp.snapshot);
      // The budget's counts ride with the slot; its snapshot writes are newSlot's, under the slot's id.
      // A duplicate id or seat (taken meanwhile) is a lost round: look again.
      const inserted = await insertOrLose(repo.slots, slot, [...snapshot, ...budget.counts]).catch((err) => {
        // MongoDB: the slot stands without its first snapshot; only history misses it.
        if (!(err instanceof FollowerFailedError)) throw err;
        deps.log.warn("snapshot not written", { err: err.cause });
        return slot;
      });
      if (inserted === lostRound) return lostRound;
      await budget.settle();
      return slot;
    });
  });
}

const firstPayload = (req: CreateAccountSlotRequest) => ({ slotInfo: req.slotInfo ?? {}, data: req.data });

/**
 * A slot document at version 1 in seat `seatKey`, and the writes of its first snapshot (none when
 * the storage budget has no room for it).
 */
export function newSlot(
  deps: Deps,
  plan: PlanName,
  account: { _id: string; envId: string },
  req: CreateAccountSlotRequest,
  seatKey: string,
  now: Date,
  room = true,
): { slot: SlotDoc; snapshot: Write[] } {
  const at = now.toISOString();
  const payload = firstPayload(req);
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
    ...(room ? { lastSnapshotAt: at, snapshotHash: sha256Hex(JSON.stringify(payload)) } : {}),
    snapshotSeq: room ? 1 : 0,
  };
  if (!room) return { slot, snapshot: [] };
  return {
    slot,
    snapshot: snapshotWrites(deps, plan, {
      ownerId: slot._id,
      accountId: account._id,
      seq: 1,
      version: 1,
      payload,
      at: now,
    }),
  };
}

/**
 * Route 12: the new slot with the account envelope the Persistly SDK reads beside it, the account view
 * read after the insert so it lists the new slot. The gateway adds the slot's data (`completeCreatedSlot`).
 */
export async function createSlot(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.createSlot>,
): Promise<CreatedSlotWire> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return createdAnswer(deps, msg, account, await insertSlot(deps, msg.tenant.plan, account, msg.body, deps.now()));
}

/**
 * A replay of route 12: the slot and account as they are now, or why the slot is no longer active
 * (docs/api-rules.md#idempotent-retries). A slot synced since its creation no longer holds the request's data: send it.
 */
export async function createdSlotNow(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.createSlot>,
): Promise<CreatedSlotWire> {
  const slot = await activeSlotForWrite(deps.repo, msg.session.accountId, msg.body.slotId);
  const answer = await createdAnswer(deps, msg, await loadAccount(deps, msg.tenant.envId, msg.session.accountId), slot);
  return slot.version === 1 ? answer : { ...answer, data: JSON.parse(slot.data) };
}

async function createdAnswer(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.createSlot>,
  account: AccountDoc,
  slot: SlotDoc,
): Promise<CreatedSlotWire> {
  const view = toAccountResponse(account, await activeSlotsOf(deps.repo, account._id));
  return { ...toSlotSummary(slot), accountId: account._id, account: view, syncPolicy: msg.tenant.syncPolicy };
}
