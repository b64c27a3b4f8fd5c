import { z } from "zod";
import { type ErrorCase, needsTenant, type Route, takesIdempotencyKey } from "../route.ts";

const hasFields = (schema: z.ZodType) => schema instanceof z.ZodObject && Object.keys(schema.shape).length > 0;

/** Routes whose answer hands out a session token: a replay is bound to the first client (docs/api-rules.md#idempotent-retries). */
const handsOutSession = new Set(["createAccount", "exchangeAuthSession", "consumeTransferCode"]);

/** Whether the route reads anything from the client that its schemas can refuse. */
const takesInput = (r: Route) => Boolean(r.body && !r.raw) || hasFields(r.params) || hasFields(r.query);

/**
 * The errors a route answers with because of its kind, not its job: authentication, validation, plan
 * limits, retries and availability. Each route adds its own in `errorCases`; the reference shows both.
 */
export function commonErrorCases(r: Route): ErrorCase[] {
  const cases: ErrorCase[] = [];
  if (takesInput(r)) {
    cases.push({
      code: "invalid_request",
      when:
        "A path or query parameter or the body does not match its schema, the body is not JSON, or it has an " +
        "unknown key; `details.issues` lists each `{path, message}`.",
    });
  }
  if (r.auth === "session" || r.auth === "optionalSession") {
    cases.push({
      code: "invalid_request",
      when:
        "An `X-Service-Account-*` header and its `X-Persistly-Account-*` alias are both sent, with different " +
        "values.",
    });
  }
  if (takesIdempotencyKey(r)) {
    const secret =
      r.auth === "session"
        ? ""
        : ", or (on this route, where the key is a secret) carries less than 128 bits of randomness";
    cases.push({
      code: "invalid_request",
      when: `\`Idempotency-Key\` is empty, over 255 characters or not printable ASCII${secret}.`,
    });
  }
  if (r.auth === "admin") {
    cases.push({
      code: "unauthorized",
      when: "`Authorization` carries neither the admin token nor a live operator token (`spo_...`).",
    });
    if (r.role && r.role !== "viewer") {
      cases.push({
        code: "forbidden",
        when: `The operator's role is below \`${r.role}\`, the least this route needs; \`details.role\` names it.`,
      });
    }
    cases.push({
      code: "rate_limited",
      when: "This client IP sent more than `SAVEPOINT_ADMIN_FAILURES_PER_MINUTE` (10) wrong admin tokens this minute, counted across gateway copies.",
    });
    cases.push({ code: "not_found", when: "The admin API is off: `SAVEPOINT_ADMIN_TOKEN` is not set." });
  }
  if (needsTenant(r.auth)) {
    cases.push({
      code: "unauthorized",
      when: "`Authorization` carries no runtime key, or an unknown or revoked one; the message says which.",
    });
    cases.push({
      code: "origin_not_allowed",
      when: "The request comes from a browser origin the environment's `allowedOrigins` does not list. Nothing is done.",
    });
  }
  if (r.auth === "session") {
    const account = r.path.includes(":accountId") ? "" : ", or `X-Service-Account-ID` is missing";
    cases.push({ code: "unauthorized", when: `\`X-Service-Account-Session\` is missing or unknown${account}.` });
    cases.push({
      code: "session_revoked",
      when: "The session was signed out, or revoked by an operator or by the account's session cap.",
    });
    cases.push({
      code: "session_expired",
      when: "The session went unused for longer than the project's `sessionIdleDays` (180 by default).",
    });
  }
  if (r.auth === "session" || r.auth === "optionalSession") {
    const whose = r.path.includes(":accountId") ? "the path's `accountId`" : "`X-Service-Account-ID`";
    cases.push({ code: "forbidden", when: `The session is valid but belongs to another account than ${whose}.` });
    cases.push({ code: "account_suspended", when: "An operator has suspended the session's account." });
  }
  if (r.auth === "session") cases.push({ code: "account_deleted", when: "The session's account has been deleted." });
  if (needsTenant(r.auth)) {
    cases.push({
      code: "payment_required",
      when: "The workspace's subscription is unpaid, or past due for more than 7 days. Data is kept.",
    });
    cases.push({
      code: "monthly_quota_exceeded",
      when:
        "The environment has used this month's runtime requests of its plan (`details.used`, " + "`details.limit`).",
    });
    cases.push({
      code: "rate_limited",
      when:
        "Over the plan's requests per minute for the environment (`details.scope` `environment`); wait `Retry-After` seconds. `details` " +
        "names the limit, its scope, the plan and the `setting` that changes it.",
    });
    if (r.auth === "session") {
      cases.push({
        code: "rate_limited",
        when:
          "Over the account's requests a minute across all its sessions (`sessionRequestsPerMinute`, 120 by default), or it already has " +
          "`accountConcurrentRequests` (8) requests in flight, or answers in flight holding `SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT` " +
          "(4 MiB) in this gateway copy (`details.scope` `account`).",
      });
    }
  }
  if (takesIdempotencyKey(r)) {
    cases.push({
      code: "idempotency_key_reused",
      when:
        "The `Idempotency-Key` was used in the last 24 hours with another body or route, or its first request is " +
        "still running (`details.reason` `in_progress`, with `Retry-After`).",
    });
    if (handsOutSession.has(r.operationId)) {
      cases.push({
        code: "idempotency_key_reused",
        when:
          "The `Idempotency-Key`'s first request came from another client address (`details.reason` `other_client`): a replay hands " +
          "its session token only to the client that made it. Nothing is handed out or created; send a new key.",
      });
    }
  }
  if (r.body && !r.raw)
    cases.push({ code: "payload_too_large", when: "The whole body is over 1 MiB (refused before it is read)." });
  if (r.subject) {
    cases.push({
      code: "internal_error",
      when: "An unexpected failure. The answer carries `details.requestId` for the logs, never a stack trace.",
    });
    cases.push({
      code: "service_unavailable",
      when:
        "No copy of the service behind the route is running, or its store is down, or (for an answer over 64 KiB) the gateway " +
        "copy already holds `SAVEPOINT_ANSWER_BYTES_IN_FLIGHT` (64 MiB) of answers; retry after `Retry-After` seconds.",
    });
    const write =
      r.method === "GET"
        ? "Retry."
        : takesIdempotencyKey(r)
          ? "The write may or may not have happened: retry with the same `Idempotency-Key`, or read back."
          : "The write may or may not have happened: read back before repeating it.";
    cases.push({ code: "service_timeout", when: `The service behind the route did not answer in time. ${write}` });
  }
  return cases;
}
