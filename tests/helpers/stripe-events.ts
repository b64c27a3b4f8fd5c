import Stripe from "stripe";

/** Stripe events as Stripe sends them, built and signed in tests with the stripe library: no network. */
export const uid = () => crypto.randomUUID().replaceAll("-", "").slice(0, 16);
export const nowSeconds = () => Math.floor(Date.now() / 1000);
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export type StripeEventJson = { id: string; type: string; created: number; data: { object: Record<string, unknown> } };
export const event = (type: string, object: Record<string, unknown>, created = nowSeconds()): StripeEventJson =>
  ({
    id: `evt_${uid()}`,
    object: "event",
    api_version: "2025-11-17.clover",
    livemode: false,
    pending_webhooks: 1,
    type,
    created,
    data: { object },
  }) as StripeEventJson;

export const checkoutCompleted = (
  customer: string,
  ref: { client_reference_id?: string | null; metadata?: Record<string, string> },
) =>
  event("checkout.session.completed", {
    id: `cs_${uid()}`,
    object: "checkout.session",
    mode: "subscription",
    customer,
    client_reference_id: null,
    metadata: {},
    ...ref,
  });
export const subscriptionEvent = (
  kind: "created" | "updated" | "deleted",
  s: { id: string; customer: string; status: string; price: string },
  created?: number,
) =>
  event(
    `customer.subscription.${kind}`,
    {
      id: s.id,
      object: "subscription",
      customer: s.customer,
      status: s.status,
      items: { object: "list", data: [{ id: `si_${uid()}`, price: { id: s.price, object: "price" } }] },
    },
    created,
  );
/** An invoice in the current API's shape (`parent.subscription_details`), or the older one (`subscription`). */
export const invoiceEvent = (
  type: "invoice.paid" | "invoice.payment_failed",
  customer: string,
  subscription: string | null,
  created?: number,
  oldShape = false,
) =>
  event(
    type,
    oldShape
      ? { id: `in_${uid()}`, object: "invoice", customer, subscription }
      : {
          id: `in_${uid()}`,
          object: "invoice",
          customer,
          parent: subscription ? { type: "subscription_details", subscription_details: { subscription } } : null,
        },
    created,
  );

export const sign = (payload: string, secret: string, timestamp?: number) =>
  Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp });
