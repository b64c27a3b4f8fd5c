import { type Change, recordChange } from "./billing-state.ts";
import type { Deps } from "./deps.ts";
import { pushState } from "./push-state.ts";
import { Invoice, subscriptionOf } from "./stripe-objects.ts";
import type { StripeEvent } from "./verify-event.ts";

/**
 * `invoice.paid` settles the workspace (active, no longer past due); `invoice.payment_failed` makes it
 * past due, from this event's time unless it already was. The state is the invoice's subscription's,
 * so an invoice event older than a newer subscription status never rolls it back.
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
    key: subscriptionId ?? `customer:${customerId}`,
    customerId,
    at: event.created,
    status: event.type === "invoice.paid" ? "active" : "past_due",
  };
  const state = await recordChange(deps, change);
  if (!state) {
    deps.log.info("stripe event older than the subscription's state; not applied", { eventId: event.id, subscriptionId });
    return;
  }
  await pushState(deps, state, event.id);
}
