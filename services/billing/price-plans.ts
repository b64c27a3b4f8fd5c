import { PlanName } from "../../shared/contract/plans.ts";

/** Which plan each Stripe price id buys. */
export type PricePlans = ReadonlyMap<string, PlanName>;

/**
 * Reads STRIPE_PRICE_PLANS (`price_id=plan` pairs, comma-separated). Read once at start: a bad value
 * stops start-up with an error that names the variable.
 */
export function parsePricePlans(value: string): PricePlans {
  const plans = new Map<string, PlanName>();
  for (const pair of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [price, plan, ...rest] = pair.split("=").map((p) => p.trim());
    if (!price || !plan || rest.length > 0 || /\s/.test(price))
      throw new Error(`STRIPE_PRICE_PLANS: "${pair}" is not price_id=plan`);
    const name = PlanName.safeParse(plan);
    if (!name.success)
      throw new Error(`STRIPE_PRICE_PLANS: "${plan}" is not a plan (one of ${PlanName.options.join(", ")})`);
    if (plans.has(price) && plans.get(price) !== name.data)
      throw new Error(`STRIPE_PRICE_PLANS: price ${price} is given two plans`);
    plans.set(price, name.data);
  }
  return plans;
}

/** The plan of the first price that buys one; undefined when none does. */
export function planOfPrices(plans: PricePlans, priceIds: readonly string[]): PlanName | undefined {
  for (const id of priceIds) {
    const plan = plans.get(id);
    if (plan) return plan;
  }
  return undefined;
}
