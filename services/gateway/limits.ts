import { fail } from "../../shared/contract/errors.ts";
import type { SessionActor, Tenant } from "../../shared/contract/tenant.ts";
import type { Claims, Unit } from "./claims.ts";

const minuteOf = (ms: number) => Math.floor(ms / 60_000);
/** Days billing keeps a window's total: a minute's is needed for two minutes, a month's for the month. */
const keep = { minute: 1, month: 40 };
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * Enforces on the runtime API what config decided a workspace may do (the tenant's entitlements), per
 * environment: 402 while payment is overdue, 402 past the month's requests, 429 past the minute's
 * (sustained at the plan's rate, with a burst of twice that: the current and the previous minute
 * together may use two minutes' worth), and 429 past an account's own limits: its requests a minute,
 * across all its sessions (a new device or session brings no fresh allowance), and its requests in
 * flight in this gateway copy (one account's burst must not stall the others). A request is admitted
 * only with a unit of each limit this copy claimed from billing (claims.ts), so the copies together
 * never admit more than a limit (docs/plans-and-limits.md); while billing does not answer in time, with a unit
 * this copy counted alone.
 */
export function createLimits(claims: Claims, now: () => number = Date.now) {
  let windows = { minute: Number.NaN, month: "", this: "", last: "" };
  const running = new Map<string, number>();

  /** Takes one of the account's places in this copy, or refuses at once (and counts nothing). */
  function enter(tenant: Tenant, accountId: string): () => void {
    const bound = tenant.settings.rateLimits.accountConcurrentRequests;
    const n = running.get(accountId) ?? 0;
    if (n >= bound) {
      const setting = "project setting rateLimits.accountConcurrentRequests";
      throw fail.rateLimited(
        { retryAfter: 1, windowSeconds: 1, limit: bound, scope: "account", setting },
        "requests in flight",
      );
    }
    running.set(accountId, n + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const rest = running.get(accountId)! - 1;
      if (rest > 0) running.set(accountId, rest);
      else running.delete(accountId);
    };
  }

  return {
    requirePayment(tenant: Tenant): void {
      if (tenant.entitlements.paymentRequired) throw fail.paymentRequired(tenant.plan, tenant.billingStatus);
    },

    /**
     * Admits one runtime request and counts it, or throws the 402 or 429 that refuses it. The answer
     * ends the request's place among its account's requests in flight: call it once the request is done.
     */
    async admit(tenant: Tenant, session: SessionActor | undefined): Promise<() => void> {
      const leave = session ? enter(tenant, session.accountId) : () => {};
      try {
        await count(tenant, session);
      } catch (err) {
        leave();
        throw err;
      }
      return leave;
    },
  };

  async function count(tenant: Tenant, session: SessionActor | undefined): Promise<void> {
    const { monthlyRequests, perMinute } = tenant.entitlements;
    const t = now();
    const env = `env:${tenant.envId}`;
    const minute = minuteOf(t);
    // Windows end once a minute: name them and forget the ended ones then, not on every request.
    if (windows.minute !== minute) {
      windows = { minute, month: `month:${monthOf(t)}`, this: `minute:${minute}`, last: `minute:${minute - 1}` };
      claims.forgetExcept(new Set([windows.month, windows.this]));
    }

    // Each limit takes a unit this copy claimed, all three at once: they do not depend on each other, so a
    // request waits for billing once at most (claims.ts). A refusal gives back the units the others took.
    const perAccount = tenant.settings.rateLimits.sessionRequestsPerMinute;
    const { month, this: thisMinute, last: lastMinute } = windows;
    const wanted: [string, string, number, number, string?][] = [];
    if (monthlyRequests !== null) wanted.push([env, month, monthlyRequests, keep.month]);
    // The current and the previous minute together may use two minutes' worth.
    if (perMinute !== null) wanted.push([env, thisMinute, 2 * perMinute, keep.minute, lastMinute]);
    // The setting keeps its name; it counts an account's requests, whichever session sent them, through
    // every gateway copy (a device that moved to another copy brings its count).
    if (session) wanted.push([`account:${session.accountId}`, thisMinute, perAccount, keep.minute]);
    // Most requests find every unit in a block granted before: no promise is made for them.
    const held = wanted.map(([scope, window, limit]) => claims.takeHeld(scope, window, limit));
    const units: (Unit | null)[] = held.includes(undefined)
      ? await Promise.all(
          wanted.map(
            ([scope, window, limit, days, less], i) => held[i] ?? claims.take(scope, window, limit, days, less),
          ),
        )
      : (held as Unit[]);
    const refused = units.indexOf(null);
    if (refused < 0) return;
    for (const [i, unit] of units.entries()) if (unit !== null) claims.giveBack(wanted[i]![0], wanted[i]![1], unit);
    // The first refusal in the order month, minute, account answers, as when they were taken in turn.
    const [scope, window] = wanted[refused]!;
    const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - t) / 1000));
    if (window === month)
      throw fail.monthlyQuotaExceeded(tenant.plan, claims.claimed(env, month, monthlyRequests!), monthlyRequests!);
    if (scope === env) {
      const setting = `the workspace's plan, or perMinute.${tenant.environment} in SAVEPOINT_PLANS`;
      throw fail.rateLimited({
        retryAfter,
        windowSeconds: 60,
        limit: perMinute!,
        scope: "environment",
        setting,
        planTier: tenant.plan,
      });
    }
    const setting = "project setting rateLimits.sessionRequestsPerMinute";
    throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit: perAccount, scope: "account", setting });
  }
}
