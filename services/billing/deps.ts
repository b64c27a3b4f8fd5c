import type { Bus } from "../../shared/bus/port.ts";
import type { Logger } from "../../shared/observe/log.ts";
import type { PricePlans } from "./price-plans.ts";
import type { Repo } from "./repo.ts";

/** What every billing verb may use. `now` is injectable so tests can move time. */
export interface Deps {
  repo: Repo;
  bus: Bus;
  log: Logger;
  now: () => Date;
  /** Stripe's endpoint secret (`whsec_...`); unset, the webhook answers 503. */
  webhookSecret?: string;
  /** Which plan each Stripe price buys (STRIPE_PRICE_PLANS). */
  pricePlans: PricePlans;
}
