import { fail } from "../../shared/contract/errors.ts";
import type { SessionActor, Tenant } from "../../shared/contract/tenant.ts";
import type { Usage } from "./usage.ts";

const minuteOf = (ms: number) => Math.floor(ms / 60_000);
/** Days billing keeps a window's total: a minute's is needed for two minutes, a month's for the month. */
const keep = { minute: 1, month: 40 };
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * Enforces on the runtime API what config decided a workspace may do (the tenant's entitlements), per
 * environment: 402 while payment is overdue, 402 past the month's requests, 429 past the minute's
 * (sustained at the plan's rate, with a burst of twice that: the current and the previous minute
 * together may use two minutes' worth), and 429 past a session's own limit. The gateway only counts
 * and compares.
 */
export function createLimits(usage: Usage, now: () => number = Date.now) {
  let forgotten = "";
  return {
    requirePayment(tenant: Tenant): void {
      if (tenant.entitlements.paymentRequired) throw fail.paymentRequired(tenant.plan, tenant.billingStatus);
    },

    /** Admits one runtime request and counts it, or throws the 402 or 429 that refuses it. */
    async admit(tenant: Tenant, session: SessionActor | undefined): Promise<void> {
      const { monthlyRequests, perMinute } = tenant.entitlements;
      const t = now();
      const env = `env:${tenant.envId}`;
      const month = `month:${monthOf(t)}`;
      const minute = minuteOf(t);
      const thisMinute = `minute:${minute}`;
      const lastMinute = `minute:${minute - 1}`;
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - t) / 1000));
      // Windows end once a minute: forget the ended ones then, not on every request.
      if (forgotten !== thisMinute) {
        forgotten = thisMinute;
        usage.forgetExcept(new Set([month, thisMinute, lastMinute]));
      }

      if (monthlyRequests !== null) {
        await usage.refresh(env, month, keep.month);
        const used = usage.used(env, month);
        if (used >= monthlyRequests) throw fail.monthlyQuotaExceeded(tenant.plan, used, monthlyRequests);
      }
      if (perMinute !== null) {
        await usage.refresh(env, thisMinute, keep.minute);
        if (usage.used(env, thisMinute) + usage.used(env, lastMinute) >= 2 * perMinute) throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit: perMinute });
      }
      const perSession = tenant.settings.rateLimits.sessionRequestsPerMinute;
      const sessionScope = session && `session:${session.sessionId}`;
      if (sessionScope) {
        // Like the environment's totals: a device that moved to another gateway copy brings its count.
        await usage.refresh(sessionScope, thisMinute, keep.minute);
        if (usage.used(sessionScope, thisMinute) >= perSession) throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit: perSession });
      }

      if (monthlyRequests !== null) usage.add(env, month, keep.month);
      if (perMinute !== null) usage.add(env, thisMinute, keep.minute);
      if (sessionScope) usage.add(sessionScope, thisMinute, keep.minute);
    },
  };
}
