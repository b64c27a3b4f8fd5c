import type { SlotListResponse } from "../../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { Deps } from "../deps.ts";
import { activeSlotsOf, toSlotSummary } from "../repo.ts";

/** Route 11: active slot summaries only; archived and deleted slots are not listed. */
export async function listSlots(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.listSlots>,
): Promise<SlotListResponse> {
  const { accountId } = msg.session;
  return { accountId, slots: (await activeSlotsOf(deps.repo, accountId)).map(toSlotSummary) };
}
