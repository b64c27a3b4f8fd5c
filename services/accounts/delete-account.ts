import type { DeleteAccountResponse } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events, queues } from "../../shared/contract/internal.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { inRounds, lostRound, updateOrLose } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";

/**
 * Route 7: the account becomes an unreadable tombstone before the answer, every gateway drops its
 * cached sessions, and erasing slots, history and sessions is queued.
 */
export async function deleteAccount(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.deleteAccount>,
): Promise<DeleteAccountResponse> {
  const { repo, bus } = deps;
  const accountId = msg.session.accountId;
  // A lost round means the status changed meanwhile (a concurrent DELETE, which the next round answers
  // as already deleted, or an operator's suspend or reinstate): 10 rounds outlast any real sequence of those.
  return inRounds({ rounds: 10 }, async () => {
    const account = await repo.accounts.get(accountId);
    if (!account || account.envId !== msg.tenant.envId) throw fail.notFound("Account");
    if (account.status === "deleted") {
      return {
        accountId,
        deletedAt: account.deletedAt!,
        deletedSlotCount: 0,
        alreadyDeleted: true,
        cleanupQueued: Boolean(account.cleanupPending),
      };
    }

    const deletedSlotCount =
      (await repo.slots.count({ accountId, status: "active" })) +
      (await repo.slots.count({ accountId, status: "archived" }));
    const at = deps.now().toISOString();
    const tombstone = await updateOrLose(
      repo.accounts,
      { _id: accountId, status: account.status },
      { status: "deleted", accountData: "{}", deletedAt: at, updatedAt: at, cleanupPending: true },
    );
    if (tombstone === lostRound) return lostRound; // status changed concurrently: decide again

    await dropEverywhere(bus, events.sessionsChanged, { accountId });
    await bus.enqueue(queues.cleanup.name, { kind: "account", id: accountId });
    return { accountId, deletedAt: at, deletedSlotCount, alreadyDeleted: false, cleanupQueued: true };
  });
}
