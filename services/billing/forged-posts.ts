import { type AppError, fail } from "../../shared/contract/errors.ts";
import { windowCounter } from "../../shared/limits/window-counter.ts";
import type { Deps } from "./deps.ts";

/** Deliveries with a bad signature one client IP may post in a minute before it is answered 429. */
export const forgedPostsPerMinute = 10;

/**
 * The answer to a delivery refused for its signature. Refusals are counted per client IP in billing's
 * store, so every copy counts the same posts: past 10 in a minute the answer is 429 `rate_limited`,
 * else 400 `invalid_signature`, and refusals past the limit are not even written. The warning is logged
 * at an IP's first refusal of a minute only, with how many the minute before counted (up to the
 * limit), so a forger cannot flood the log or the store. Only the reason is logged: never
 * the header, the secret or the body.
 */
export async function refuseDelivery(deps: Deps, clientIp: string, reason: string): Promise<AppError> {
  const nowMs = deps.now().getTime();
  const scope = `stripe:ip:${clientIp}`;
  const counter = windowCounter(deps.repo.refusals, nowMs);
  // In order, so that seat 1 is the minute's first refusal: the one that logs.
  const seat = await counter.take(scope, 60, forgedPostsPerMinute, true);
  if (seat === 1) {
    const refusedLastMinute = await windowCounter(deps.repo.refusals, nowMs - 60_000).count(scope, 60);
    deps.log.warn("stripe webhook refused", { reason, clientIp, refusedLastMinute });
  }
  if (seat !== null) return fail.invalidSignature();
  const limit = {
    retryAfter: counter.retryAfter(60),
    windowSeconds: 60,
    limit: forgedPostsPerMinute,
    scope: "client_ip" as const,
    setting: "fixed",
  };
  return fail.rateLimited(limit, "webhook posts with a bad signature");
}
