import Stripe from "stripe";
import { z } from "zod";
import { freeForm } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RawDelivery } from "../../shared/contract/route.ts";
import type { Deps } from "./deps.ts";

/** decisions.md, Plans and billing: a signature older (or further ahead) than this is refused. */
export const toleranceSeconds = 300;

/** The parts of a Stripe event this service reads; `data.object` is read per event type. */
export const StripeEvent = z.object({
  id: z.string().min(1),
  type: z.string(),
  created: z.int(),
  // Any JSON object: z.record would refuse (or crash on) keys such as `constructor`.
  data: z.object({ object: freeForm() }),
});
export type StripeEvent = z.infer<typeof StripeEvent>;

/** The `t=` of a Stripe-Signature header, read the way the stripe library reads it. */
const signedAt = (header: string) => Number(header.split(",").find((part) => part.startsWith("t="))?.slice(2));

/**
 * The event in a delivery, once Stripe's signature over the exact body checks out with `secret`.
 * A missing or wrong signature, one outside the tolerance, or a body that is not JSON is 400
 * `invalid_signature`. Only the reason is logged: never the header, the secret or the body.
 */
export async function verifyEvent(deps: Deps, delivery: RawDelivery, secret: string): Promise<StripeEvent> {
  const now = deps.now().getTime();
  let event: unknown;
  try {
    // Under Bun the library loads its worker build, where only the async variant can verify.
    event = await Stripe.webhooks.constructEventAsync(delivery.payload, delivery.signature ?? "", secret, toleranceSeconds, undefined, now);
  } catch (err) {
    const reason = err instanceof SyntaxError ? "body is not JSON" : String((err as Error)?.message).split("\n")[0]!.trim();
    deps.log.warn("stripe webhook refused", { reason });
    throw fail.invalidSignature();
  }
  // The library refuses only old timestamps; one far in the future is as suspect (a skewed or forged clock).
  if (signedAt(delivery.signature!) > now / 1000 + toleranceSeconds) {
    deps.log.warn("stripe webhook refused", { reason: "timestamp too far in the future" });
    throw fail.invalidSignature();
  }
  const parsed = StripeEvent.safeParse(event);
  if (!parsed.success) throw fail.invalidRequest(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  return parsed.data;
}
