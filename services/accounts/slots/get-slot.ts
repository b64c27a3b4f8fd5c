import type { SlotResponse } from "../../../shared/contract/accounts.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { Deps } from "../deps.ts";
import { activeKeyOf, toSlotAnswer } from "../repo.ts";

/** Route 13: the active slot with its data; anything else is 404 on a read route. */
export async function getSlot(deps: Deps, msg: RouteMessage<typeof contractRoutes.getSlot>): Promise<SlotResponse> {
  const slot = await deps.repo.slots.findOne({ activeKey: activeKeyOf(msg.session.accountId, msg.params.slotId) });
  if (!slot) throw fail.notFound("Slot");
  return toSlotAnswer(slot);
}
