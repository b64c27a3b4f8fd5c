import type { AccountResponse } from "../../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { Deps } from "../deps.ts";
import { activeSlotForWrite, loadAccount, whyNoActiveSlot } from "../load.ts";
import { activeSlotsOf, retire, toAccountResponse } from "../repo.ts";

/** A replay of route 16: the account view as it is now (docs/api-rules.md#idempotent-retries). */
export async function accountNow(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.archiveSlot>,
): Promise<AccountResponse> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return toAccountResponse(account, await activeSlotsOf(deps.repo, account._id));
}

/** Route 16: retire the active slot, freeing its id; answers the account view without it. */
export async function archiveSlot(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.archiveSlot>,
): Promise<AccountResponse> {
  const { repo } = deps;
  const { accountId } = msg.session;
  const { slotId } = msg.params;
  const account = await loadAccount(deps, msg.tenant.envId, accountId);
  const slot = await activeSlotForWrite(repo, accountId, slotId);
  const archived = await repo.slots.update(
    { _id: slot._id, status: "active" },
    { ...retire("archived", slot._id), updatedAt: deps.now().toISOString() },
  );
  if (!archived) throw await whyNoActiveSlot(repo, accountId, slotId);
  return toAccountResponse(account, await activeSlotsOf(repo, accountId));
}
