import { fail } from "../../shared/contract/errors.ts";
import { addressBlock } from "../../shared/util/address-block.ts";
import type { Claims } from "./claims.ts";

/** Days billing keeps a minute's count: it is needed for that minute only. */
const keepDays = 1;

/**
 * Slows down guessing of the admin token: each client IP may fail `limit` checks of it a minute
 * (SAVEPOINT_ADMIN_FAILURES_PER_MINUTE, 10 by default), at every door that checks it (the admin API,
 * the console's sign-in) and across every gateway copy; past that, every check from it is 429 until the
 * minute ends, with the right token too (else a guess would still tell right from wrong).
 *
 * A check runs only with a unit of the address's limit this copy claimed from billing (claims.ts,
 * README "Limits hold across copies"), taken before the token is compared: a wrong token uses its
 * unit, a right one gives it back for this copy's next check. So all copies together compare at most
 * `limit` wrong tokens from one address in a minute, however many arrive at once.
 */
export function createAdminFailures(claims: Claims, limit = 10, now: () => number = Date.now) {
  let counting = "";
  return async function checkAdmin<T>(clientIp: string, authenticate: () => T | Promise<T>): Promise<T> {
    const t = now();
    const minute = Math.floor(t / 60_000);
    const scope = `admin-failures:${addressBlock(clientIp)}`;
    const window = `minute:${minute}`;
    // Windows end once a minute: forget the ended ones then (every address that failed in them).
    if (counting !== window) {
      counting = window;
      claims.forgetExcept(new Set([window]));
    }
    const unit = await claims.take(scope, window, limit, keepDays);
    if (unit === null) {
      const retryAfter = Math.max(1, Math.ceil(((minute + 1) * 60_000 - t) / 1000));
      const setting = "SAVEPOINT_ADMIN_FAILURES_PER_MINUTE";
      throw fail.rateLimited(
        { retryAfter, windowSeconds: 60, limit, scope: "client_ip", setting },
        "failed admin tokens",
      );
    }
    // An operator token is looked up over the bus: an unknown or revoked one uses the unit like a wrong admin token.
    const caller = await authenticate();
    claims.giveBack(scope, window, unit);
    return caller;
  };
}
export type CheckAdmin = ReturnType<typeof createAdminFailures>;
