import { AppError, fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import { StoreUnavailableError } from "../../shared/store/port.ts";
import { handlerOf } from "./apply-event.ts";
import { applyOnce } from "./apply-once.ts";
import type { Deps } from "./deps.ts";
import { verifyEvent } from "./verify-event.ts";

/**
 * Route 17: a signed Stripe event. Unhandled types answer `{ received: false }`; a handled one is
 * applied once per event id and answers `{ received: true }`, also when it was a repeat or too old to
 * change anything. Without STRIPE_WEBHOOK_SECRET nothing can be verified: 503 `webhook_not_configured`,
 * which says what to set (it shows in Stripe's delivery log).
 */
export async function receiveStripeEvent(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.stripeWebhook>,
): Promise<{ received: boolean }> {
  if (!deps.webhookSecret) throw fail.webhookNotConfigured();
  const event = await verifyEvent(deps, msg.body, deps.webhookSecret, msg.client.ip);
  const apply = handlerOf(event.type);
  if (!apply) return { received: false };
  try {
    const applied = await applyOnce(deps, event, () => apply(deps, event));
    deps.log.info(applied ? "stripe event processed" : "stripe event already processed; repeat delivery", {
      eventId: event.id,
      type: event.type,
    });
    return { received: true };
  } catch (err) {
    // docs/api-rules.md#billing: a store that is down answers 500, which Stripe retries (the bus would say 503).
    if (!(err instanceof StoreUnavailableError)) throw err;
    deps.log.warn("store unavailable; stripe will retry", { eventId: event.id, err: err.cause });
    throw new AppError("internal_error", "The billing store is unavailable; the event will be retried.");
  }
}
