import Stripe from "stripe";
import { z } from "zod";
import { freeForm } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RawDelivery } from "../../shared/contract/route.ts";
import type { Deps } from "./deps.ts";
import { refuseDelivery } from "./forged-posts.ts";

/** docs/api-rules.md#billing: a signature older (or further ahead) than this is refused. */
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

/**
 * The library's own crypto provider, watched: the content it signs is `<timestamp>.<body>` with the
 * timestamp its own parse of the header chose (of several `t=`, the last), so the check of a future
 * timestamp reads the very one the signature was verified for.
 */
function watchedCrypto() {
  const inner = Stripe.createSubtleCryptoProvider();
  const seen = { signedAt: Number.NaN };
  const provider: Stripe.CryptoProvider = {
    computeHMACSignature: (content, key) => inner.computeHMACSignature(content, key),
    computeHMACSignatureAsync: (content, key) => {
      seen.signedAt = Number(content.slice(0, content.indexOf(".")));
      return inner.computeHMACSignatureAsync(content, key);
    },
  };
  return { provider, seen };
}

/**
 * The event in a delivery, once Stripe's signature over the exact body checks out with `secret`.
 * A missing or wrong signature, one outside the tolerance, or a body that is not JSON is 400
 * `invalid_signature`, or 429 past the forged posts a client IP may make (see refuseDelivery).
 */
export async function verifyEvent(
  deps: Deps,
  delivery: RawDelivery,
  secret: string,
  clientIp: string,
): Promise<StripeEvent> {
  const now = deps.now().getTime();
  const crypto = watchedCrypto();
  let event: unknown;
  try {
    // Under Bun the library loads its worker build, where only the async variant can verify.
    event = await Stripe.webhooks.constructEventAsync(
      delivery.payload,
      delivery.signature ?? "",
      secret,
      toleranceSeconds,
      crypto.provider,
      now,
    );
  } catch (err) {
    const reason =
      err instanceof SyntaxError
        ? "body is not JSON"
        : String((err as Error)?.message)
            .split("\n")[0]!
            .trim();
    throw await refuseDelivery(deps, clientIp, reason);
  }
  // The library refuses only old timestamps; one far in the future is as suspect (a skewed or forged clock).
  if (!(crypto.seen.signedAt <= now / 1000 + toleranceSeconds))
    throw await refuseDelivery(deps, clientIp, "timestamp too far in the future");
  const parsed = StripeEvent.safeParse(event);
  if (!parsed.success)
    throw fail.invalidRequest(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  return parsed.data;
}
