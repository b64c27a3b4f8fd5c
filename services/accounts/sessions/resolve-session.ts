import { fail } from "../../../shared/contract/errors.ts";
import type { ResolvedSession } from "../../../shared/contract/internal.ts";
import { markActive } from "../admin/overview.ts";
import type { Deps } from "../deps.ts";
import type { SessionDoc } from "../repo.ts";
import { deadlineOf, expiresAtOf, fixedDeadline, idleDaysOf, lastUseResolutionMs } from "./sessions.ts";

const unknownSession =
  "The X-Service-Account-Session token is unknown: send the accountSessionToken this account was given.";

/**
 * Finds the session behind a token hash within one environment. A session of a deleted account
 * resolves (so the gateway can answer 410); an unknown or foreign one is 401 `unauthorized`, a signed
 * out or revoked one `session_revoked`, one past its deadline `session_expired` (sessions.ts, expiresAtOf).
 * Gateways cache what this answers, so it runs once per session and gateway every little while: the
 * right moment to note the session's last use, at most once a minute.
 */
export async function resolveSession(
  deps: Deps,
  input: { envId: string; tokenHash: string; sessionIdleDays: number },
): Promise<ResolvedSession> {
  const { repo } = deps;
  const session = await repo.sessions.get(input.tokenHash);
  if (!session || session.envId !== input.envId) throw fail.unauthorized(unknownSession);
  const account = await repo.accounts.get(session.accountId);
  if (!account) throw fail.unauthorized(unknownSession);
  const deleted = account.status === "deleted";
  if (session.revokedAt && !deleted) throw fail.sessionRevoked();

  const now = deps.now();
  const deadline = expiresAtOf(session, input.sessionIdleDays);
  if (!deleted && now.getTime() > deadline) {
    // Refused as expired, expired for good: a deadline a lowered setting brought forward is stored, so
    // raising the setting again cannot revive the session.
    const fixed = fixedDeadline(deadline);
    if (session.expiresAt !== fixed.expiresAt)
      await repo.sessions.update({ _id: session._id, lastUsedAt: session.lastUsedAt ?? null }, fixed);
    throw fail.sessionExpired(idleDaysOf(session, deadline));
  }
  let used: Pick<SessionDoc, "createdAt" | "lastUsedAt" | "expiresAt"> = session;
  if (
    !deleted &&
    !session.revokedAt &&
    now.getTime() - Date.parse(session.lastUsedAt ?? session.createdAt) >= lastUseResolutionMs
  ) {
    // Conditional on the value read: of concurrent resolves, one writes. The use fixes the next deadline.
    const fixed = { lastUsedAt: now.toISOString(), ...deadlineOf(now, input.sessionIdleDays) };
    await repo.sessions.update({ _id: session._id, lastUsedAt: session.lastUsedAt ?? null }, fixed);
    used = { createdAt: session.createdAt, ...fixed };
  }
  if (!deleted && !session.revokedAt) await markActive(deps, account, now);
  const expiresAt = new Date(expiresAtOf(used, input.sessionIdleDays)).toISOString();
  return { sessionId: session.sessionId, accountId: account._id, accountStatus: account.status, expiresAt };
}
