import { fail } from "../../shared/contract/errors.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { windowCounter } from "../../shared/limits/window-counter.ts";
import type { Deps } from "./deps.ts";

/** docs/api-rules.md#transfer-codes: more than 10 failed consumes per client IP per 10 minutes is 429. */
const perIp = { limit: 10, windowSeconds: 600 };

/** An attempt's seats, taken before the lookup: kept when it was a guess, given back when the code was real. */
export interface Reservation {
  release(): Promise<void>;
}

/**
 * Failed-consume limits per client (an IPv4 address or an IPv6 /64: client-ip.ts) in the environment and
 * per runtime key (docs/api-rules.md#transfer-codes). Both seats are taken before the code is looked up,
 * so concurrent guesses never get past a limit. The key's minute bounds guessing by clients that have
 * already failed; it never refuses a client's only attempt in its 10-minute window (a player typing the
 * right code from a fresh address): past the key's limit that attempt is still looked up, and a wrong
 * one keeps its client seat. So a key's minute looks up at most its limit plus one guess per client
 * that had not failed for 10 minutes: every extra guess costs the guesser a fresh address or /64.
 */
export function attemptLimits(deps: Deps, tenant: Tenant, ip: string) {
  const ipScope = { scope: `${tenant.envId}:ip:${ip}`, ...perIp, of: "client_ip" as const, setting: "fixed" };
  const keyScope = {
    scope: `key:${tenant.keyId}`,
    limit: tenant.settings.rateLimits.transferFailuresPerKeyPerMinute,
    windowSeconds: 60,
    of: "runtime_key" as const,
    setting: "project setting rateLimits.transferFailuresPerKeyPerMinute",
  };
  const counter = windowCounter(deps.repo.attempts, deps.now().getTime());
  const refusal = (s: typeof ipScope | typeof keyScope) =>
    fail.transferCodeRateLimited({
      retryAfter: counter.retryAfter(s.windowSeconds),
      windowSeconds: s.windowSeconds,
      limit: s.limit,
      scope: s.of,
      setting: s.setting,
    });

  return {
    /** Counts this attempt as a guess unless it is released; throws 429 when a limit is used up. */
    async reserve(): Promise<Reservation> {
      // Any free seat, not the lowest: one client's burst spreads over its seats instead of queueing on
      // one after another (500 concurrent guesses made 10 rounds of reads and inserts each). Whether this
      // is its first attempt is told by the count below, never by a seat's number.
      const ipSeat = await counter.take(ipScope.scope, ipScope.windowSeconds, ipScope.limit);
      if (ipSeat === null) throw refusal(ipScope);
      const keySeat = await counter.take(keyScope.scope, keyScope.windowSeconds, keyScope.limit);
      // Its first attempt is alone in its count. Counted after taking its own seat, so of concurrent ones at most one is.
      if (keySeat === null && (await counter.count(ipScope.scope, ipScope.windowSeconds)) !== 1) {
        await counter.release(ipScope.scope, ipScope.windowSeconds, ipSeat);
        throw refusal(keyScope);
      }
      return {
        release: async () => {
          await counter.release(ipScope.scope, ipScope.windowSeconds, ipSeat);
          if (keySeat !== null) await counter.release(keyScope.scope, keyScope.windowSeconds, keySeat);
        },
      };
    },
  };
}
