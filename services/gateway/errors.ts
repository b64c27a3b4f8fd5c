import {
  type AppError,
  type BusOnlyErrorCode,
  type ErrorCode,
  fail,
  isAppError,
  isClientErrorCode,
} from "../../shared/contract/errors.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { markErrorCode } from "./request-log.ts";

/**
 * The one place an error code becomes an HTTP status. A bus-only code is never answered as itself
 * (`errorResponse`); its row says what a client would see if one got that far: try again.
 */
export const statusOf: Record<ErrorCode | BusOnlyErrorCode, number> = {
  invalid_request: 400,
  transfer_code_invalid: 400,
  transfer_code_expired: 400,
  transfer_code_consumed: 400,
  provider_not_supported: 400,
  firebase_token_invalid: 400,
  supabase_token_invalid: 400,
  auth0_token_invalid: 400,
  firebase_project_mismatch: 400,
  supabase_project_mismatch: 400,
  auth0_project_mismatch: 400,
  invalid_signature: 400,
  unauthorized: 401,
  session_revoked: 401,
  session_expired: 401,
  payment_required: 402,
  monthly_quota_exceeded: 402,
  forbidden: 403,
  account_suspended: 403,
  auth_bridge_requires_paid_plan: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_reused: 409,
  slot_already_exists: 409,
  slot_limit_reached: 409,
  // Like the slot cap, a limit on what the account holds, not on this request's size (docs/plans-and-limits.md#storage-budgets).
  storage_quota_exceeded: 409,
  slot_archived: 409,
  provider_not_configured: 409,
  provider_not_enabled: 409,
  account_auth_conflict: 409,
  account_deleted: 410,
  slot_deleted: 410,
  payload_too_large: 413,
  rate_limited: 429,
  transfer_code_rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
  webhook_not_configured: 503,
  service_timeout: 504,
  tenant_unknown: 503,
};

export const jsonHeaders = (requestId: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/json; charset=utf-8",
  "x-request-id": requestId,
  // A browser must never run a JSON answer as a script or a page, whatever it contains.
  "x-content-type-options": "nosniff",
  ...extra,
});

/** Renders any failure in the contract's envelope. Unexpected errors are logged, never sent. */
export function errorResponse(
  err: unknown,
  requestId: string,
  log: Logger,
  extraHeaders: Record<string, string> = {},
): Response {
  let error: AppError;
  if (isAppError(err)) {
    error = err;
  } else {
    log.error("request failed", { requestId, err });
    error = fail.internal(requestId);
  }
  if (error.code === "internal_error") error = fail.internal(requestId);
  // The gateway answers a bus-only code itself (tenant-ref.ts): one here is a fault, and the client may retry.
  if (!isClientErrorCode(error.code)) {
    log.error("a bus-only error reached the edge", { requestId, code: error.code });
    error = fail.serviceUnavailable();
  }
  const headers: Record<string, string> = { ...extraHeaders };
  const { retryAfter, limit } = error.details ?? {};
  if (error.code === "service_unavailable" || typeof retryAfter === "number")
    headers["retry-after"] = String(retryAfter ?? 1);
  if (statusOf[error.code] === 429 && typeof limit === "number") {
    Object.assign(headers, {
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": "0",
      "ratelimit-reset": String(retryAfter),
    });
  }
  const response = new Response(JSON.stringify({ error: error.toJSON() }), {
    status: statusOf[error.code],
    headers: jsonHeaders(requestId, headers),
  });
  markErrorCode(response, error.code);
  return response;
}
