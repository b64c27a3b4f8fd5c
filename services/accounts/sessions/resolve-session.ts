import { fail } from "../../../shared/contract/errors.ts";
import type { ResolvedSession } from "../../../shared/contract/internal.ts";
import type { Deps } from "../deps.ts";
import { expiresAtOf, lastUseResolutionMs } from "./sessions.ts";

const unknownSession = "The X-Service-Account-Session token is unknown: send the accountSessionToken this account was given.";

/**
 * Finds the session behind a token hash within one environment. A session of a deleted account
 * resolves (so the gateway can answer 410); an unknown or foreign one is 401 `unauthorized`, a signed
 * out or revoked one `session_revoked`, one unused for longer than `sessionIdleDays` `session_expired`.
 * Gateways cache what this answers, so it runs once per session and gateway every little while: the
 * right moment to note the session's last use, at most once a minute.
 */
export async function resolveSession(deps: Deps, input: { envId: string; tokenHash: string; sessionIdleDays: number }): Promise<ResolvedSession> {
  const { repo } = deps;
  const session = await repo.sessions.get(input.tokenHash);
  if (!session || session.envId !== input.envId) throw fail.unauthorized(unknownSession);
  const account = await repo.accounts.get(session.accountId);
  if (!account) throw fail.unauthorized(unknownSession);
  const deleted = account.status === "deleted";
  if (session.revokedAt && !deleted) throw fail.sessionRevoked();

  const now = deps.now();
  if (!deleted && now.getTime() > expiresAtOf(session, input.sessionIdleDays)) throw fail.sessionExpired(input.sessionIdleDays);
  let lastUsedAt = session.lastUsedAt ?? session.createdAt;
  if (!session.revokedAt && now.getTime() - Date.parse(lastUsedAt) >= lastUseResolutionMs) {
    // Conditional on the value read: of concurrent resolves, one writes.
    await repo.sessions.update({ _id: session._id, lastUsedAt: session.lastUsedAt ?? null }, { lastUsedAt: now.toISOString() });
    lastUsedAt = now.toISOString();
  }
  const expiresAt = new Date(expiresAtOf({ createdAt: session.createdAt, lastUsedAt }, input.sessionIdleDays)).toISOString();
  return { sessionId: session.sessionId, accountId: account._id, accountStatus: account.status, expiresAt };
}
