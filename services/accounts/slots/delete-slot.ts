import type { DeleteSlotResponse } from "../../../shared/contract/accounts.ts";
import { fail } from "../../../shared/contract/errors.ts";
import { queues } from "../../../shared/contract/internal.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import { inRounds, lostRound, updateOrLose } from "../../../shared/store/versioned.ts";
import { countBytes, slotBytes } from "../account-bytes.ts";
import type { Deps } from "../deps.ts";
import { ensureEnvCount, giveBackSpare } from "../environment-budget.ts";
import { newestWithStatus, slotRoute } from "../load.ts";
import { activeSlotsOf, retire, type SlotDoc, toAccountResponse } from "../repo.ts";

type DeleteSlot = RouteMessage<typeof contractRoutes.deleteSlot>;

/**
 * Each lost round means another request changed the slot (a DELETE, an archive), so rounds end; the
 * bound is far above what concurrent requests of one account cost (20 DELETEs of 6 generations at once).
 */
const maxRounds = 64;

/**
 * Route 14: the active slot, else the newest archived one, becomes an unreadable tombstone before the
 * answer; its history is erased by the cleanup worker.
 */
export async function deleteSlot(deps: Deps, msg: DeleteSlot): Promise<DeleteSlotResponse> {
  const { repo } = deps;
  const { account, accountId, slotId } = await slotRoute(deps, msg);
  await ensureEnvCount(deps, account.envId);

  return inRounds({ rounds: maxRounds }, async () => {
    const target =
      (await newestWithStatus(repo, accountId, slotId, "active")) ??
      (await newestWithStatus(repo, accountId, slotId, "archived"));
    if (!target) {
      const deleted = await newestWithStatus(repo, accountId, slotId, "deleted");
      if (!deleted) throw fail.notFound("Slot");
      return answer(deps, account._id, slotId, deleted, true);
    }
    const at = deps.now().toISOString();
    // Its current state leaves the account's stored bytes with it; its history does as the cleanup erases it.
    // Changed under us (archived or deleted concurrently) is a lost round: look again, as a new DELETE would.
    const tombstone = await updateOrLose(
      repo.slots,
      { _id: target._id, status: target.status },
      {
        ...retire("deleted", target._id),
        slotInfo: "{}",
        data: "{}",
        deletedAt: at,
        updatedAt: at,
        cleanupPending: true,
      },
      account.storedBytes == null ? [] : countBytes(deps, account, -slotBytes(target), -slotBytes(target)),
    );
    if (tombstone === lostRound) return lostRound;
    // Its bytes stay reserved from the environment, unless the account now holds too many unused.
    if (account.envReserved != null) await giveBackSpare(deps, account._id);
    await deps.bus.enqueue(queues.cleanup.name, { kind: "slot", id: target._id });
    return answer(deps, account._id, slotId, tombstone, false);
  });
}

async function answer(
  deps: Deps,
  accountId: string,
  slotId: string,
  slot: SlotDoc,
  alreadyDeleted: boolean,
): Promise<DeleteSlotResponse> {
  const account = await deps.repo.accounts.get(accountId);
  return {
    accountId,
    slotId,
    deletedAt: slot.deletedAt ?? slot.updatedAt,
    alreadyDeleted,
    cleanupQueued: alreadyDeleted ? Boolean(slot.cleanupPending) : true,
    ...(account ? { account: toAccountResponse(account, await activeSlotsOf(deps.repo, accountId)) } : {}),
  };
}
