import { type CreateTransferCodeResponse, TransferCodeTtl } from "../../shared/contract/identity.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { dayAfter } from "../../shared/store/prune-days.ts";
import { formatTransferCode, hashTransferCode, newTransferCode } from "./code.ts";
import type { Deps } from "./deps.ts";
import { pruneCodesOncePerDay } from "./prune-codes.ts";

/** docs/api-rules.md#transfer-codes: at most this many unconsumed codes per account; a new one retires the oldest. */
export const maxActiveCodes = 5;

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));

// Codes made in one millisecond by one process still have an order: the creation time, then a count.
let made = 0;
const orderKey = (now: Date) => `${now.toISOString()}#${String(++made).padStart(12, "0")}`;

/**
 * Route 9: a one-time code for the account behind the session. The gateway has already refused a
 * deleted or suspended account. The code is answered once and stored only as its keyed hash.
 */
export async function createCode(deps: Deps, msg: RouteMessage<typeof contractRoutes.createTransferCode>): Promise<CreateTransferCodeResponse> {
  const { repo } = deps;
  const { accountId } = msg.session;
  const longest = Math.min(TransferCodeTtl.maxSeconds, msg.tenant.settings.transferCodeTtlSeconds);
  const ttl = clamp(msg.body?.ttlSeconds ?? TransferCodeTtl.defaultSeconds, TransferCodeTtl.minSeconds, longest);
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
  const code = newTransferCode();
  const _id = hashTransferCode(deps.secret, msg.tenant.envId, code);
  await repo.codes.insert({
    _id,
    envId: msg.tenant.envId,
    accountId,
    sessionId: msg.session.sessionId,
    status: "active",
    deviceLabel: msg.body?.deviceLabel,
    createdAt: now.toISOString(),
    createdOrder: orderKey(now),
    expiresAt,
    pruneDay: dayAfter(new Date(expiresAt)),
  });
  await pruneCodesOncePerDay(repo.codes, now);

  // Concurrent creates each retire everything past the newest five: they agree on which. The code
  // being answered is never among them, whatever its neighbours' timestamps.
  const active = await repo.codes.find({ accountId, status: "active" }, { sort: { field: "createdOrder", direction: -1 } });
  const others = active.filter((c) => c._id !== _id);
  for (const old of others.slice(maxActiveCodes - 1)) await repo.codes.update({ _id: old._id, status: "active" }, { status: "revoked" });

  return { transferCode: formatTransferCode(code), expiresAt, expiresInSeconds: ttl };
}
