import type { KnownErrorCode } from "./generated/error-codes.ts";

/**
 * A code the server sends: one of today's, or a newer one this SDK does not know (still a string).
 * `network_error` and `invalid_json` are the SDK's own: the request never got an answer; a value JSON cannot
 * carry exactly was refused before anything was written or sent (`details`: `field`, `path`, `reason`).
 */
export type SavepointErrorCode = KnownErrorCode | "network_error" | "invalid_json" | (string & {});

/** Every failure the SDK reports: the server's `{error: {code, message, details}}` and its HTTP status. */
export class SavepointError extends Error {
  override readonly name = "SavepointError";
  constructor(
    readonly code: SavepointErrorCode,
    message: string,
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    readonly details: Record<string, unknown> = {},
    /** Seconds from the Retry-After header, when sent. */
    readonly retryAfterSeconds?: number,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** Turns an error answer into a SavepointError, whatever its body: a proxy's HTML page is still typed. */
export function errorFromAnswer(
  status: number,
  body: unknown,
  headers: { get(name: string): string | null },
  now = Date.now(),
): SavepointError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const code = typeof error?.code === "string" ? error.code : `http_${status}`;
  const message = typeof error?.message === "string" ? error.message : `HTTP ${status}`;
  const details = error?.details && typeof error.details === "object" ? (error.details as Record<string, unknown>) : {};
  return new SavepointError(
    code,
    message,
    status,
    details,
    retryAfter(headers.get("retry-after"), now),
    headers.get("x-request-id") ?? undefined,
  );
}

function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** Codes after which this device's session can no longer be used: the engine stops instead of looping. */
const sessionRefused = new Set([
  "unauthorized",
  "session_revoked",
  "session_expired",
  "account_deleted",
  "account_suspended",
  "forbidden",
]);
export const refusesSession = (e: unknown): boolean => e instanceof SavepointError && sessionRefused.has(e.code);

/** No answer, 408, 429, 5xx, or a 409 that says the first request with this key is still running. */
export function isRetryable(e: unknown): boolean {
  if (!(e instanceof SavepointError)) return false;
  if (e.code === "invalid_json") return false;
  if (e.status === 0 || e.status === 408 || e.status === 429 || e.status >= 500) return true;
  return e.status === 409 && e.details.reason === "in_progress";
}
