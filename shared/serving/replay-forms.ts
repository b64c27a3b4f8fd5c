import type { z } from "zod";
import type { Bus } from "../bus/port.ts";
import type { AccountEnvelopeResponse } from "../contract/accounts.ts";
import type { AuthSessionResponse } from "../contract/identity.ts";
import { internal } from "../contract/internal.ts";
import type { Tenant } from "../contract/tenant.ts";
import { sha256Hex } from "../util/crypto.ts";
import { callEndpoint } from "./call.ts";
import type { ReplayForm } from "./idempotency.ts";

/**
 * Replay forms of the answers that hand out a session token (routes 3, 4, 10; docs/api-rules.md#idempotent-retries): the
 * record keeps the ids and the token (sealed), a replay reads the account again, and is refused once
 * the account is deleted or that session revoked or expired, and to any client but the first (`bound`).
 */
export type ReadView = (
  input: z.infer<typeof internal.replayView.request>,
) => Promise<z.infer<typeof internal.replayView.reply>>;
export const viewOverBus =
  (bus: Bus): ReadView =>
  (input) =>
    callEndpoint(bus, internal.replayView, input);

type Sessionless = { tenant: Tenant };
/** The session a replay would hand out, judged by the project's sessionIdleDays as any request's is. */
const sessionOf = (msg: Sessionless, token: string) => ({
  envId: msg.tenant.envId,
  tokenHash: sha256Hex(token),
  sessionIdleDays: msg.tenant.settings.sessionIdleDays,
});
type KeptEnvelope = { accountId: string; token: string; slotId?: string };

/** Routes 3 and 10: an account envelope. */
export const envelopeForm = (view: ReadView): ReplayForm<Sessionless> => ({
  bound: true,
  compact(answer) {
    const a = answer as AccountEnvelopeResponse;
    const kept: KeptEnvelope = {
      accountId: a.accountId,
      token: a.accountSessionToken,
      ...(a.slot ? { slotId: a.slot.slotId } : {}),
    };
    return { kept, accountId: a.accountId };
  },
  async expand(kept, msg) {
    const { accountId, token, slotId } = kept as KeptEnvelope;
    const now = await view({ ...sessionOf(msg, token), accountId, ...(slotId !== undefined ? { slotId } : {}) });
    return {
      accountId,
      accountSessionToken: token,
      account: now.account,
      ...(now.slot ? { slot: now.slot } : {}),
      syncPolicy: msg.tenant.syncPolicy,
    };
  },
});

/** Route 4: a small answer, kept but for the sync policy, given again only while its session lives. */
export const providerSessionForm = (view: ReadView): ReplayForm<Sessionless> => ({
  bound: true,
  compact(answer) {
    const { syncPolicy: _, ...kept } = answer as AuthSessionResponse;
    return { kept, accountId: kept.accountId };
  },
  async expand(kept, msg) {
    const k = kept as Omit<AuthSessionResponse, "syncPolicy">;
    await view({ ...sessionOf(msg, k.accountSessionToken), accountId: k.accountId });
    return { ...k, syncPolicy: msg.tenant.syncPolicy };
  },
});
