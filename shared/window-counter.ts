import { fail } from "./contract/errors.ts";
import { newId } from "./ids.ts";
import type { Collection } from "./store/port.ts";

/** One counted event: a document, so counting needs no atomic increment the store port lacks. */
export type HitDoc = { _id: string; scope: string; window: number; at: string };

export const hitIndexes = [{ name: "scope_window", fields: ["scope", "window"] }];

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

    /** Records one event and returns how many the window now holds, this one included. */
    async record(scope: string, windowSeconds: number): Promise<number> {
      const window = windowOf(windowSeconds);
      await hits.insert({ _id: newId("hit"), scope, window, at: new Date(nowMs).toISOString() });
      const n = await hits.count({ scope, window });
      // Earlier windows no longer count: drop the last one while here.
      await hits.delete({ scope, window: window - 1 });
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
  if ((await counter.record(scope, 60)) > limit) throw fail.rateLimited({ retryAfter: counter.retryAfter(60), windowSeconds: 60, limit });
}
