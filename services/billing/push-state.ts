import type { z } from "zod";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { atVersion, inRounds, lostRound } from "../../shared/store/versioned.ts";
import { pickState } from "./customer-billing.ts";
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
    deps.log.warn("stripe event names an unknown workspace; not applied", {
      eventId,
      workspaceId: billing.workspaceId,
    });
    return false;
  }
}

const billingOf = (workspaceId: string, s: BillingStateDoc): Billing => ({
  workspaceId,
  plan: s.plan,
  ...(s.status ? { billingStatus: s.status, pastDueSince: s.pastDueSince ?? null } : {}),
});

/** Which versions of which states a derivation read: equal stamps, equal derivations. */
const stampOf = (states: readonly BillingStateDoc[]) =>
  states
    .map((s) => atVersion(s._id, s.version))
    .sort()
    .join(",");

/**
 * Tells config what the customer's subscriptions say for the workspace the customer is linked to: the
 * state `pickState` chooses among all of them, so an event of one subscription never hides a better
 * one. Events of the customer may be applied concurrently and their calls to config cross: after each
 * call the states are read again and the choice sent again until what config got is the newest, so
 * the last word is never an older one. A customer no checkout (nor subscription metadata) has linked
 * yet is logged and left: its link applies the states.
 */
export async function pushState(deps: Deps, customerId: string, eventId: string): Promise<void> {
  const link = await deps.repo.customers.get(customerId);
  if (!link) {
    deps.log.warn("stripe customer not linked to a workspace yet; state kept for its checkout", {
      eventId,
      customerId,
    });
    return;
  }
  let states = await deps.repo.states.find({ customerId });
  // A round is lost when the states changed while config was told: each loss means another event was
  // applied meanwhile, and 10 of them bound the retelling as they always did.
  await inRounds({ rounds: 10, exhausted: () => undefined }, async () => {
    const chosen = pickState(states);
    if (!chosen) return undefined;
    if (!(await setWorkspaceBilling(deps, billingOf(link.workspaceId, chosen), eventId))) return undefined;
    const latest = await deps.repo.states.find({ customerId });
    if (stampOf(latest) === stampOf(states)) return undefined;
    states = latest;
    return lostRound;
  });
}
