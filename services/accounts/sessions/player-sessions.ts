import { fail } from "../../../shared/contract/errors.ts";
import { events } from "../../../shared/contract/internal.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { SessionListResponse, SignOutResponse } from "../../../shared/contract/sessions.ts";
import { dropEverywhere } from "../../../shared/revocation/cache-drops.ts";
import type { Deps } from "../deps.ts";
import { isLive, revokedPruneDay } from "./sessions.ts";

type Routes = typeof contractRoutes;

/**
 * The player's devices (docs/using-the-api.md#sessions-and-devices): live sessions only, oldest first, the caller's
 * own marked `current`; never a token or its hash.
 */
export async function listSessions(
  deps: Deps,
  msg: RouteMessage<Routes["listSessions"]>,
): Promise<SessionListResponse> {
  const { accountId, sessionId } = msg.session;
  const now = deps.now();
  // Revoked sessions stay stored (operators see them) but are never read here.
  const all = await deps.repo.sessions.find(
    { accountId, revokedAt: null },
    { sort: { field: "createdAt", direction: 1 } },
  );
  const sessions = all
    .filter((s) => isLive(s, msg.tenant.settings.sessionIdleDays, now))
    .map((s) => ({
      sessionId: s.sessionId,
      ...(s.deviceLabel ? { deviceLabel: s.deviceLabel } : {}),
      createdAt: s.createdAt,
      ...(s.lastUsedAt ? { lastUsedAt: s.lastUsedAt } : {}),
      current: s.sessionId === sessionId,
    }));
  return { accountId, sessions };
}

/** Signs out the device this request came from. */
export const signOutCurrent = (deps: Deps, msg: RouteMessage<Routes["signOutCurrent"]>) =>
  revokeSession(deps, msg.session.accountId, msg.session.sessionId);

/** Signs out another device of the same account; a session of another account is 404 here. */
export const signOutSession = (deps: Deps, msg: RouteMessage<Routes["signOutSession"]>) =>
  revokeSession(deps, msg.session.accountId, msg.params.sessionId);

/**
 * Revokes one session of the account (again: the first revocation's time). Every gateway copy drops
 * the account's cached sessions on the event, which leaves on this service's bus connection before
 * the answer does: over NATS the server passes the event on to every gateway before it passes the
 * answer on to the one that asked, so a request sent after the answer finds the session dropped.
 */
export async function revokeSession(deps: Deps, accountId: string, sessionId: string): Promise<SignOutResponse> {
  const { repo } = deps;
  const session = await repo.sessions.findOne({ sessionId, accountId });
  if (!session) throw fail.notFound("Session");
  const now = deps.now();
  const revokedAt = session.revokedAt ?? now.toISOString();
  if (!session.revokedAt)
    await repo.sessions.update({ _id: session._id, revokedAt: null }, { revokedAt, pruneDay: revokedPruneDay(now) });
  await dropEverywhere(deps.bus, events.sessionsChanged, { accountId });
  return { sessionId, revokedAt };
}
