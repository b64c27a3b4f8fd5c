import type { BillingStatus } from "../../shared/contract/admin.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { type HitDoc, hitIndexes } from "../../shared/limits/window-counter.ts";
import { type CollectionsOf, collection, openCollections } from "../../shared/store/collections.ts";
import type { Store } from "../../shared/store/port.ts";

/**
 * A Stripe event this service took on, keyed by the event id: `applying` while one delivery applies
 * it (since `claimedAt`, ms), `applied` for good. A repeat of an applied event changes nothing.
 */
export type EventDoc = {
  _id: string;
  type: string;
  created: number;
  state: "applying" | "applied";
  claimedAt: number;
  appliedAt?: string;
};

/** Which workspace a Stripe customer pays for, keyed by the customer id; `linkedAt` is the linking event's `created`. */
export type CustomerDoc = { _id: string; workspaceId: string; linkedAt: number };

/**
 * The billing state Stripe's events last set for one subscription (keyed by its id), or for one
 * customer's invoices that belong to no subscription (`customer:<id>`). Each part remembers the
 * `created` of the event that set it, so an older event never rolls it back. Kept whether or not
 * the customer is linked yet: a checkout completed later applies it. The workspace's billing is
 * derived from all of its customer's states (customer-billing.ts).
 */
export type BillingStateDoc = {
  _id: string;
  customerId: string;
  plan?: PlanName;
  planAt?: number;
  status?: BillingStatus;
  /** ISO time the status became overdue; null once it is settled. */
  pastDueSince?: string | null;
  statusAt?: number;
  /** Set by `customer.subscription.deleted`: Stripe never revives a deleted subscription, so no later event changes it. */
  deleted?: boolean;
  version: number;
};

/**
 * Requests counted by every gateway copy, one document per scope and window (`_id` = `scope|window`).
 * Claimed windows keep the limit of their first claim: of `n` units claimed, `min(n, limit)` were granted.
 */
export type UsageDoc = { _id: string; scope: string; window: string; n: number; pruneDay?: string; limit?: number };

/**
 * The dashboard's series: every gateway copy's counts of one environment's minute (`_id` = `envId|minute`),
 * added by increments (traffic.ts); `l0`..`l11` count requests by latency bucket (shared/contract/overview.ts).
 */
export type TrafficDoc = {
  _id: string;
  envId: string;
  minute: number;
  pruneDay: string;
  requests?: number;
  syncs?: number;
  conflicts?: number;
  clientErrors?: number;
  serverErrors?: number;
} & { [bucket: `l${number}`]: number | undefined };

const collections = {
  events: collection<EventDoc>("billingEvents"),
  customers: collection<CustomerDoc>("billingCustomers"),
  states: collection<BillingStateDoc>("billingStates", [{ name: "customer", fields: ["customerId"] }]),
  usage: collection<UsageDoc>("usageCounts", [{ name: "prune_day", fields: ["pruneDay"] }]),
  /** Deliveries refused for their signature, by client IP. */
  refusals: collection<HitDoc>("stripeRefusals", hitIndexes),
  traffic: collection<TrafficDoc>("trafficMinutes", [
    { name: "env_minute", fields: ["envId", "minute"] },
    { name: "prune_day", fields: ["pruneDay"] },
  ]),
};

export type Repo = CollectionsOf<typeof collections>;

export const openRepo = (store: Store): Promise<Repo> => openCollections(store, collections);
