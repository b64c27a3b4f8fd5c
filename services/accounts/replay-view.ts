import type { z } from "zod";
import { fail } from "../../shared/contract/errors.ts";
import type { internal } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";
import { activeSlotsOf, toAccountResponse, toSlotResponse } from "./repo.ts";
import { expiresAtOf } from "./sessions/sessions.ts";

type View = typeof internal.replayView;

/**
 * The current state behind a replayed answer that hands out a session token (docs/api-rules.md#idempotent-retries). The
 * token is given again only while both its account and its session live: a deleted account is 410,
 * a revoked session 401, an expired one (idle past the project's sessionIdleDays) 401 `session_expired`
 * as any request of it would be.
 */
export async function replayView(deps: Deps, input: z.infer<View["request"]>): Promise<z.infer<View["reply"]>> {
  const { repo } = deps;
  const account = await repo.accounts.get(input.accountId);
  if (!account || account.envId !== input.envId || account.status === "deleted") throw fail.accountDeleted();
  const session = await repo.sessions.get(input.tokenHash);
  if (!session || session.accountId !== account._id || session.revokedAt) {
    throw fail.unauthorized(
      "The session this request was first answered with has been revoked; send a new request with a new Idempotency-Key.",
    );
  }
  if (deps.now().getTime() > expiresAtOf(session, input.sessionIdleDays))
    throw fail.sessionExpired(input.sessionIdleDays);
  const slots = await activeSlotsOf(repo, account._id);
  const slot = input.slotId === undefined ? undefined : slots.find((s) => s.slotId === input.slotId);
  return { account: toAccountResponse(account, slots), ...(slot ? { slot: toSlotResponse(slot) } : {}) };
}
