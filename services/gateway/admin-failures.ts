import { fail } from "../../shared/contract/errors.ts";
import type { Usage } from "./usage.ts";

/**
 * Slows down guessing of the admin token: past `limit` failures (SAVEPOINT_ADMIN_FAILURES_PER_MINUTE,
 * 10 by default) in a minute from one client IP, every admin request from it is 429 until the minute
 * ends, with the right token too (else a guess would still tell right from wrong). Failures are counted
 * like request counts (usage.ts), so the copies of the gateway add theirs up within a batch or two:
 * over N copies an address gets at most N - 1 tries more than the limit. Within one copy the check and
 * the count run without a pause between them, so concurrent guesses cannot all pass the check first.
 */
export function createAdminFailures(usage: Usage, limit = 10, now: () => number = Date.now) {
  let counting = "";
  return async function checkAdmin(clientIp: string, authenticate: () => void): Promise<void> {
    const minute = Math.floor(now() / 60_000);
    const scope = `admin-failures:${clientIp}`;
    const window = `minute:${minute}`;
    // Windows end once a minute: forget the ended ones then (every address that failed in them).
    if (counting !== window) {
      counting = window;
      usage.forgetExcept(new Set([window]));
    }
    // Only an address this copy has seen fail costs a round trip to billing: a flood from new addresses
    // does not. Another copy's failures count here from this copy's first own failure of that address on.
    if (usage.used(scope, window) > 0) await usage.refresh(scope, window, 1);
    if (usage.used(scope, window) >= limit) {
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now()) / 1000));
      const setting = "SAVEPOINT_ADMIN_FAILURES_PER_MINUTE";
      throw fail.rateLimited({ retryAfter, windowSeconds: 60, limit, scope: "client_ip", setting }, "failed admin tokens");
    }
    try {
      authenticate();
    } catch (err) {
      usage.add(scope, window, 1);
      throw err;
    }
  };
}
