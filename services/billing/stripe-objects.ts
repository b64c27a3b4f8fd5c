import { z } from "zod";
import { freeForm } from "../../shared/contract/common.ts";

/**
 * The few fields of Stripe's objects this service reads, tolerant of what it does not: Stripe adds
 * fields in every API version. A field that may be expanded is read as its id either way.
 */
const Expandable = z.union([z.string(), z.object({ id: z.string() }).transform((o) => o.id)]);

export const CheckoutSession = z.object({
  customer: Expandable.nullish(),
  client_reference_id: z.string().nullish(),
  metadata: freeForm().nullish(),
});

export const Subscription = z.object({
  id: z.string(),
  customer: Expandable,
  status: z.string(),
  /** A subscription made through Stripe's API (or `subscription_data.metadata`) may name its workspace here. */
  metadata: freeForm().nullish(),
  items: z.object({ data: z.array(z.object({ price: z.object({ id: z.string() }).nullish() })) }).nullish(),
});

/** API versions from 2025-03-31 name an invoice's subscription under `parent`; older ones at the top. */
export const Invoice = z.object({
  customer: Expandable.nullish(),
  subscription: Expandable.nullish(),
  parent: z.object({ subscription_details: z.object({ subscription: Expandable.nullish() }).nullish() }).nullish(),
});

/** The price ids a subscription's items buy, in item order. */
export const pricesOf = (s: z.infer<typeof Subscription>): string[] =>
  (s.items?.data ?? []).flatMap((item) => (item.price ? [item.price.id] : []));

/** The subscription an invoice bills, in either API version's place. */
export const subscriptionOf = (i: z.infer<typeof Invoice>): string | undefined =>
  i.parent?.subscription_details?.subscription ?? i.subscription ?? undefined;
