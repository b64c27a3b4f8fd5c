import { applyInvoice } from "./apply-invoice.ts";
import { applySubscription } from "./apply-subscription.ts";
import type { Deps } from "./deps.ts";
import { linkCustomer } from "./link-customer.ts";
import type { StripeEvent } from "./verify-event.ts";

type Apply = (deps: Deps, event: StripeEvent) => Promise<void>;

/** The Stripe event types handled (docs/api-rules.md#billing). A Map: an event type is never looked up on a prototype. */
const handlers: ReadonlyMap<string, Apply> = new Map([
  ["checkout.session.completed", linkCustomer],
  ["customer.subscription.created", applySubscription],
  ["customer.subscription.updated", applySubscription],
  ["customer.subscription.deleted", applySubscription],
  ["invoice.paid", applyInvoice],
  ["invoice.payment_failed", applyInvoice],
]);

/** How to apply an event of this type; undefined for a type this service does not handle. */
export const handlerOf = (type: string): Apply | undefined => handlers.get(type);
