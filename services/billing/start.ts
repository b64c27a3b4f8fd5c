import type { Bus } from "../../shared/bus/port.ts";
import type { Env } from "../../shared/process/env.ts";
import type { Logger } from "../../shared/process/log.ts";
import type { Store } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { parsePricePlans } from "./price-plans.ts";
import { openRepo } from "./repo.ts";
import { startBilling } from "./service.ts";
import { scheduleUsagePruning } from "./usage.ts";

/**
 * Opens the service's collections and serves it on `bus`. STRIPE_PRICE_PLANS is read here, once: a bad
 * value stops start-up. A missing STRIPE_WEBHOOK_SECRET does not: the webhook answers 503 until set.
 */
export async function runBilling(bus: Bus, store: Store, env: Env, log: Logger, now: () => Date = () => new Date()): Promise<Deps> {
  const pricePlans = parsePricePlans(env.STRIPE_PRICE_PLANS);
  const deps: Deps = {
    repo: await openRepo(store),
    bus,
    log: log.child({ service: "billing" }),
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
  startBilling(deps);
  scheduleUsagePruning(deps);
  return deps;
}
