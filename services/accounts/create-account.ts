import type { AccountEnvelopeResponse, CreateAccountRequest } from "../../shared/contract/accounts.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { perMinuteQuota } from "../../shared/limits/window-counter.ts";
import {
  BudgetExceededError,
  DuplicateKeyError,
  FollowerFailedError,
  type Quota,
  QuotaExceededError,
  type Write,
} from "../../shared/store/port.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { newId } from "../../shared/util/ids.ts";
import { byteLength, slotBytes } from "./account-bytes.ts";
import { dayMarksOf } from "./admin/overview.ts";
import type { Deps } from "./deps.ts";
import { chunkOf, ensureEnvCount, environmentRefusal, envReserve } from "./environment-budget.ts";
import { snapshotWrites } from "./history/history.ts";
import { type AccountDoc, toAccountResponse, toSlotResponse } from "./repo.ts";
import { issueSession } from "./sessions/issue-session.ts";
import { pruneSessionsOncePerDay } from "./sessions/prune-sessions.ts";
import { newSession } from "./sessions/sessions.ts";
import { newSlot } from "./slots/create-slot.ts";
import { seatKeyOf } from "./slots/seats.ts";

/** Route 3: an account, its optional first slot, and the device's session token (returned only here). */
export async function createAccount(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.createAccount>,
): Promise<AccountEnvelopeResponse> {
  const { tenant, client } = msg;
  const what = { setting: "accountCreationsPerIpPerMinute", counted: "account creations" } as const;
  // The per-IP count is the account's quota: on SQLite counted in the account's one commit, exact under a burst.
  const limited = perMinuteQuota(deps.repo.creations, deps.now().getTime(), tenant, client.ip, what);
  await limited.prune();
  try {
    return await openAccount(deps, msg.tenant, msg.body ?? {}, { quota: limited.quota });
  } catch (err) {
    throw err instanceof QuotaExceededError ? limited.refused() : err;
  }
}

/**
 * A first sign-in's account under the id its identity link reserved (docs/identity-providers.md):
 * the first request to get here opens it; a later one (a concurrent sign-in of the same identity, or
 * one after a crash between the reservation and the opening) finds it open and gets a new session on it.
 */
export async function openReservedAccount(
  deps: Deps,
  input: { tenant: Tenant; deviceLabel?: string; accountId: string },
) {
  try {
    return {
      ...(await openAccount(deps, input.tenant, {}, { deviceLabel: input.deviceLabel, accountId: input.accountId })),
      opened: true,
    };
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    const { envId, settings } = input.tenant;
    const issue = {
      envId,
      accountId: input.accountId,
      deviceLabel: input.deviceLabel,
      sessionIdleDays: settings.sessionIdleDays,
    };
    return { ...(await issueSession(deps, issue)), opened: false };
  }
}

/**
 * A new account in the tenant's environment with its first device session; route 3 and first sign-ins.
 * With a `quota`, only while it has room (QuotaExceededError otherwise).
 */
export async function openAccount(
  deps: Deps,
  tenant: Tenant,
  body: CreateAccountRequest,
  { deviceLabel, accountId = newId("acc"), quota }: { deviceLabel?: string; accountId?: string; quota?: Quota } = {},
): Promise<AccountEnvelopeResponse> {
  const { repo } = deps;
  const now = deps.now();
  const at = now.toISOString();

  const account: AccountDoc = {
    _id: accountId,
    envId: tenant.envId,
    status: "active",
    accountData: JSON.stringify(body.accountData ?? {}),
    version: 1,
    playerRef: body.playerRef,
    externalProvider: body.externalAccountRef?.provider,
    externalSubject: body.externalAccountRef?.subject,
    createdAt: at,
    updatedAt: at,
    lastSnapshotAt: at,
    snapshotSeq: 1,
    ...dayMarksOf(now),
  };
  const firstSnapshot = { accountData: body.accountData ?? {} };
  account.snapshotHash = sha256Hex(JSON.stringify(firstSnapshot));
  // A new account has every seat free: its first slot takes seat 0, with no race to lose.
  if (body.slot && deps.plans[tenant.plan].maxActiveSlots < 1) throw fail.slotLimitReached(0);
  const first = body.slot ? newSlot(deps, tenant.plan, account, body.slot, seatKeyOf(accountId, 0), now) : undefined;
  const slot = first?.slot;
  const { token, doc: session } = newSession(
    deps,
    account,
    deviceLabel ?? body.deviceLabel,
    tenant.settings.sessionIdleDays,
  );
  // One commit on SQLite: the account, its first snapshot, its first slot with its snapshot, the session.
  const writes: Write[] = [
    ...snapshotWrites(deps, tenant.plan, {
      ownerId: accountId,
      accountId,
      seq: 1,
      version: 1,
      payload: firstSnapshot,
      at: now,
    }),
    ...(first ? [{ insert: first.slot, into: repo.slots }, ...first.snapshot] : []),
    { insert: session, into: repo.sessions },
  ];
  // An account's own budget is at least 1 MiB (plans.ts), more than a new account can hold; its
  // environment's may be full: then the account is not opened (docs/plans-and-limits.md#storage-budgets).
  const history = writes.reduce(
    (n, w) => n + ("insert" in w && w.into === repo.snapshots ? byteLength(String(w.insert.payload)) : 0),
    0,
  );
  account.currentBytes = byteLength(account.accountData) + (first ? slotBytes(first.slot) : 0);
  account.storedBytes = account.currentBytes + history;
  await ensureEnvCount(deps, tenant.envId);
  // It reserves a chunk beyond its bytes (its first growths then touch no environment document) while
  // the environment, as read, has room for that; else exactly its bytes. A read that went stale refuses
  // at most a chunk early; retrying would count the address's creation quota twice on MongoDB.
  const budget = deps.plans[tenant.plan].storage.bytesPerEnvironmentAccounts;
  const chunk = chunkOf(deps, tenant.plan);
  const reservedNow = (await repo.usage.get(tenant.envId))?.reservedBytes ?? 0;
  account.envReserved = account.storedBytes + (reservedNow + account.storedBytes + chunk <= budget ? chunk : 0);
  writes.push(envReserve(deps, tenant.envId, account.envReserved, budget));
  try {
    await repo.accounts.insert(account, writes, quota);
  } catch (err) {
    if (err instanceof BudgetExceededError) throw environmentRefusal(deps, tenant.plan, err);
    // MongoDB: the account is written but not all of the rest; without its session it is unusable.
    throw err instanceof FollowerFailedError ? err.cause : err;
  }
  await pruneSessionsOncePerDay(repo.sessions, now);

  return {
    accountId,
    accountSessionToken: token,
    account: toAccountResponse(account, slot ? [slot] : []),
    ...(slot ? { slot: toSlotResponse(slot) } : {}),
    syncPolicy: tenant.syncPolicy,
  };
}
