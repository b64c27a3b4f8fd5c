import { type Clock, sleep } from "./clock.ts";
import { isRetryable, type SavepointError } from "./errors.ts";

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** First backoff ceiling in ms (default 250); it doubles each attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** For tests: a source of [0, 1) numbers. */
  random?: () => number;
}

/**
 * Full-jitter backoff (a random wait between 0 and the doubling ceiling), never shorter than the
 * server's Retry-After. Only what may succeed unchanged is retried (README, Retries).
 */
export async function withRetries<T>(
  clock: Clock,
  options: RetryOptions,
  attempt: (n: number) => Promise<T>,
  onRetry?: (e: SavepointError, waitMs: number) => void,
): Promise<T> {
  const attempts = options.attempts ?? 5;
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 30_000;
  const random = options.random ?? Math.random;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (n >= attempts || !isRetryable(e)) throw e;
      const err = e as SavepointError;
      const ceiling = Math.min(max, base * 2 ** (n - 1));
      const waitMs = Math.max(random() * ceiling, (err.retryAfterSeconds ?? 0) * 1000);
      onRetry?.(err, waitMs);
      await sleep(clock, waitMs);
    }
  }
}
