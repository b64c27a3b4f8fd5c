import { fail } from "../../shared/contract/errors.ts";
import type { ResolvedSession } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";

/**
 * Finds the session behind a token hash within one environment. A session of a deleted account
 * resolves (so the gateway can answer 410); any other revoked, unknown or foreign session is 401.
 */
export async function resolveSession(deps: Deps, input: { envId: string; tokenHash: string }): Promise<ResolvedSession> {
  const session = await deps.repo.sessions.get(input.tokenHash);
  if (!session || session.envId !== input.envId) throw fail.unauthorized();
  const account = await deps.repo.accounts.get(session.accountId);
  if (!account) throw fail.unauthorized();
  if (session.revokedAt && account.status !== "deleted") throw fail.unauthorized();
  return { sessionId: session.sessionId, accountId: account._id, accountStatus: account.status };
}
