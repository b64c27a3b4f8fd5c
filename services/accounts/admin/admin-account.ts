import type { AdminAccountResponse } from "../../../shared/contract/admin.ts";
import { fail } from "../../../shared/contract/errors.ts";
import { type AccountStatus, events, internal } from "../../../shared/contract/internal.ts";
import { dropEverywhere } from "../../../shared/revocation/cache-drops.ts";
import { callEndpoint } from "../../../shared/serving/call.ts";
import { currentStateBytes, historyBytes } from "../account-bytes.ts";
import type { Deps } from "../deps.ts";
import type { AccountDoc, SessionDoc } from "../repo.ts";
import { revokeSession } from "../sessions/player-sessions.ts";

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
export async function adminGetAccount(
  deps: Deps,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<AdminAccountResponse> {
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
      ...(a.externalProvider
        ? { externalAccountRef: { provider: a.externalProvider, subject: a.externalSubject ?? "" } }
        : {}),
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    },
    storage: await storageView(deps, a),
    slots: slots.map((s) => ({
      slotId: s.slotId,
      status: s.status,
      version: s.version,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    })),
    sessions: sessions.map(sessionView),
    links: await callEndpoint(deps.bus, internal.listLinks, { accountId }),
    page: {
      ...page,
      slotCount: await repo.slots.count({ accountId }),
      sessionCount: await repo.sessions.count({ accountId }),
    },
  };
}

/** The account's stored bytes: the running count, and a recount of what makes it up. */
async function storageView(deps: Deps, a: AccountDoc): Promise<AdminAccountResponse["storage"]> {
  const history = await historyBytes(deps, a._id);
  // Operator routes carry no tenant: the plan recorded on the newest snapshot stands in (restore-points.ts).
  const newest = await deps.repo.snapshots.findOne({ accountId: a._id }, { field: "createdAt", direction: -1 });
  const plan = newest?.plan ? deps.plans[newest.plan] : undefined;
  return {
    storedBytes: a.storedBytes ?? 0,
    currentStateBytes: a.status === "deleted" ? 0 : await currentStateBytes(deps, a),
    historyBytes: history.bytes,
    snapshots: history.count,
    ...(plan ? { budgetBytes: plan.storage.bytesPerAccount } : {}),
  };
}

/** Revokes one device's session; the drop of cached sessions is published to every gateway before the answer is sent. */
export async function adminRevokeSession(deps: Deps, accountId: string, sessionId: string) {
  return { accountId, ...(await revokeSession(deps, accountId, sessionId)) };
}

/** Suspends or reinstates an account; every gateway drops its cached sessions at once. */
export async function adminSetStatus(deps: Deps, accountId: string, status: Exclude<AccountStatus, "deleted">) {
  const { repo } = deps;
  const from = status === "suspended" ? "active" : "suspended";
  const updated = await repo.accounts.update(
    { _id: accountId, status: from },
    { status, updatedAt: deps.now().toISOString() },
  );
  if (!updated) {
    const current = await repo.accounts.get(accountId);
    if (!current) throw fail.notFound("Account");
    if (current.status === "deleted") throw fail.accountDeleted();
    // Already in the asked-for state: the operation is idempotent.
  }
  await dropEverywhere(deps.bus, events.sessionsChanged, { accountId });
  return { accountId, status };
}
