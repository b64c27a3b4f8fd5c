import { fail } from "../../shared/contract/errors.ts";
import type { ResolvedSession } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";
import { lastUseResolutionMs } from "./sessions.ts";

/**
 * Finds the session behind a token hash within one environment. A session of a deleted account
 * resolves (so the gateway can answer 410); any other revoked, unknown or foreign session is 401.
 * Gateways cache what this answers, so it runs once per session and gateway every little while: the
 * right moment to note the session's last use, at most once a minute.
 */
export async function resolveSession(deps: Deps, input: { envId: string; tokenHash: string }): Promise<ResolvedSession> {
  const { repo } = deps;
  const session = await repo.sessions.get(input.tokenHash);
  if (!session || session.envId !== input.envId) throw fail.unauthorized();
  const account = await repo.accounts.get(session.accountId);
  if (!account) throw fail.unauthorized();
  if (session.revokedAt && account.status !== "deleted") throw fail.unauthorized();

  const now = deps.now();
  if (!session.revokedAt && now.getTime() - Date.parse(session.lastUsedAt ?? session.createdAt) >= lastUseResolutionMs) {
    // Conditional on the value read: of concurrent resolves, one writes.
    await repo.sessions.update({ _id: session._id, lastUsedAt: session.lastUsedAt ?? null }, { lastUsedAt: now.toISOString() });
  }
  return { sessionId: session.sessionId, accountId: account._id, accountStatus: account.status };
}
