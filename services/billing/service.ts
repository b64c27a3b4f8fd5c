import { internal } from "../../shared/contract/internal.ts";
import { overviewEndpoints } from "../../shared/contract/overview.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { serveEndpoint, serveRoute } from "../../shared/serving/serve.ts";
import { claimUsage } from "./claim-usage.ts";
import type { Deps } from "./deps.ts";
import { parsePricePlans } from "./price-plans.ts";
import { openRepo } from "./repo.ts";
import { readTraffic, reportTraffic, scheduleTrafficPruning } from "./traffic.ts";
import { reportUsage, scheduleUsagePruning } from "./usage.ts";
import { receiveStripeEvent } from "./webhook.ts";

const group = "billing";

/**
 * Billing: Stripe's webhook (route 17) and the request counts every gateway copy shares. Copies share one
 * store, so each Stripe event is applied once and usage totals are one count. STRIPE_PRICE_PLANS is read
 * at start, once: a bad value stops start-up. A missing STRIPE_WEBHOOK_SECRET does not: the webhook
 * answers 503 until set.
 */
export const service = defineService({
  name: group,
  async start({ bus, store, env, log, now }) {
    const pricePlans = parsePricePlans(env.STRIPE_PRICE_PLANS);
    const deps: Deps = {
      repo: await openRepo(store),
      bus,
      log,
      now,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      pricePlans,
    };
    // Only operators who charge studios through Stripe need it; say once how to turn it on.
    if (!deps.webhookSecret) {
      deps.log.info(
        "Stripe billing is off: POST /webhooks/stripe answers 503 webhook_not_configured. To charge studios, add the endpoint in the Stripe " +
          "dashboard and set STRIPE_WEBHOOK_SECRET to its signing secret (whsec_...) and STRIPE_PRICE_PLANS to price_id=plan pairs.",
      );
    }
    serve(deps);
    scheduleUsagePruning(deps);
    scheduleTrafficPruning(deps);
    return deps;
  },
});

function serve(deps: Deps): void {
  const { bus } = deps;
  serveRoute(bus, group, routes.stripeWebhook, (m) => receiveStripeEvent(deps, m));
  serveEndpoint(bus, group, internal.reportUsage, (input) => reportUsage(deps, input));
  serveEndpoint(bus, group, internal.claimUsage, (input) => claimUsage(deps, input));
  serveEndpoint(bus, group, overviewEndpoints.reportTraffic, (input) => reportTraffic(deps, input));
  serveEndpoint(bus, group, overviewEndpoints.readTraffic, (input) => readTraffic(deps, input));
}
