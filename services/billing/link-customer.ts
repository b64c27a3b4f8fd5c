import { WorkspacePath } from "../../shared/contract/admin.ts";
import { updateInRounds } from "../../shared/store/versioned.ts";
import type { Deps } from "./deps.ts";
import { pushState, setWorkspaceBilling } from "./push-state.ts";
import type { CustomerDoc } from "./repo.ts";
import { CheckoutSession } from "./stripe-objects.ts";
import type { StripeEvent } from "./verify-event.ts";

const isWorkspaceId = (v: unknown): v is string => WorkspacePath.shape.workspaceId.safeParse(v).success;

/** Stores customer → workspace unless a newer checkout already linked the customer elsewhere. */
async function saveLink(deps: Deps, customerId: string, workspaceId: string, at: number): Promise<void> {
  const { customers } = deps.repo;
  await updateInRounds<CustomerDoc, void>(
    customers,
    () => customers.get(customerId),
    (current) => {
      if (current && current.linkedAt > at) return { stop: undefined };
      if (current)
        return {
          where: { linkedAt: current.linkedAt, workspaceId: current.workspaceId },
          changes: { workspaceId, linkedAt: at },
        };
      return { insert: { _id: customerId, workspaceId, linkedAt: at } };
    },
    // Each lost round means another checkout of the customer linked it; the link is left as the last
    // of 50 such left it, as it always was: the event is acknowledged, not retried.
    { rounds: 50, exhausted: () => ({ stopped: undefined }) },
  );
}

/**
 * Links `customerId` to `workspaceId` as of `at` (a newer link wins) and tells config the workspace's
 * customer. False when config does not know the workspace: nothing is linked then.
 */
export async function linkWorkspace(
  deps: Deps,
  customerId: string,
  workspaceId: string,
  at: number,
  eventId: string,
): Promise<boolean> {
  if (!(await setWorkspaceBilling(deps, { workspaceId, stripeCustomerId: customerId }, eventId))) return false;
  await saveLink(deps, customerId, workspaceId, at);
  return true;
}

/** The workspace a Stripe object's metadata names, if any. */
export const workspaceInMetadata = (metadata: Record<string, unknown> | null | undefined): string | undefined =>
  [metadata?.workspaceId].find(isWorkspaceId);

/**
 * `checkout.session.completed`: links the paying customer to the workspace the checkout names, through
 * `client_reference_id` or `metadata.workspaceId` (the first that is a workspace id). Subscription and
 * invoice events may have come first, since Stripe does not order deliveries: their stored state is
 * applied now.
 */
export async function linkCustomer(deps: Deps, event: StripeEvent): Promise<void> {
  const session = CheckoutSession.safeParse(event.data.object);
  const workspaceId = [session.data?.client_reference_id, session.data?.metadata?.workspaceId].find(isWorkspaceId);
  const customerId = session.data?.customer;
  if (!workspaceId || !customerId) {
    deps.log.warn("checkout session names no workspace or no customer; nothing linked", { eventId: event.id });
    return;
  }
  if (await linkWorkspace(deps, customerId, workspaceId, event.created, event.id))
    await pushState(deps, customerId, event.id);
}
