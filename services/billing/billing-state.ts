import type { BillingStatus } from "../../shared/contract/admin.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { updateVersioned } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { BillingStateDoc } from "./repo.ts";

/** What one event says about a subscription (or a customer's loose invoices): `at` is its `created`. */
export interface Change {
  key: string;
  customerId: string;
  at: number;
  plan?: PlanName;
  status?: BillingStatus;
  /** `customer.subscription.deleted`: once its status applies, the subscription is ended for good. */
  deleted?: boolean;
}

/** Statuses that keep the workspace overdue; any other settles it and clears `pastDueSince`. */
const overdue: ReadonlySet<BillingStatus> = new Set(["past_due", "unpaid"]);

/**
 * The state after `change`, or null when it is older than every part it would set. Each part follows
 * the newest event that set it (events of one second both apply: Stripe's `created` cannot order
 * them), so an invoice event never undoes a newer subscription status, nor an old update a new plan.
 * A deleted subscription takes no change at all, whatever its time: Stripe's events of one second
 * cannot be ordered, and a stale `updated` must not bring it back.
 */
export function merge(state: BillingStateDoc | null, change: Change): Omit<BillingStateDoc, "version"> | null {
  if (state?.deleted) return null;
  const next: Omit<BillingStateDoc, "version"> = state
    ? { ...state }
    : { _id: change.key, customerId: change.customerId };
  let changed = false;
  if (change.plan && (state?.planAt === undefined || change.at >= state.planAt)) {
    Object.assign(next, { plan: change.plan, planAt: change.at });
    changed = true;
  }
  if (change.status && (state?.statusAt === undefined || change.at >= state.statusAt)) {
    // Overdue since the first event that made it so, not since the latest reminder.
    const pastDueSince = overdue.has(change.status)
      ? (state?.pastDueSince ?? new Date(change.at * 1000).toISOString())
      : null;
    Object.assign(
      next,
      { status: change.status, statusAt: change.at, pastDueSince },
      change.deleted ? { deleted: true } : {},
    );
    changed = true;
  }
  return changed ? next : null;
}

/**
 * Applies `change` to the stored state with a conditional write on its version, retried when another
 * event of the same subscription wrote first. Null when the change was too old to apply.
 */
export async function recordChange(deps: Deps, change: Change): Promise<BillingStateDoc | null> {
  // Each lost round means another event of the subscription landed; 50 of them at once is endless
  // contention, and 503 lets Stripe retry.
  const outcome = await updateVersioned<BillingStateDoc, null>(
    deps.repo.states,
    change.key,
    (current) => {
      const next = merge(current, change);
      return next ? { next } : { stop: null };
    },
    { rounds: 50 },
  );
  return "written" in outcome ? outcome.written : outcome.stopped;
}
