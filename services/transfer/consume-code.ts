import type { AccountEnvelopeResponse } from "../../shared/contract/accounts.ts";
import { fail, isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { attemptLimits } from "./attempts.ts";
import { hashTransferCode, normalizeTransferCode } from "./code.ts";
import type { Deps } from "./deps.ts";
import type { TransferCodeStatus } from "./repo.ts";

/** Why a real code cannot be spent. Still active after a lost update means a passing store fault: retry. */
function refusal(status: TransferCodeStatus) {
  if (status === "consumed") return fail.transferCodeConsumed();
  if (status === "accountDeleted") return fail.accountDeleted();
  if (status === "active") return fail.serviceUnavailable();
  return fail.transferCodeInvalid();
}

/**
 * Route 10: a new device session for the code's account. The code is spent by one conditional update,
 * so of concurrent consumes exactly one wins. Every attempt takes its seats in the attempt limits before
 * the lookup; only guesses (a code that is malformed, unknown, revoked or of another environment) keep
 * them: a real code, spent, expired or not, is not a guess.
 */
export async function consumeCode(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.consumeTransferCode>,
): Promise<AccountEnvelopeResponse> {
  const { repo } = deps;
  const { tenant, body } = msg;
  const reservation = await attemptLimits(deps, tenant, msg.client.ip).reserve();
  const code = normalizeTransferCode(body.transferCode);
  const doc = code
    ? await repo.codes.get(hashTransferCode(deps.secret, tenant.envId, code)).catch(async (err) => {
        await reservation.release().catch(() => undefined); // the store's fault is the answer, not this
        throw err;
      })
    : null;
  if (!doc || doc.status === "revoked") throw fail.transferCodeInvalid();
  await reservation.release();
  if (doc.status !== "active") throw refusal(doc.status);
  const now = deps.now();
  if (Date.parse(doc.expiresAt) <= now.getTime()) throw fail.transferCodeExpired();

  const consumedAt = now.toISOString();
  const spent = await repo.codes.update({ _id: doc._id, status: "active" }, { status: "consumed", consumedAt });
  // Changed since the read: spent by a concurrent consume, retired by a newer code, or erased.
  if (!spent) throw refusal((await repo.codes.get(doc._id))?.status ?? "revoked");

  try {
    const issued = await callEndpoint(deps.bus, internal.issueSession, {
      envId: tenant.envId,
      accountId: doc.accountId,
      deviceLabel: body.deviceLabel,
      sessionIdleDays: tenant.settings.sessionIdleDays,
      ...(doc.sessionId ? { keepSessionId: doc.sessionId } : {}),
    });
    return { ...issued, syncPolicy: tenant.syncPolicy };
  } catch (err) {
    // No session came of it (accounts out of reach, account suspended): the code is not spent. A
    // deleted account's code stays spent: it can never be used again anyway.
    if (!(isAppError(err) && err.code === "account_deleted")) {
      await repo.codes.update({ _id: doc._id, status: "consumed", consumedAt }, { status: "active", consumedAt: null });
    }
    throw err;
  }
}
