import { z } from "zod";
import type { AuthProvider } from "./identity.ts";

/**
 * The closed set of error codes (contract 7.3 and decisions.md, Errors). HTTP status for each lives
 * in exactly one table, `services/gateway/errors.ts`.
 */
export const ErrorCode = z.enum([
  "invalid_request",
  "unauthorized",
  "payment_required",
  "monthly_quota_exceeded",
  "forbidden",
  "account_suspended",
  "auth_bridge_requires_paid_plan",
  "not_found",
  "method_not_allowed",
  "conflict",
  "idempotency_key_reused",
  "slot_already_exists",
  "slot_limit_reached",
  "slot_archived",
  "provider_not_configured",
  "provider_not_enabled",
  "account_auth_conflict",
  "account_deleted",
  "slot_deleted",
  "payload_too_large",
  "rate_limited",
  "transfer_code_invalid",
  "transfer_code_expired",
  "transfer_code_consumed",
  "transfer_code_rate_limited",
  "provider_not_supported",
  "firebase_token_invalid",
  "supabase_token_invalid",
  "auth0_token_invalid",
  "firebase_project_mismatch",
  "supabase_project_mismatch",
  "auth0_project_mismatch",
  "invalid_signature",
  "internal_error",
  "not_implemented",
  "service_unavailable",
  "service_timeout",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The error envelope every failure is answered with. */
export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: "ErrorResponse" });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

type Provider = AuthProvider;

/** What a 429 carries in `details`; the gateway turns it into Retry-After and RateLimit-* headers. */
export interface RateLimit {
  retryAfter: number;
  windowSeconds: number;
  limit: number;
}

/** An expected failure: a code from the closed set, a message safe to show, optional details. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }

  toJSON(): ErrorResponse["error"] {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
  }
}

/** One factory per code the services raise, so messages stay consistent. */
export const fail = {
  invalidRequest: (issues: { path: string; message: string }[]) =>
    new AppError("invalid_request", "The request is invalid.", { issues }),
  unauthorized: (message = "A valid runtime key and account session are required.") => new AppError("unauthorized", message),
  forbidden: (message = "This session may not access that account.") => new AppError("forbidden", message),
  notFound: (what: string) => new AppError("not_found", `${what} was not found.`),
  accountDeleted: () => new AppError("account_deleted", "The account has been deleted."),
  accountSuspended: () => new AppError("account_suspended", "The account is suspended."),
  slotDeleted: (slotId: string) => new AppError("slot_deleted", "The slot has been deleted.", { slotId }),
  slotArchived: (slotId: string) => new AppError("slot_archived", "The slot is archived and cannot be changed.", { slotId }),
  idempotencyKeyReused: (message: string, details?: Record<string, unknown>) => new AppError("idempotency_key_reused", message, details),
  slotAlreadyExists: (slotId: string) => new AppError("slot_already_exists", "An active slot with this id already exists.", { slotId }),
  slotLimitReached: (limit: number) =>
    new AppError("slot_limit_reached", `The account already has ${limit} active slots, the most its plan allows; archive or delete one first.`, { limit }),
  payloadTooLarge: (field: string, limitBytes: number, actualBytes: number) =>
    new AppError("payload_too_large", `${field} is larger than ${limitBytes} bytes.`, { field, limitBytes, actualBytes }),
  transferCodeInvalid: () => new AppError("transfer_code_invalid", "The transfer code is not valid."),
  transferCodeExpired: () => new AppError("transfer_code_expired", "The transfer code has expired: create a new one on the old device."),
  transferCodeConsumed: () => new AppError("transfer_code_consumed", "The transfer code has already been used."),
  /** `limit` failures per `windowSeconds`; `retryAfter` seconds until the window ends. */
  transferCodeRateLimited: (limit: RateLimit) =>
    new AppError("transfer_code_rate_limited", "Too many failed transfer-code attempts; try again later.", { ...limit }),
  providerNotSupported: () => new AppError("provider_not_supported", "Use one of firebase, supabase, auth0.", { field: "provider" }),
  tokenInvalid: (provider: Provider) => new AppError(`${provider}_token_invalid`, `The ${provider} token could not be verified.`),
  projectMismatch: (provider: Provider) => new AppError(`${provider}_project_mismatch`, `The ${provider} token was issued for another project.`),
  providerNotConfigured: (provider: Provider) =>
    new AppError("provider_not_configured", `${provider} is not configured for this environment.`, { provider }),
  providerNotEnabled: (provider: Provider) => new AppError("provider_not_enabled", `${provider} is disabled for this environment.`),
  authBridgeRequiresPaidPlan: (details: { environment: string; plan: string; upgradePath: string }) =>
    new AppError("auth_bridge_requires_paid_plan", "Signing in with an identity provider in prod needs a paid plan; use a stage key to test.", details),
  accountAuthConflict: (message = "This identity is linked to another account.") => new AppError("account_auth_conflict", message),
  paymentRequired: (plan: string, billingStatus: string) =>
    new AppError("payment_required", "The workspace's payment is overdue; the service resumes once it is paid.", { plan, billingStatus }),
  monthlyQuotaExceeded: (planTier: string, used: number, limit: number) =>
    new AppError("monthly_quota_exceeded", "This month's requests for the plan are used up.", { planTier, used, limit }),
  invalidSignature: () => new AppError("invalid_signature", "The webhook signature is missing, invalid or too old."),
  rateLimited: (limit: RateLimit) => new AppError("rate_limited", "Too many requests; try again later.", { ...limit }),
  notImplemented: () => new AppError("not_implemented", "This route is part of the contract but not available yet."),
  serviceUnavailable: (retryAfter = 1) =>
    new AppError("service_unavailable", "The service is temporarily unavailable.", { retryAfter }),
  serviceTimeout: () =>
    new AppError("service_timeout", "The service did not answer in time; the write may or may not have happened."),
  internal: (requestId?: string) =>
    new AppError("internal_error", "An internal error occurred.", requestId ? { requestId } : undefined),
};

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
