import type { ServiceDeps } from "../../shared/process/service-module.ts";
import type { PricePlans } from "./price-plans.ts";
import type { Repo } from "./repo.ts";

/** What every billing verb may use. */
export interface Deps extends ServiceDeps {
  repo: Repo;
  /** Stripe's endpoint secret (`whsec_...`); unset, the webhook answers 503. */
  webhookSecret?: string;
  /** Which plan each Stripe price buys (STRIPE_PRICE_PLANS). */
  pricePlans: PricePlans;
}
