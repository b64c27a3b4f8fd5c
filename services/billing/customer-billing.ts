import type { BillingStatus } from "../../shared/contract/admin.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import type { BillingStateDoc } from "./repo.ts";

/**
 * How much a status counts toward the workspace's billing, lowest first: a subscription that serves
 * (active, trialing) before one still being paid for (past due before unpaid), before one not started
 * or paused, before one that ended.
 */
const statusRank: Record<BillingStatus, number> = {
  active: 0,
  trialing: 0,
  past_due: 1,
  unpaid: 2,
  incomplete: 3,
  paused: 4,
  canceled: 5,
  incomplete_expired: 5,
};
const endedRank = 5;
const unknownRank = 4;

/** Among subscriptions of one rank, the better plan wins (pro > growth > starter). */
const planRank: Record<PlanName, number> = { free: 0, starter: 1, growth: 2, pro: 3, self_hosted: 4 };

const rankOf = (s: BillingStateDoc) => (s.deleted ? endedRank : s.status ? statusRank[s.status] : unknownRank);
const lastAt = (s: BillingStateDoc) => Math.max(s.statusAt ?? 0, s.planAt ?? 0);

/** The state of a customer's invoices that belong to no subscription (apply-invoice.ts). */
export const looseKeyOf = (customerId: string) => `customer:${customerId}`;

/**
 * The one state a workspace follows among its customer's (docs/api-rules.md#billing): the best live
 * subscription (serving first, then the better plan, then the newest), else the most relevant one
 * that is not serving, else the newest ended one (its plan is `free`). The loose invoices' state
 * counts only for a customer with no subscription. Undefined when Stripe said nothing yet.
 */
export function pickState(states: readonly BillingStateDoc[]): BillingStateDoc | undefined {
  const subscriptions = states.filter((s) => s._id !== looseKeyOf(s.customerId));
  const candidates = subscriptions.length > 0 ? subscriptions : states;
  return [...candidates].sort(
    (a, b) => rankOf(a) - rankOf(b) || planRank[b.plan ?? "free"] - planRank[a.plan ?? "free"] || lastAt(b) - lastAt(a),
  )[0];
}
