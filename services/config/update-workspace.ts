import type { BillingStatus, Workspace } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import { events } from "../../shared/contract/internal.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { dropEverywhere } from "../../shared/revocation/cache-drops.ts";
import { updateInRounds, writtenOf } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import type { WorkspaceDoc } from "./repo.ts";
import { maxRounds } from "./rounds.ts";

export interface WorkspaceChanges {
  plan?: PlanName;
  billingStatus?: BillingStatus;
  /** Since when it is past due; null clears it; left out, it follows the status. */
  pastDueSince?: string | null;
  stripeCustomerId?: string;
}

export const workspaceView = (w: WorkspaceDoc): Workspace => ({
  workspaceId: w._id,
  name: w.name,
  plan: w.plan,
  billingStatus: w.billingStatus,
  ...(w.pastDueSince ? { pastDueSince: w.pastDueSince } : {}),
  ...(w.stripeCustomerId ? { stripeCustomerId: w.stripeCustomerId } : {}),
  createdAt: w.createdAt,
});

/**
 * A workspace's plan and billing state, set by operators (admin PATCH) or by billing (Stripe events).
 * Every gateway drops its cached tenants before the answer, so the next request sees the change: a
 * payment that arrives lifts a 402 at once.
 */
export async function updateWorkspace(deps: Deps, workspaceId: string, changes: WorkspaceChanges): Promise<Workspace> {
  const updated = await updateInRounds(
    deps.repo.workspaces,
    () => deps.repo.workspaces.get(workspaceId),
    (current) => {
      if (!current) throw fail.notFound("Workspace");
      let { pastDueSince } = changes;
      if (pastDueSince === undefined && changes.billingStatus && changes.billingStatus !== current.billingStatus) {
        pastDueSince = changes.billingStatus === "past_due" ? deps.now().toISOString() : null;
      }
      // Conditional on the billing state read: an operator and a Stripe event at once cannot leave a
      // status with the other's past-due date.
      return {
        where: { billingStatus: current.billingStatus, pastDueSince: current.pastDueSince ?? null },
        changes: {
          plan: changes.plan,
          billingStatus: changes.billingStatus,
          pastDueSince,
          stripeCustomerId: changes.stripeCustomerId,
        },
      };
    },
    { rounds: maxRounds },
  );
  await dropEverywhere(deps.bus, events.tenantsChanged, {});
  return workspaceView(writtenOf(updated));
}
