import { type AppError, fail } from "../contract/errors.ts";
import type { RateLimits } from "../contract/settings.ts";
import type { Tenant } from "../contract/tenant.ts";
import type { Collection, Quota } from "../store/port.ts";
import { dayAfter, deleteDaysBefore } from "../store/prune-days.ts";
import { inRounds, insertOrLose, lostRound } from "../store/versioned.ts";

/** One counted event: a numbered seat of its scope's window, so the store's unique key decides who is counted. */
export type HitDoc = {
  _id: string;
  scope: string;
  window: number;
  seat?: number;
  count?: number;
  at: string;
  pruneDay?: string;
};

export const hitIndexes = [
  { name: "scope_window", fields: ["scope", "window"] },
  { name: "prune_day", fields: ["pruneDay"] },
];

// The first event of each day (per collection and process) prunes what expired before it: pruning
// on every event scanned the collection each time (half of account creation's CPU under load).
const prunedOn = new WeakMap<Collection<HitDoc>, string>();

const seatId = (scope: string, window: number, seat: number) => `${scope}:${window}:${seat}`;

async function pruneOnce(hits: Collection<HitDoc>, now: Date) {
  const today = now.toISOString().slice(0, 10);
  if (prunedOn.get(hits) === today) return;
  prunedOn.set(hits, today);
  await deleteDaysBefore(hits, "pruneDay", today);
}

/**
 * A seat of 1..limit not in `taken` (which holds fewer than `limit`): the lowest when `inOrder`, else
 * one at random, so a burst spreads over the free seats. Never a list as long as the limit: limits of
 * a million are settings operators use to mean "no limit".
 */
function freeSeat(taken: Set<number | undefined>, limit: number, inOrder: boolean): number | null {
  if (inOrder) {
    for (let k = 1; k <= limit; k++) if (!taken.has(k)) return k;
    return null;
  }
  const start = 1 + Math.floor(Math.random() * limit);
  // Walks on from a random seat: at most taken.size steps pass before a free one.
  for (let i = 0; i <= taken.size && i < limit; i++) {
    const k = ((start - 1 + i) % limit) + 1;
    if (!taken.has(k)) return k;
  }
  return null;
}

/**
 * Counts events per scope (a client IP, a runtime key) in fixed windows, in a service's own store, so
 * every copy of the service and of the gateway counts the same events. A window of limit L has seats
 * 1..L, each a document with its own `_id`: an event is counted by inserting a free one, so of N
 * concurrent events exactly min(N, L) are, with no lease and however many copies count.
 */
export function windowCounter(hits: Collection<HitDoc>, nowMs: number) {
  const windowOf = (windowSeconds: number) => Math.floor(nowMs / (windowSeconds * 1000));
  const quota = (scope: string, windowSeconds: number, limit: number): Quota => {
    const window = windowOf(windowSeconds);
    const now = new Date(nowMs);
    // Windows last minutes: a count is of no use once the next day has passed.
    const init = { scope, window, at: now.toISOString(), pruneDay: dayAfter(now) };
    return { increment: `${scope}:${window}:n`, field: "count", atMost: limit, init, in: hits };
  };
  return {
    /** Seconds until the current window of this length ends (at least 1). */
    retryAfter: (windowSeconds: number) =>
      Math.max(1, Math.ceil(((windowOf(windowSeconds) + 1) * windowSeconds * 1000 - nowMs) / 1000)),

    count: (scope: string, windowSeconds: number) => hits.count({ scope, window: windowOf(windowSeconds) }),

    /**
     * Counts one event when the window holds fewer than `limit`: returns the seat it took, or null,
     * without a write, when every seat is taken. A burst spreads over the free seats at random (a
     * lost race costs a round trip); `inOrder` takes the lowest, so that seat 1 means "the window's
     * first event" (a burst then queues on one seat after another).
     */
    async take(scope: string, windowSeconds: number, limit: number, inOrder = false): Promise<number | null> {
      const window = windowOf(windowSeconds);
      const now = new Date(nowMs);
      // Each lost round means a seat seen free was taken meanwhile, so `limit` rounds see the window
      // full (only seats given back at the same time can make them run out first: then it counts as full).
      const seat = await inRounds<number | null>({ rounds: limit, exhausted: () => null }, async () => {
        // Any `limit` events fill the window, also seats above a limit lowered since they were taken.
        const held = await hits.find({ scope, window }, { limit });
        const k = held.length < limit ? freeSeat(new Set(held.map((h) => h.seat)), limit, inOrder) : null;
        if (k === null) return null;
        // Windows last minutes: an event is of no use once the next day has passed, whoever sent it.
        const hit = {
          _id: seatId(scope, window, k),
          scope,
          window,
          seat: k,
          at: now.toISOString(),
          pruneDay: dayAfter(now),
        };
        return (await insertOrLose(hits, hit)) === lostRound ? lostRound : k;
      });
      await pruneOnce(hits, now);
      return seat;
    },

    /**
     * Counts one event in the window's one counter and says whether it is within `limit`: the store's
     * atomic increment numbers the events, so of N concurrent ones exactly min(N, limit) are, however
     * many copies count. One write per event, whatever the limit; events past it are counted too (the
     * window stays refused until it ends). No seat can be given back: `take` is for that.
     */
    async tally(scope: string, windowSeconds: number, limit: number): Promise<boolean> {
      const q = quota(scope, windowSeconds, limit);
      const counter = await hits.increment(q.increment, "count", 1, q.init as Omit<HitDoc, "_id" | "count">);
      await pruneOnce(hits, new Date(nowMs));
      return (counter.count ?? 0) <= limit;
    },

    /**
     * `tally` as a quota a write is admitted under (port.ts, Quota): the same counter, counted by the
     * store with the write it admits, in the write's one commit on SQLite.
     */
    quota,

    /** The day's first event prunes the windows of days past (`tally` does it itself). */
    prune: () => pruneOnce(hits, new Date(nowMs)),

    /** Gives back a seat `take` returned: the event is not counted after all. */
    async release(scope: string, windowSeconds: number, seat: number): Promise<void> {
      await hits.delete({ _id: seatId(scope, windowOf(windowSeconds), seat) });
    },
  };
}

/** The project settings that limit one client IP's requests of a kind a minute. */
type PerIpSetting = { [K in keyof RateLimits]: K extends `${string}PerIpPerMinute` ? K : never }[keyof RateLimits];
type PerIpLimit = { setting: PerIpSetting; counted: string };

/** One client's minute in one environment, its limit, and the 429 `rate_limited` past it. */
function perIp(hits: Collection<HitDoc>, nowMs: number, tenant: Tenant, clientIp: string, what: PerIpLimit) {
  const counter = windowCounter(hits, nowMs);
  const limit = tenant.settings.rateLimits[what.setting];
  const refused = (): AppError => {
    const setting = `project setting rateLimits.${what.setting}`;
    return fail.rateLimited(
      { retryAfter: counter.retryAfter(60), windowSeconds: 60, limit, scope: "client_ip", setting },
      what.counted,
    );
  };
  return { counter, scope: `${tenant.envId}:ip:${clientIp}`, limit, refused };
}

/**
 * A per-minute limit on one client's requests in one environment (docs/api-rules.md#limits-and-plans: account
 * creations, provider sign-ins and new saves per client IP): counts this request, and refuses it with 429
 * `rate_limited` when the minute already holds `limit`.
 */
export async function limitPerMinute(
  hits: Collection<HitDoc>,
  nowMs: number,
  tenant: Tenant,
  clientIp: string,
  what: PerIpLimit,
): Promise<void> {
  const { counter, scope, limit, refused } = perIp(hits, nowMs, tenant, clientIp, what);
  if (!(await counter.tally(scope, 60, limit))) throw refused();
}

/**
 * `limitPerMinute` for a request that is one insert: its count as the insert's quota (port.ts, Quota),
 * so on SQLite the count and what it admits are one commit. `refused` is the answer when the store
 * says QuotaExceededError; `prune` is awaited before the insert (the day's first event prunes).
 */
export function perMinuteQuota(
  hits: Collection<HitDoc>,
  nowMs: number,
  tenant: Tenant,
  clientIp: string,
  what: PerIpLimit,
) {
  const { counter, scope, limit, refused } = perIp(hits, nowMs, tenant, clientIp, what);
  return { quota: counter.quota(scope, 60, limit), refused, prune: counter.prune };
}
