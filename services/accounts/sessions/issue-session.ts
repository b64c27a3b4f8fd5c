import type { z } from "zod";
import { fail } from "../../../shared/contract/errors.ts";
import type { internal } from "../../../shared/contract/internal.ts";
import type { Deps } from "../deps.ts";
import { loadAccount } from "../load.ts";
import { activeSlotsOf, toAccountResponse } from "../repo.ts";
import { openSession } from "./sessions.ts";

type Issue = typeof internal.issueSession;

/**
 * A new device session for an existing account, asked for by the service that proved the device may
 * have one (a consumed transfer code, a verified provider token). Deleted is 410 and suspended 403, as for the account's own
 * sessions; an account of another environment does not exist here. `keepSessionId`, the session that
 * asked (or made the code), is never the one the session cap revokes for the new one.
 */
export async function issueSession(deps: Deps, input: z.infer<Issue["request"]>): Promise<z.infer<Issue["reply"]>> {
  const account = await loadAccount(deps, input.envId, input.accountId).catch((err) => {
    throw err?.code === "not_found" ? fail.accountDeleted() : err;
  });
  const accountSessionToken = await openSession(deps, account, input.deviceLabel, {
    idleDays: input.sessionIdleDays,
    keepSessionId: input.keepSessionId,
  });
  return {
    accountId: account._id,
    accountSessionToken,
    account: toAccountResponse(account, await activeSlotsOf(deps.repo, account._id)),
  };
}
