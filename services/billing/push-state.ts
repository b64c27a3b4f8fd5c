import { callEndpoint } from "../../shared/bus/serve.ts";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import type { z } from "zod";
import type { Deps } from "./deps.ts";
import type { BillingStateDoc } from "./repo.ts";

type Billing = z.infer<typeof internal.setWorkspaceBilling.request>;

/**
 * Asks config to set a workspace's billing. False when config does not know the workspace: that is
 * logged, never an error, since Stripe retrying could not make the workspace exist.
 */
export async function setWorkspaceBilling(deps: Deps, billing: Billing, eventId: string): Promise<boolean> {
  try {
    await callEndpoint(deps.bus, internal.setWorkspaceBilling, billing);
    return true;
  } catch (err) {
    if (!isAppError(err) || err.code !== "not_found") throw err;
    deps.log.warn("stripe event names an unknown workspace; not applied", { eventId, workspaceId: billing.workspaceId });
    return false;
  }
}

const billingOf = (workspaceId: string, s: BillingStateDoc): Billing => ({
  workspaceId,
  plan: s.plan,
  ...(s.status ? { billingStatus: s.status, pastDueSince: s.pastDueSince ?? null } : {}),
});

/**
 * Tells config what `state` says for the workspace its customer is linked to. Events of one
 * subscription may be applied concurrently and their calls to config cross: after each call the state
 * is read again and sent again until what config got is the newest, so the last word is never an
 * older one. A customer no checkout has linked yet is logged and left: its checkout applies the state.
 */
export async function pushState(deps: Deps, state: BillingStateDoc, eventId: string): Promise<void> {
  const link = await deps.repo.customers.get(state.customerId);
  if (!link) {
    deps.log.warn("stripe customer not linked to a workspace yet; state kept for its checkout", { eventId, customerId: state.customerId });
    return;
  }
  let sent = state;
  for (let round = 0; round < 10; round++) {
    if (!(await setWorkspaceBilling(deps, billingOf(link.workspaceId, sent), eventId))) return;
    const latest = await deps.repo.states.get(sent._id);
    if (!latest || latest.version === sent.version) return;
    sent = latest;
  }
}
