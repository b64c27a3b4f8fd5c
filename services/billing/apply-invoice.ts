import { type Change, recordChange } from "./billing-state.ts";
import { looseKeyOf } from "./customer-billing.ts";
import type { Deps } from "./deps.ts";
import { pushState } from "./push-state.ts";
import { Invoice, subscriptionOf } from "./stripe-objects.ts";
import type { StripeEvent } from "./verify-event.ts";

/**
 * `invoice.paid` settles the workspace (active, no longer past due); `invoice.payment_failed` makes it
 * past due, from this event's time unless it already was. The state is the invoice's subscription's,
 * so an invoice event older than a newer subscription status never rolls it back, and one of a deleted
 * subscription changes nothing.
 */
export async function applyInvoice(deps: Deps, event: StripeEvent): Promise<void> {
  const invoice = Invoice.safeParse(event.data.object).data;
  const customerId = invoice?.customer;
  if (!invoice || !customerId) {
    deps.log.warn("invoice event without a customer; not applied", { eventId: event.id });
    return;
  }
  const subscriptionId = subscriptionOf(invoice);
  const change: Change = {
    key: subscriptionId ?? looseKeyOf(customerId),
    customerId,
    at: event.created,
    status: event.type === "invoice.paid" ? "active" : "past_due",
  };
  const state = await recordChange(deps, change);
  if (!state) {
    const why = "stripe event older than the subscription's state, or its subscription was deleted; not applied";
    deps.log.info(why, { eventId: event.id, subscriptionId });
    return;
  }
  await pushState(deps, customerId, event.id);
}
