import { BillingStatus } from "../../shared/contract/admin.ts";
import { type Change, recordChange } from "./billing-state.ts";
import type { Deps } from "./deps.ts";
import { linkWorkspace, workspaceInMetadata } from "./link-customer.ts";
import { planOfPrices } from "./price-plans.ts";
import { pushState } from "./push-state.ts";
import { pricesOf, Subscription } from "./stripe-objects.ts";
import type { StripeEvent } from "./verify-event.ts";

/** A subscription that ended leaves the workspace on `free`, not blocked (docs/api-rules.md#billing). */
const ended: ReadonlySet<BillingStatus> = new Set(["canceled", "incomplete_expired"]);

/**
 * `customer.subscription.created|updated|deleted`: the plan the subscription's price buys (through
 * STRIPE_PRICE_PLANS) and its status. A price no plan is configured for leaves the plan as it was.
 * A subscription whose `metadata.workspaceId` names a workspace links its customer there first; the
 * workspace then follows the best of the customer's subscriptions (customer-billing.ts).
 */
export async function applySubscription(deps: Deps, event: StripeEvent): Promise<void> {
  const parsed = Subscription.safeParse(event.data.object);
  if (!parsed.success) {
    deps.log.warn("subscription event without a subscription; not applied", { eventId: event.id });
    return;
  }
  const sub = parsed.data;
  const deleted = event.type === "customer.subscription.deleted";
  const status = deleted ? "canceled" : BillingStatus.safeParse(sub.status).data;
  if (!status)
    deps.log.warn("unknown subscription status; status left as it was", { eventId: event.id, status: sub.status });
  const plan = status && ended.has(status) ? ("free" as const) : planOfPrices(deps.pricePlans, pricesOf(sub));
  if (!plan) {
    deps.log.warn("no plan configured for the subscription's prices (STRIPE_PRICE_PLANS); plan left as it was", {
      eventId: event.id,
      prices: pricesOf(sub),
    });
  }

  // Made through Stripe's API, the subscription names its workspace itself: it links like a checkout.
  const workspaceId = workspaceInMetadata(sub.metadata);
  if (workspaceId) await linkWorkspace(deps, sub.customer, workspaceId, event.created, event.id);

  const change: Change = {
    key: sub.id,
    customerId: sub.customer,
    at: event.created,
    plan,
    status,
    ...(deleted ? { deleted } : {}),
  };
  const state = await recordChange(deps, change);
  if (!state && !workspaceId) {
    const why = "stripe event older than the subscription's state, or its subscription was deleted; not applied";
    deps.log.info(why, { eventId: event.id, subscriptionId: sub.id });
    return;
  }
  await pushState(deps, sub.customer, event.id);
}
