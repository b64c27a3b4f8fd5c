import { z } from "zod";
import { AccountId, Environment } from "./common.ts";
import type { Endpoint } from "./internal.ts";
import { PlanName } from "./plans.ts";

/**
 * The dashboard's traffic series (docs/api-rules.md#overview): each gateway copy counts per environment
 * and minute in memory and adds its counts to billing's store every few seconds. Latency is a histogram
 * in these fixed buckets (upper bounds in milliseconds, then one for slower), so the copies' counts add
 * up and p50/p99 are read from the sum.
 */
export const latencyBoundsMs = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

const Count = z.int().min(0);
export const TrafficCounts = z.object({
  requests: Count,
  syncs: Count,
  conflicts: Count,
  clientErrors: Count,
  serverErrors: Count,
  /** Requests by latency bucket: `latencyBoundsMs`, then one for anything slower. */
  latency: z.array(Count).length(latencyBoundsMs.length + 1),
});
export type TrafficCounts = z.infer<typeof TrafficCounts>;
/** Nothing counted yet: where a copy's minute and a read's sum start. */
export const noTraffic = (): TrafficCounts => ({
  requests: 0,
  syncs: 0,
  conflicts: 0,
  clientErrors: 0,
  serverErrors: 0,
  latency: new Array(latencyBoundsMs.length + 1).fill(0),
});

/** Minutes since the epoch, the series' key. */
export const MinuteNumber = z.int().min(0);

export const TrafficReport = z.object({
  minutes: z.array(TrafficCounts.extend({ envId: z.string(), minute: MinuteNumber })).max(10_000),
});
export const TrafficRead = z.object({
  envId: z.string(),
  fromMinute: MinuteNumber,
  toMinute: MinuteNumber,
  month: z.string().regex(/^\d{4}-\d{2}$/),
});
export const TrafficSeries = z.object({
  minutes: z.array(TrafficCounts.extend({ minute: MinuteNumber })),
  /** Units of the month's request limit the gateway copies claimed (docs/plans-and-limits.md): in blocks, so at most a block per copy ahead of use. */
  monthClaimed: Count,
});

export const LargeAccount = z.object({
  accountId: AccountId,
  playerRef: z.string().optional(),
  /** accountData, slots and every restore point kept. */
  storedBytes: Count,
  /** The part that is current state; the rest is history. */
  currentBytes: Count,
});
export const AccountsOverviewRequest = z.object({ envId: z.string(), top: z.int().min(1).max(50) });
export const AccountsOverview = z.object({
  /** Distinct accounts whose sessions were used (or which were created) on this UTC day, and on it or the day before. */
  activeToday: Count,
  activeSinceYesterday: Count,
  newToday: Count,
  newSinceYesterday: Count,
  largestAccounts: z.array(LargeAccount),
  deadLetters: Count,
});

export const OverviewQuery = z.strictObject({ minutes: z.coerce.number().int().min(1).max(1440).default(60) });

const Millis = z.number().min(0).nullable();
const MinuteView = TrafficCounts.omit({ latency: true }).extend({
  at: z.iso.datetime(),
  /** The upper bound of the latency bucket that holds the median and the 99th percentile; null without requests. */
  p50Ms: Millis,
  p99Ms: Millis,
});
const Usage = z.object({ used: Count, limit: Count.nullable() });

export const Overview = z
  .object({
    projectId: z.string(),
    env: Environment,
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    /** One entry per minute of the window, oldest first, zeros included. */
    minutes: z.array(MinuteView),
    totals: MinuteView.omit({ at: true }),
    players: AccountsOverview.pick({
      activeToday: true,
      activeSinceYesterday: true,
      newToday: true,
      newSinceYesterday: true,
    }),
    largestAccounts: z.array(LargeAccount),
    deadLetters: Count,
    plan: z.object({
      name: PlanName,
      monthlyRequests: Usage,
      /** The busiest minute of the window against the plan's requests a minute. */
      perMinute: Usage,
      /** The largest account against what one account may store. */
      accountBytes: Usage,
    }),
  })
  .meta({ id: "Overview" });
export type Overview = z.infer<typeof Overview>;

/** Bus endpoints behind the overview: the gateway copies' reports, and the reads config puts together. */
export const overviewEndpoints = {
  reportTraffic: { subject: "billing.traffic.report", request: TrafficReport, reply: z.object({ stored: Count }) },
  readTraffic: { subject: "billing.traffic.read", request: TrafficRead, reply: TrafficSeries },
  accountsOverview: { subject: "accounts.overview", request: AccountsOverviewRequest, reply: AccountsOverview },
} as const satisfies Record<string, Endpoint<z.ZodType, z.ZodType>>;
