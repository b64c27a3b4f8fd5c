import { internal } from "../../shared/contract/internal.ts";
import { overviewEndpoints } from "../../shared/contract/overview.ts";
import { contractRoutes as routes } from "../../shared/contract/routes.ts";
import { endpointsFor } from "../../shared/process/service-endpoints.ts";
import { defineService } from "../../shared/process/service-module.ts";
import { claimUsage } from "./claim-usage.ts";
import type { Deps } from "./deps.ts";
import { parsePricePlans } from "./price-plans.ts";
import { openRepo } from "./repo.ts";
import { readTraffic, reportTraffic, scheduleTrafficPruning } from "./traffic.ts";
import { reportUsage, scheduleUsagePruning } from "./usage.ts";
import { receiveStripeEvent } from "./webhook.ts";

const { route, endpoint } = endpointsFor<Deps>();

/**
 * Billing: Stripe's webhook (route 17) and the request counts every gateway copy shares. Copies share one
 * store, so each Stripe event is applied once and usage totals are one count. STRIPE_PRICE_PLANS is read
 * at start, once: a bad value stops start-up. A missing STRIPE_WEBHOOK_SECRET does not: the webhook
 * answers 503 until set.
 */
export const service = defineService<"billing", Deps>({
  name: "billing",
  endpoints: [
    route(routes.stripeWebhook, receiveStripeEvent),
    endpoint(internal.reportUsage, reportUsage),
    endpoint(internal.claimUsage, claimUsage),
    endpoint(overviewEndpoints.reportTraffic, reportTraffic),
    endpoint(overviewEndpoints.readTraffic, readTraffic),
  ],
  async open({ store, env, log }) {
    const pricePlans = parsePricePlans(env.STRIPE_PRICE_PLANS);
    // Only operators who charge studios through Stripe need it; say once how to turn it on.
    if (!env.STRIPE_WEBHOOK_SECRET) {
      log.info(
        "Stripe billing is off: POST /webhooks/stripe answers 503 webhook_not_configured. To charge studios, add the endpoint in the Stripe " +
          "dashboard and set STRIPE_WEBHOOK_SECRET to its signing secret (whsec_...) and STRIPE_PRICE_PLANS to price_id=plan pairs.",
      );
    }
    return { repo: await openRepo(store), webhookSecret: env.STRIPE_WEBHOOK_SECRET, pricePlans };
  },
  started(deps) {
    scheduleUsagePruning(deps);
    scheduleTrafficPruning(deps);
  },
});
