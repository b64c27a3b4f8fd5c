import type { AccountResponse } from "../../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { Deps } from "../deps.ts";
import { getAccount } from "../get-account.ts";
import { activeSlotForWrite, slotRoute, whyNoActiveSlot } from "../load.ts";
import { activeSlotsOf, retire, toAccountResponse } from "../repo.ts";

type ArchiveSlot = RouteMessage<typeof contractRoutes.archiveSlot>;

/** A replay of route 16: the account view as it is now (docs/api-rules.md#idempotent-retries), as route 6 reads it. */
export const accountNow = getAccount;

/** Route 16: retire the active slot, freeing its id; answers the account view without it. */
export async function archiveSlot(deps: Deps, msg: ArchiveSlot): Promise<AccountResponse> {
  const { repo } = deps;
  const { account, accountId, slotId } = await slotRoute(deps, msg);
  const slot = await activeSlotForWrite(repo, accountId, slotId);
  const archived = await repo.slots.update(
    { _id: slot._id, status: "active" },
    { ...retire("archived", slot._id), updatedAt: deps.now().toISOString() },
  );
  if (!archived) throw await whyNoActiveSlot(repo, accountId, slotId);
  return toAccountResponse(account, await activeSlotsOf(repo, accountId));
}
