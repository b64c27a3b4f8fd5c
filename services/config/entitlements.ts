import type { Environment } from "../../shared/contract/common.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import type { Entitlements } from "../../shared/contract/tenant.ts";
import type { WorkspaceDoc } from "./repo.ts";

/** docs/api-rules.md#billing: past due for more than 7 days blocks the runtime API. */
const pastDueGraceMs = 7 * 24 * 3600 * 1000;

/**
 * What a workspace may do in one environment now: its plan's request limits, and whether payment is
 * overdue. Decided here, where workspaces live; gateways cache it with the tenant and are told to
 * drop it when billing changes, so a payment lifts a 402 on the next request.
 */
export function entitlementsOf(
  plans: PlanCatalog,
  workspace: WorkspaceDoc,
  environment: Environment,
  now: Date,
): Entitlements {
  const plan = plans[workspace.plan];
  const overdue =
    workspace.billingStatus === "past_due" &&
    !!workspace.pastDueSince &&
    now.getTime() - Date.parse(workspace.pastDueSince) > pastDueGraceMs;
  return {
    paymentRequired: workspace.billingStatus === "unpaid" || overdue,
    monthlyRequests: plan.monthlyRequests,
    perMinute: plan.perMinute[environment],
  };
}
