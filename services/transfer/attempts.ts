import { type AppError, fail } from "../../shared/contract/errors.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { windowCounter } from "../../shared/window-counter.ts";
import type { Deps } from "./deps.ts";

/** decisions.md, Credentials: more than 10 failed consumes per client IP per 10 minutes is 429. */
const perIp = { limit: 10, windowSeconds: 600 };

/**
 * Failed-consume limits per client IP and per runtime key. Windows are fixed: a scope that reached its
 * limit is refused, even with the right code, until its window ends.
 */
export function attemptLimits(deps: Deps, tenant: Tenant, ip: string) {
  const scopes = [
    { scope: `ip:${ip}`, ...perIp },
    { scope: `key:${tenant.keyId}`, limit: tenant.settings.rateLimits.transferFailuresPerKeyPerMinute, windowSeconds: 60 },
  ];
  const counter = windowCounter(deps.repo.attempts, deps.now().getTime());
  const refusal = (s: (typeof scopes)[number]) =>
    fail.transferCodeRateLimited({ retryAfter: counter.retryAfter(s.windowSeconds), windowSeconds: s.windowSeconds, limit: s.limit });

  return {
    /** Throws 429 when a scope has used up its window. */
    async refuseWhenBlocked(): Promise<void> {
      for (const s of scopes) if ((await counter.count(s.scope, s.windowSeconds)) >= s.limit) throw refusal(s);
    },

    /** Records a failed attempt; returns `failure`, or 429 when this attempt went over a limit. */
    async recordFailure(failure: AppError): Promise<AppError> {
      let answer = failure;
      for (const s of scopes) if ((await counter.record(s.scope, s.windowSeconds, s.limit + 1)) > s.limit) answer = refusal(s);
      return answer;
    },
  };
}
