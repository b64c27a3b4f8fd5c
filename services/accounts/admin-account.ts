import type { AdminAccountResponse } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import { callEndpoint } from "../../shared/bus/serve.ts";
import { type AccountStatus, events, internal } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";
import type { SessionDoc } from "./repo.ts";

const envOf = (envId: string) => {
  const i = envId.lastIndexOf(":");
  return { projectId: envId.slice(0, i), environment: envId.slice(i + 1) as "stage" | "prod" };
};

/** A device session as operators see it: never the token or its hash. */
export const sessionView = (s: SessionDoc): AdminAccountResponse["sessions"][number] => ({
  sessionId: s.sessionId,
  ...(s.deviceLabel ? { deviceLabel: s.deviceLabel } : {}),
  createdAt: s.createdAt,
  ...(s.lastUsedAt ? { lastUsedAt: s.lastUsedAt } : {}),
  ...(s.revokedAt ? { revokedAt: s.revokedAt } : {}),
});

/** Operator view: the account in any environment, a page of its slots (every status) and sessions. */
export async function adminGetAccount(deps: Deps, accountId: string, page: { offset: number; limit: number }): Promise<AdminAccountResponse> {
  const { repo } = deps;
  const a = await repo.accounts.get(accountId);
  if (!a) throw fail.notFound("Account");
  const oldestFirst = { sort: { field: "createdAt", direction: 1 }, skip: page.offset, limit: page.limit } as const;
  const slots = await repo.slots.find({ accountId }, oldestFirst);
  const sessions = await repo.sessions.find({ accountId }, oldestFirst);
  return {
    account: {
      accountId: a._id,
      ...envOf(a.envId),
      status: a.status,
      accountData: JSON.parse(a.accountData),
      version: a.version,
      ...(a.playerRef !== undefined ? { playerRef: a.playerRef } : {}),
      ...(a.externalProvider ? { externalAccountRef: { provider: a.externalProvider, subject: a.externalSubject ?? "" } } : {}),
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    },
    slots: slots.map((s) => ({ slotId: s.slotId, status: s.status, version: s.version, createdAt: s.createdAt, updatedAt: s.updatedAt })),
    sessions: sessions.map(sessionView),
    links: await callEndpoint(deps.bus, internal.listLinks, { accountId }),
    page: { ...page, slotCount: await repo.slots.count({ accountId }), sessionCount: await repo.sessions.count({ accountId }) },
  };
}

/** Revokes one device's session; the drop of cached sessions is published to every gateway before the answer is sent. */
export async function adminRevokeSession(deps: Deps, accountId: string, sessionId: string) {
  const { repo } = deps;
  const session = await repo.sessions.findOne({ sessionId, accountId });
  if (!session) throw fail.notFound("Session");
  const revokedAt = session.revokedAt ?? deps.now().toISOString();
  if (!session.revokedAt) await repo.sessions.update({ _id: session._id, revokedAt: null }, { revokedAt });
  deps.bus.publish(events.sessionsChanged.subject, { accountId });
  return { accountId, sessionId, revokedAt };
}

/** Suspends or reinstates an account; every gateway drops its cached sessions at once. */
export async function adminSetStatus(deps: Deps, accountId: string, status: Exclude<AccountStatus, "deleted">) {
  const { repo } = deps;
  const from = status === "suspended" ? "active" : "suspended";
  const updated = await repo.accounts.update({ _id: accountId, status: from }, { status, updatedAt: deps.now().toISOString() });
  if (!updated) {
    const current = await repo.accounts.get(accountId);
    if (!current) throw fail.notFound("Account");
    if (current.status === "deleted") throw fail.accountDeleted();
    // Already in the asked-for state: the operation is idempotent.
  }
  deps.bus.publish(events.sessionsChanged.subject, { accountId });
  return { accountId, status };
}
