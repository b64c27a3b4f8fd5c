import type { AdminAccountResponse } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import { type AccountStatus, events } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";

const envOf = (envId: string) => {
  const i = envId.lastIndexOf(":");
  return { projectId: envId.slice(0, i), environment: envId.slice(i + 1) as "stage" | "prod" };
};

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
    sessions: sessions.map((s) => ({
      sessionId: s.sessionId,
      createdAt: s.createdAt,
      ...(s.revokedAt ? { revokedAt: s.revokedAt } : {}),
      ...(s.deviceLabel ? { deviceLabel: s.deviceLabel } : {}),
    })),
    page: { ...page, slotCount: await repo.slots.count({ accountId }), sessionCount: await repo.sessions.count({ accountId }) },
  };
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
