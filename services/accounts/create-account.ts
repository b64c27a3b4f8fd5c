import type { AccountEnvelopeResponse, CreateAccountRequest } from "../../shared/contract/accounts.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { limitPerMinute } from "../../shared/window-counter.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { newId } from "../../shared/ids.ts";
import type { Deps } from "./deps.ts";
import { fail } from "../../shared/contract/errors.ts";
import { FollowerFailedError, type Write } from "../../shared/store/port.ts";
import { snapshotWrites } from "./history.ts";
import { newSlot } from "./create-slot.ts";
import { type AccountDoc, seatKeyOf, toAccountResponse, toSlotResponse } from "./repo.ts";
import { newSession } from "./sessions.ts";

/** Route 3: an account, its optional first slot, and the device's session token (returned only here). */
export async function createAccount(deps: Deps, msg: RouteMessage<typeof contractRoutes.createAccount>): Promise<AccountEnvelopeResponse> {
  const { tenant, client } = msg;
  await limitPerMinute(deps.repo.creations, deps.now().getTime(), `${tenant.envId}:ip:${client.ip}`, tenant.settings.rateLimits.accountCreationsPerIpPerMinute);
  return openAccount(deps, msg.tenant, msg.body ?? {});
}

/** A new account in the tenant's environment with its first device session; route 3 and first sign-ins. */
export async function openAccount(deps: Deps, tenant: Tenant, body: CreateAccountRequest, deviceLabel?: string): Promise<AccountEnvelopeResponse> {
  const { repo } = deps;
  const now = deps.now();
  const at = now.toISOString();
  const accountId = newId("acc");

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
  };
  // A new account has every seat free: its first slot takes seat 0, with no race to lose.
  if (body.slot && deps.plans[tenant.plan].maxActiveSlots < 1) throw fail.slotLimitReached(0);
  const first = body.slot ? newSlot(deps, tenant.plan, account, body.slot, seatKeyOf(accountId, 0), now) : undefined;
  const slot = first?.slot;
  const { token, doc: session } = newSession(deps, account, deviceLabel);
  // One commit on SQLite: the account, its first snapshot, its first slot with its snapshot, the session.
  const writes: Write[] = [
    ...snapshotWrites(deps, tenant.plan, { ownerId: accountId, accountId, seq: 1, version: 1, payload: { accountData: body.accountData ?? {} }, at: now }),
    ...(first ? [{ insert: first.slot, into: repo.slots }, ...first.snapshot] : []),
    { insert: session, into: repo.sessions },
  ];
  try {
    await repo.accounts.insert(account, writes);
  } catch (err) {
    // MongoDB: the account is written but not all of the rest; without its session it is unusable.
    throw err instanceof FollowerFailedError ? err.cause : err;
  }

  return {
    accountId,
    accountSessionToken: token,
    account: toAccountResponse(account, slot ? [slot] : []),
    ...(slot ? { slot: toSlotResponse(slot) } : {}),
    syncPolicy: tenant.syncPolicy,
  };
}
