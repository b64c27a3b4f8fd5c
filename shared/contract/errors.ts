import { z } from "zod";
import type { AuthProvider } from "./identity.ts";

/**
 * The closed set of error codes (docs/error-codes.md: a code missing there fails its test). HTTP status for each lives
 * in exactly one table, `services/gateway/errors.ts`.
 */
export const ErrorCode = z.enum([
  "invalid_request",
  "unauthorized",
  "session_revoked",
  "session_expired",
  "payment_required",
  "monthly_quota_exceeded",
  "forbidden",
  "account_suspended",
  "auth_bridge_requires_paid_plan",
  "origin_not_allowed",
  "not_found",
  "method_not_allowed",
  "conflict",
  "idempotency_key_reused",
  "slot_already_exists",
  "slot_limit_reached",
  "storage_quota_exceeded",
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
  "webhook_not_configured",
  "internal_error",
  "not_implemented",
  "service_unavailable",
  "service_timeout",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * Codes a service answers its gateway with and the gateway acts on: never answered to a client, so
 * outside the closed set above (README, How it is built: the tenant travels by reference).
 */
export const BusOnlyErrorCode = z.enum(["tenant_unknown"]);
export type BusOnlyErrorCode = z.infer<typeof BusOnlyErrorCode>;
export const isClientErrorCode = (code: string): code is ErrorCode =>
  (ErrorCode.options as readonly string[]).includes(code);

/** The error envelope every failure is answered with. */
export const ErrorResponse = z
  .object({
    error: z.object({
      code: ErrorCode.describe(
        "One of the closed set of error codes (docs/error-codes.md); the HTTP status follows from it.",
      ),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: "ErrorResponse" });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

type Provider = AuthProvider;

/** Why a provider token was refused: safe to show, it names no value of the token. */
export type TokenRefusal =
  | "malformed"
  | "algorithm_not_allowed"
  | "key_named_in_header"
  | "unknown_signing_key"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "issued_in_future"
  | "missing_claim"
  | "wrong_claims";
const tokenRefusalWords: Record<TokenRefusal, string> = {
  malformed: "it is not a JWT",
  algorithm_not_allowed: "its signing algorithm is not one this provider uses",
  key_named_in_header: "it names its own key (jku, jwk, x5u or x5c)",
  unknown_signing_key: "no key of the provider's key set signed it",
  bad_signature: "its signature does not verify",
  expired: "it has expired (60 s of clock skew allowed)",
  not_yet_valid: "it is not valid yet (nbf)",
  issued_in_future: "its iat is more than 60 s in the future",
  missing_claim: "it lacks exp, iat or sub",
  wrong_claims: "its claims do not fit this provider (Firebase: auth_time in the past; Supabase: role authenticated)",
};

/** Who a limit counts: one environment of a workspace, one account, one client IP, one runtime key. */
export type LimitScope = "environment" | "account" | "client_ip" | "runtime_key";

/**
 * What a 429 carries in `details`; the gateway turns it into Retry-After and RateLimit-* headers.
 * `setting` names what changes the limit (a project setting, or the plan catalog), so an operator
 * reading the answer knows where to look; `planTier` is the workspace's plan for a plan's limit.
 */
export interface RateLimit {
  retryAfter: number;
  windowSeconds: number;
  limit: number;
  scope: LimitScope;
  setting: string;
  planTier?: string;
}

const windowWords = (seconds: number) =>
  seconds === 1 ? "at once" : seconds === 60 ? "a minute" : `per ${seconds / 60} minutes`;
const scopeWords: Record<LimitScope, string> = {
  environment: "this environment",
  account: "this account",
  client_ip: "this client IP",
  runtime_key: "this runtime key",
};

/** "Too many requests: this account may make 120 requests a minute (project setting ...); retry in 12 s." */
const limitMessage = (what: string, l: RateLimit) =>
  `Too many ${what}: ${scopeWords[l.scope]} may make ${l.limit} ${what} ${windowWords(l.windowSeconds)}` +
  `${l.planTier ? ` on the ${l.planTier} plan` : ""} (${l.setting}); retry in ${l.retryAfter} s.`;
const quotaMessages: Record<StorageQuota["scope"], string> = {
  account:
    "The account's current data would pass its plan's storage budget; make a slot smaller, delete one, or upgrade the plan.",
  environment: "The environment's saves would pass its plan's storage budget; make a save smaller or upgrade the plan.",
  environment_accounts:
    "The environment's accounts together would pass its plan's storage budget; make the data smaller or upgrade the plan.",
};

/** What a 409 `storage_quota_exceeded` carries: the budget, what uses it, and what the write needed. */
export interface StorageQuota {
  /** `environment` is the environment's saves; `environment_accounts` its accounts together. */
  scope: "account" | "environment" | "environment_accounts";
  budgetBytes: number;
  usedBytes: number;
  currentStateBytes: number;
  historyBytes: number;
  /** The current states' bytes the write would leave: over `budgetBytes`. */
  requiredBytes: number;
}

/** An expected failure: a code from the closed set, a message safe to show, optional details. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode | BusOnlyErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }

  /** Over the bus it may carry a bus-only code too; the gateway answers clients only with the closed set. */
  toJSON(): Omit<ErrorResponse["error"], "code"> & { code: ErrorCode | BusOnlyErrorCode } {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** One factory per code the services raise, so messages stay consistent. */
export const fail = {
  invalidRequest: (issues: { path: string; message: string }[]) =>
    new AppError("invalid_request", "The request is invalid.", { issues }),
  unauthorized: (message = "A valid runtime key and account session are required.") =>
    new AppError("unauthorized", message),
  /** docs/using-the-api.md#sessions-and-devices: signed out on this device or another, or revoked by an operator. */
  sessionRevoked: () =>
    new AppError(
      "session_revoked",
      "This session was signed out or revoked: sign in again, or move the account here with a transfer code.",
    ),
  /** docs/using-the-api.md#sessions-and-devices: unused for longer than the project's sessionIdleDays. */
  sessionExpired: (idleDays: number) =>
    new AppError(
      "session_expired",
      `This session expired after ${idleDays} days without use: sign in again, or move the account here with a transfer code.`,
    ),
  forbidden: (message = "This session may not access that account.") => new AppError("forbidden", message),
  notFound: (what: string) => new AppError("not_found", `${what} was not found.`),
  accountDeleted: () => new AppError("account_deleted", "The account has been deleted."),
  accountSuspended: () =>
    new AppError(
      "account_suspended",
      "The account is suspended by the game's operator: contact the game's support; nothing was changed.",
    ),
  slotDeleted: (slotId: string) => new AppError("slot_deleted", "The slot has been deleted.", { slotId }),
  slotArchived: (slotId: string) =>
    new AppError("slot_archived", "The slot is archived and cannot be changed.", { slotId }),
  idempotencyKeyReused: (message: string, details?: Record<string, unknown>) =>
    new AppError("idempotency_key_reused", message, details),
  slotAlreadyExists: (slotId: string) =>
    new AppError("slot_already_exists", "An active slot with this id already exists.", { slotId }),
  slotLimitReached: (limit: number) =>
    new AppError(
      "slot_limit_reached",
      `The account already has ${limit} active slots, the most its plan allows; archive or delete one first.`,
      { limit },
    ),
  /** The current state alone would pass the plan's storage budget (docs/plans-and-limits.md#storage-budgets). */
  storageQuotaExceeded: (details: StorageQuota) =>
    new AppError("storage_quota_exceeded", quotaMessages[details.scope], { ...details }),
  payloadTooLarge: (field: string, limitBytes: number, actualBytes: number) =>
    new AppError("payload_too_large", `${field} is larger than ${limitBytes} bytes.`, {
      field,
      limitBytes,
      actualBytes,
    }),
  transferCodeInvalid: () => new AppError("transfer_code_invalid", "The transfer code is not valid."),
  transferCodeExpired: () =>
    new AppError("transfer_code_expired", "The transfer code has expired: create a new one on the old device."),
  transferCodeConsumed: () => new AppError("transfer_code_consumed", "The transfer code has already been used."),
  /** `limit` failures per `windowSeconds`; `retryAfter` seconds until the window ends. */
  transferCodeRateLimited: (limit: RateLimit) =>
    new AppError("transfer_code_rate_limited", limitMessage("failed transfer-code attempts", limit), { ...limit }),
  providerNotSupported: () =>
    new AppError("provider_not_supported", "Use one of firebase, supabase, auth0.", { field: "provider" }),
  /** `reason` says what was wrong with the token (never the token or its claims' values). */
  tokenInvalid: (provider: Provider, reason: TokenRefusal) =>
    new AppError(`${provider}_token_invalid`, `The ${provider} token was refused: ${tokenRefusalWords[reason]}.`, {
      reason,
    }),
  projectMismatch: (provider: Provider) =>
    new AppError(`${provider}_project_mismatch`, `The ${provider} token was issued for another project.`),
  providerNotConfigured: (provider: Provider) =>
    new AppError("provider_not_configured", `${provider} is not configured for this environment.`, { provider }),
  providerNotEnabled: (provider: Provider) =>
    new AppError("provider_not_enabled", `${provider} is disabled for this environment.`),
  authBridgeRequiresPaidPlan: (details: { environment: string; plan: string; upgradePath: string }) =>
    new AppError(
      "auth_bridge_requires_paid_plan",
      "Signing in with an identity provider in prod needs a paid plan; use a stage key to test.",
      details,
    ),
  accountAuthConflict: (message = "This identity is linked to another account.") =>
    new AppError("account_auth_conflict", message),
  /** docs/using-the-api.md#browser-games-cors: the runtime key's environment is restricted to other origins. */
  originNotAllowed: (origin: string, environment: string) =>
    new AppError(
      "origin_not_allowed",
      `The browser origin ${origin} is not allowed in this project's ${environment} environment: ` +
        "an operator adds it to the project setting allowedOrigins (npx savepoint settings set --allowedOrigins).",
      { origin, environment },
    ),
  paymentRequired: (plan: string, billingStatus: string) =>
    new AppError(
      "payment_required",
      "The workspace's payment is overdue; the service resumes once it is paid (an operator who runs the server sets the workspace's " +
        "billingStatus back to active: npx savepoint workspace update --billingStatus active).",
      {
        plan,
        billingStatus,
        scope: "environment",
        setting: "the workspace's billingStatus (Stripe, or npx savepoint workspace update)",
      },
    ),
  monthlyQuotaExceeded: (planTier: string, used: number, limit: number) =>
    new AppError(
      "monthly_quota_exceeded",
      `This month's ${limit} requests of the ${planTier} plan are used up; a bigger plan, or monthlyRequests in SAVEPOINT_PLANS, raises it.`,
      { planTier, used, limit, scope: "environment", setting: "SAVEPOINT_PLANS: monthlyRequests" },
    ),
  webhookNotConfigured: () =>
    new AppError(
      "webhook_not_configured",
      "This server has no STRIPE_WEBHOOK_SECRET: set it to the endpoint's signing secret (whsec_...) from the Stripe dashboard and restart billing.",
    ),
  invalidSignature: () => new AppError("invalid_signature", "The webhook signature is missing, invalid or too old."),
  /** `what` is counted: "requests", "account creations", ... */
  rateLimited: (limit: RateLimit, what = "requests") =>
    new AppError("rate_limited", limitMessage(what, limit), { ...limit }),
  notImplemented: () => new AppError("not_implemented", "This route is part of the contract but not available yet."),
  serviceUnavailable: (retryAfter = 1) =>
    new AppError("service_unavailable", "The service is temporarily unavailable.", { retryAfter }),
  serviceTimeout: () =>
    new AppError("service_timeout", "The service did not answer in time; the write may or may not have happened."),
  /** The bus message named its tenant by a reference this service copy does not hold: send it in full. */
  tenantUnknown: (tenantRef: string) =>
    new AppError("tenant_unknown", "This service does not know the tenant reference: send the tenant.", { tenantRef }),
  internal: (requestId?: string) =>
    new AppError("internal_error", "An internal error occurred.", requestId ? { requestId } : undefined),
};

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
