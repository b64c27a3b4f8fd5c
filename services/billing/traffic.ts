import type { z } from "zod";
import {
  latencyBoundsMs,
  type TrafficCounts,
  type TrafficRead,
  type TrafficReport,
} from "../../shared/contract/overview.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import type { Deps } from "./deps.ts";
import type { TrafficDoc } from "./repo.ts";

// `requests` last: a reader that sees a report's requests sees the rest of it too.
const counted = ["syncs", "conflicts", "clientErrors", "serverErrors", "requests"] as const;
const bucketField = (i: number) => `l${i}` as const;
const buckets = latencyBoundsMs.length + 1;

/**
 * `billing.traffic.report` (docs/api-rules.md#overview): a gateway copy's counts since its last report,
 * added to one document per environment and minute by atomic increments, so any number of copies add
 * up. Only the fields that moved are written. A minute is kept a day (pruned by day, a day of margin).
 */
export async function reportTraffic(deps: Deps, report: z.infer<typeof TrafficReport>): Promise<{ stored: number }> {
  const { traffic } = deps.repo;
  const pruneDay = dayAfter(deps.now(), 2);
  await Promise.all(
    report.minutes.map(async (m) => {
      const id = `${m.envId}|${m.minute}`;
      const init = { envId: m.envId, minute: m.minute, pruneDay };
      const moves: [keyof TrafficDoc & string, number][] = [
        ...m.latency.map((n, i): [keyof TrafficDoc & string, number] => [bucketField(i), n]),
        ...counted.map((k): [keyof TrafficDoc & string, number] => [k, m[k]]),
      ];
      // One after the other: the first creates the document, the rest find it.
      for (const [field, n] of moves) if (n > 0) await traffic.increment(id, field as never, n, init as never);
    }),
  );
  return { stored: report.minutes.length };
}

const countsOf = (d: TrafficDoc): TrafficCounts => ({
  requests: d.requests ?? 0,
  syncs: d.syncs ?? 0,
  conflicts: d.conflicts ?? 0,
  clientErrors: d.clientErrors ?? 0,
  serverErrors: d.serverErrors ?? 0,
  latency: Array.from({ length: buckets }, (_, i) => (d[bucketField(i)] as number | undefined) ?? 0),
});

/** `billing.traffic.read`: an environment's minutes in [from, to] that have counts, and the month's claimed requests. */
export async function readTraffic(deps: Deps, q: z.infer<typeof TrafficRead>) {
  // Newest first, at most one document a minute of the window: the store filters by equality only.
  const docs = await deps.repo.traffic.find(
    { envId: q.envId },
    { sort: { field: "minute", direction: -1 }, limit: q.toMinute - q.fromMinute + 1 },
  );
  const minutes = docs
    .filter((d) => d.minute >= q.fromMinute && d.minute <= q.toMinute)
    .map((d) => ({ minute: d.minute, ...countsOf(d) }))
    .reverse();
  const month = await deps.repo.usage.get(`env:${q.envId}|month:${q.month}`);
  return { minutes, monthClaimed: month ? Math.min(month.n, month.limit ?? month.n) : 0 };
}

/** Prunes minutes older than a day, at start and hourly; idempotent, so every copy may run it. */
export function scheduleTrafficPruning(deps: Deps): void {
  const prune = () =>
    deleteDaysBefore(deps.repo.traffic, "pruneDay", deps.now().toISOString().slice(0, 10)).catch((err) =>
      deps.log.warn("traffic pruning failed", { err: (err as Error).message }),
    );
  void prune();
  setInterval(prune, 3_600_000).unref?.();
}
