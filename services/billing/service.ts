import { serveEndpoint, serveRoute } from "../../shared/serving/serve.ts";
import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import { reportUsage } from "./usage.ts";
import { receiveStripeEvent } from "./webhook.ts";

export const group = "billing";

/** Billing: Stripe's webhook (route 17) and the request counts every gateway copy shares. */
export function startBilling(deps: Deps): void {
  const { bus } = deps;
  serveRoute(bus, group, routes.stripeWebhook, (m) => receiveStripeEvent(deps, m));
  serveEndpoint(bus, group, internal.reportUsage, (input) => reportUsage(deps, input));
}
