import { AppError, fail } from "../../shared/contract/errors.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { newId } from "../../shared/ids.ts";
import type { Deps } from "./deps.ts";

/** decisions.md, Credentials: more than 10 failed consumes per client IP per 10 minutes is 429. */
const perIp = { limit: 10, windowSeconds: 600 };

interface Scope {
  scope: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Failed-consume limits per client IP and per runtime key, counted in the transfer service's store,
 * so every gateway and service copy enforces the same count. Windows are fixed: a scope that reached
 * its limit is refused, even with the right code, until its window ends.
 */
export function attemptLimits(deps: Deps, tenant: Tenant, ip: string) {
  const scopes: Scope[] = [
    { scope: `ip:${ip}`, ...perIp },
    { scope: `key:${tenant.keyId}`, limit: deps.keyAttemptsPerMinute, windowSeconds: 60 },
  ];
  const now = deps.now().getTime();
  const windowOf = (s: Scope) => Math.floor(now / (s.windowSeconds * 1000));
  const refusal = (s: Scope) => {
    const retryAfter = Math.max(1, Math.ceil(((windowOf(s) + 1) * s.windowSeconds * 1000 - now) / 1000));
    return fail.transferCodeRateLimited({ retryAfter, windowSeconds: s.windowSeconds, limit: s.limit });
  };

  return {
    /** Throws 429 when a scope has used up its window. */
    async refuseWhenBlocked(): Promise<void> {
      for (const s of scopes) if ((await deps.repo.attempts.count({ scope: s.scope, window: windowOf(s) })) >= s.limit) throw refusal(s);
    },

    /**
     * Records a failed attempt and returns the error to answer: `failure`, or 429 when this attempt
     * went over a limit. Recording before counting keeps concurrent guesses from all slipping under.
     */
    async recordFailure(failure: AppError): Promise<AppError> {
      const at = new Date(now).toISOString();
      let answer = failure;
      for (const s of scopes) {
        const window = windowOf(s);
        await deps.repo.attempts.insert({ _id: newId("att"), scope: s.scope, window, at });
        if ((await deps.repo.attempts.count({ scope: s.scope, window })) > s.limit) answer = refusal(s);
        // Earlier windows no longer count: drop them while here.
        await deps.repo.attempts.delete({ scope: s.scope, window: window - 1 });
      }
      return answer;
    },
  };
}
