import { fail } from "./contract/errors.ts";
import { newId } from "./ids.ts";
import { dayAfter, deleteDaysBefore } from "./prune-days.ts";
import type { Collection } from "./store/port.ts";

/** One counted event: a document, so concurrent events are counted exactly without a lease. */
export type HitDoc = { _id: string; scope: string; window: number; at: string; pruneDay?: string };

export const hitIndexes = [
  { name: "scope_window", fields: ["scope", "window"] },
  { name: "prune_day", fields: ["pruneDay"] },
];

// The first event of each day (per collection and process) prunes what expired before it: pruning
// on every event scanned the collection each time (half of account creation's CPU under load).
const prunedOn = new WeakMap<Collection<HitDoc>, string>();

/**
 * Counts events per scope (a client IP, a runtime key) in fixed windows, in a service's own store, so
 * every copy of the service and of the gateway counts the same events. Events are written before they
 * are counted: of concurrent events, the ones past a limit always see themselves over it.
 */
export function windowCounter(hits: Collection<HitDoc>, nowMs: number) {
  const windowOf = (windowSeconds: number) => Math.floor(nowMs / (windowSeconds * 1000));
  return {
    /** Seconds until the current window of this length ends (at least 1). */
    retryAfter: (windowSeconds: number) => Math.max(1, Math.ceil(((windowOf(windowSeconds) + 1) * windowSeconds * 1000 - nowMs) / 1000)),

    count: (scope: string, windowSeconds: number) => hits.count({ scope, window: windowOf(windowSeconds) }),

    /**
     * Records one event and returns how many the window now holds, this one included; with `upTo`
     * (a limit plus one) at most that many, however busy the window.
     */
    async record(scope: string, windowSeconds: number, upTo?: number): Promise<number> {
      const window = windowOf(windowSeconds);
      const now = new Date(nowMs);
      // Windows last minutes: an event is of no use once the next day has passed, whoever sent it.
      await hits.insert({ _id: newId("hit"), scope, window, at: now.toISOString(), pruneDay: dayAfter(now) });
      const n = await hits.count({ scope, window }, upTo);
      const today = now.toISOString().slice(0, 10);
      if (prunedOn.get(hits) !== today) {
        prunedOn.set(hits, today);
        await deleteDaysBefore(hits, "pruneDay", today);
      }
      return n;
    },
  };
}

/**
 * A per-minute limit on one client's requests in one environment (decisions.md, Plans: account
 * creations and provider sign-ins per client IP): counts this request, and refuses it with 429
 * `rate_limited` when the minute already held `limit`.
 */
export async function limitPerMinute(hits: Collection<HitDoc>, nowMs: number, scope: string, limit: number): Promise<void> {
  const counter = windowCounter(hits, nowMs);
  if ((await counter.record(scope, 60, limit + 1)) > limit) throw fail.rateLimited({ retryAfter: counter.retryAfter(60), windowSeconds: 60, limit });
}
