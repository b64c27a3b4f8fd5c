import type { AdminAccountResponse } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import { type AccountStatus, events } from "../../shared/contract/internal.ts";
import type { Deps } from "./deps.ts";

const envOf = (envId: string) => {
  const i = envId.lastIndexOf(":");
  return { projectId: envId.slice(0, i), environment: envId.slice(i + 1) as "stage" | "prod" };
};

/** Operator view: the account in any environment, archived and deleted slots, sessions without tokens. */
export async function adminGetAccount(deps: Deps, accountId: string): Promise<AdminAccountResponse> {
  const { repo } = deps;
  const a = await repo.accounts.get(accountId);
  if (!a) throw fail.notFound("Account");
  const slots = await repo.slots.find({ accountId }, { sort: { field: "createdAt", direction: 1 } });
  const sessions = await repo.sessions.find({ accountId }, { sort: { field: "createdAt", direction: 1 } });
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
    slots: slots.map((s) => ({ slotId: s.slotId, status: s.status, version: s.version, slotInfo: JSON.parse(s.slotInfo), createdAt: s.createdAt, updatedAt: s.updatedAt })),
    sessions: sessions.map((s) => ({
      sessionId: s.sessionId,
      createdAt: s.createdAt,
      ...(s.revokedAt ? { revokedAt: s.revokedAt } : {}),
      ...(s.deviceLabel ? { deviceLabel: s.deviceLabel } : {}),
    })),
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
