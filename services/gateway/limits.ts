import { fail } from "../../shared/contract/errors.ts";
import type { SessionActor, Tenant } from "../../shared/contract/tenant.ts";
import type { PlanCatalog } from "../../shared/plans.ts";
import type { Usage } from "./usage.ts";

/** decisions.md, Plans and billing: past due for more than 7 days blocks the runtime API. */
const pastDueGraceMs = 7 * 24 * 3600 * 1000;

const minuteOf = (ms: number) => Math.floor(ms / 60_000);
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * What a workspace's plan and billing allow on the runtime API, per environment: 402 while payment is
 * overdue, 402 past the month's requests, 429 past the minute's (sustained at the plan's rate, with a
 * burst of twice that: the current and the previous minute together may use two minutes' worth), and
 * 429 past a session's own limit.
 */
export function createLimits(usage: Usage, plans: PlanCatalog, now: () => number = Date.now) {
  return {
    requirePayment(tenant: Tenant): void {
      const overdue = tenant.billingStatus === "past_due" && tenant.pastDueSince !== undefined && now() - Date.parse(tenant.pastDueSince) > pastDueGraceMs;
      if (tenant.billingStatus === "unpaid" || overdue) throw fail.paymentRequired(tenant.plan, tenant.billingStatus);
    },

    /** Admits one runtime request and counts it, or throws the 402 or 429 that refuses it. */
    async admit(tenant: Tenant, session: SessionActor | undefined): Promise<void> {
      const plan = plans[tenant.plan];
      const t = now();
      const env = `env:${tenant.envId}`;
      const month = `month:${monthOf(t)}`;
      const minute = minuteOf(t);
      const thisMinute = `minute:${minute}`;
      const lastMinute = `minute:${minute - 1}`;
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - t) / 1000));
      usage.forgetExcept(new Set([month, thisMinute, lastMinute]));

      if (plan.monthlyRequests !== null) {
        await usage.refresh(env, month);
        const used = usage.used(env, month);
        if (used >= plan.monthlyRequests) throw fail.monthlyQuotaExceeded(tenant.plan, used, plan.monthlyRequests);
      }
      const perMinute = plan.perMinute[tenant.environment];
      if (perMinute !== null) {
        await usage.refresh(env, thisMinute);
        if (usage.used(env, thisMinute) + usage.used(env, lastMinute) >= 2 * perMinute) throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit: perMinute });
      }
      const perSession = tenant.settings.rateLimits.sessionRequestsPerMinute;
      if (session && usage.used(`session:${session.sessionId}`, thisMinute) >= perSession) {
        throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit: perSession });
      }

      if (plan.monthlyRequests !== null) usage.add(env, month);
      if (perMinute !== null) usage.add(env, thisMinute);
      if (session) usage.add(`session:${session.sessionId}`, thisMinute);
    },
  };
}
