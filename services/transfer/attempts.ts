import { fail } from "../../shared/contract/errors.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { windowCounter } from "../../shared/serving/window-counter.ts";
import type { Deps } from "./deps.ts";

/** docs/api-rules.md#transfer-codes: more than 10 failed consumes per client IP per 10 minutes is 429. */
const perIp = { limit: 10, windowSeconds: 600 };

/** An attempt's seats, taken before the lookup: kept when it was a guess, given back when the code was real. */
export interface Reservation {
  release(): Promise<void>;
}

/**
 * Failed-consume limits per client IP in the environment and per runtime key (README, What the API accepts).
 * Both seats are taken before the code is looked up, so concurrent guesses never get past a limit.
 * Of the key's seats, a client that already guessed in its window may take only the lower half: a
 * burst from a few addresses cannot use up the key, and a fresh client's first try (a player with
 * the right code) still finds a seat. Only as many addresses as the key's limit can exhaust it.
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
      const ipSeat = await counter.take(ipScope.scope, ipScope.windowSeconds, ipScope.limit, true);
      if (ipSeat === null) throw refusal(ipScope);
      const keyLimit = ipSeat === 1 ? keyScope.limit : Math.floor(keyScope.limit / 2);
      const keySeat = await counter.take(keyScope.scope, keyScope.windowSeconds, keyLimit);
      if (keySeat === null) {
        await counter.release(ipScope.scope, ipScope.windowSeconds, ipSeat);
        throw refusal(keyScope);
      }
      return {
        release: async () => {
          await counter.release(ipScope.scope, ipScope.windowSeconds, ipSeat);
          await counter.release(keyScope.scope, keyScope.windowSeconds, keySeat);
        },
      };
    },
  };
}
