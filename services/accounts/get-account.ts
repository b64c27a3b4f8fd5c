import type { AccountResponse } from "../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { loadAccount } from "./load.ts";
import { activeSlotsOf, toAccountResponse } from "./repo.ts";

/** Route 6: accountData and the active slots' summaries. */
export async function getAccount(
  deps: Deps,
  msg: Pick<RouteMessage<typeof contractRoutes.getAccount>, "tenant" | "session">,
): Promise<AccountResponse> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return toAccountResponse(account, await activeSlotsOf(deps.repo, account._id));
}
