import { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import { ClientInfo, SessionActor, Tenant } from "./tenant.ts";

/**
 * How a route authenticates: `runtimeKey` (Authorization bearer), `session` (runtime key plus
 * X-Service-Account-Session, bound to the path's accountId or, on a path without one, to the
 * X-Service-Account-ID header), `optionalSession` (the same when both headers are sent and the
 * session is valid, else none), `admin` (SAVEPOINT_ADMIN_TOKEN), `none` (health, signed webhooks).
 */
/** Operator roles, each allowed everything the ones after it are: owner > support > viewer. */
export const operatorRoles = ["owner", "support", "viewer"] as const;
export type OperatorRole = (typeof operatorRoles)[number];
/** Whether `held` may call a route that needs `needed`. */
export const roleAllows = (held: OperatorRole, needed: OperatorRole) =>
  operatorRoles.indexOf(held) <= operatorRoles.indexOf(needed);

export type Auth = "none" | "runtimeKey" | "session" | "optionalSession" | "admin";
type WithTenant = "runtimeKey" | "session" | "optionalSession";
export const needsTenant = (auth: Auth): auth is WithTenant =>
  auth === "runtimeKey" || auth === "session" || auth === "optionalSession";

/** POSTs of the runtime API take an Idempotency-Key (docs/api-rules.md#idempotent-retries). */
export const takesIdempotencyKey = (r: Pick<Route, "method" | "auth">) => r.method === "POST" && needsTenant(r.auth);

const noParams = z.strictObject({});
// Unknown query keys are dropped, not refused: cache-busters such as `?_=123` are common.
const noQuery = z.object({});

/**
 * One error a route answers with and the condition that causes it. The HTTP status is not repeated here:
 * it comes from the one status table (`statusOf`) when the reference is generated.
 */
export interface ErrorCase {
  readonly code: ErrorCode;
  /** When the route answers with this code: Markdown for one table cell, so one line. */
  readonly when: string;
}

/** A route of the HTTP API: the one description the gateway, the services and OpenAPI all read. */
export interface Route {
  /** Route number in the API contract, for contract routes. */
  readonly number?: number;
  readonly operationId: string;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Elysia-style path (`:param`). */
  readonly path: string;
  readonly summary: string;
  /** What the route does and guarantees, in Markdown (2 to 6 sentences); the API reference shows it. */
  readonly description?: string;
  /**
   * The errors this route answers with besides those every route of its kind shares (authentication,
   * validation, limits, availability: see `shared/contract/docs/common-errors.ts`).
   */
  readonly errorCases?: readonly ErrorCase[];
  readonly tag: string;
  readonly auth: Auth;
  readonly params: z.ZodType;
  readonly query: z.ZodType;
  readonly body?: z.ZodType;
  readonly bodyOptional?: boolean;
  /**
   * The service gets the body as sent, unparsed (`RawDelivery`), with the named header: signed
   * webhooks are verified over the exact bytes. `body` then only documents the shape.
   */
  readonly raw?: { signatureHeader: string };
  /** GET answers carry an ETag of their body and honour If-None-Match with 304. */
  readonly etag?: boolean;
  /** Success status and body; a conflict reply (shared/serving/reply.ts) is answered with 409 instead. */
  readonly ok: readonly [number, z.ZodType];
  readonly conflict?: z.ZodType;
  /** Turns the service's conflict reply into `conflict`'s shape, given the request body (see accounts.ts). */
  // Method syntax: each route pairs its own wire and body types (checked bivariantly); the gateway only passes them through.
  completeConflict?(wire: unknown, body: unknown): unknown;
  /** Turns the service's success reply into `ok`'s shape, given the request body (see accounts.ts). */
  completeOk?(wire: unknown, body: unknown): unknown;
  /** Error statuses the route answers with; each needs an error case, its own or its kind's (the docs test checks). */
  readonly errors: readonly number[];
  /**
   * Admin writes: the operationId of the admin GET that reads this write's target, from this route's
   * path params and the ids in its answer. The gateway reads it before and after, for the audit log.
   */
  readonly auditRead?: string;
  /**
   * Admin routes: the least operator role that may call it (docs/api-rules.md#operators). Every admin
   * route names one; the gateway refuses a lesser role with 403 `forbidden`.
   */
  readonly role?: OperatorRole;
  /** Admin reads of a player's personal data (an export): the gateway records who read it in the audit log. */
  readonly auditAccess?: true;
  /** Bus subject that serves the route; absent until a later issue implements it (501). */
  readonly subject?: string;
  /** Answered by the gateway itself, with no bus request (health). */
  readonly gatewayOnly?: true;
  /** The success answer's media type, when it is not JSON (`/metrics`). */
  readonly contentType?: string;
  /** Other answers that are not errors, with their own body (`/readyz`'s 503). */
  readonly answers?: readonly { status: number; schema: z.ZodType; description: string }[];
}

/** A route's texts for the API reference, kept per tag in `shared/contract/docs/`. */
export type RouteDocs = Pick<Route, "description" | "errorCases">;

type Spec = Omit<Route, "params" | "query"> & { params?: z.ZodType; query?: z.ZodType };
type Filled<S extends Spec> = Omit<S, "params" | "query"> & {
  params: S["params"] extends z.ZodType ? S["params"] : typeof noParams;
  query: S["query"] extends z.ZodType ? S["query"] : typeof noQuery;
};

export function route<const S extends Spec>(spec: S): Filled<S> {
  // An admin route above the least role answers 403 to a lesser operator (docs/api-rules.md#operators).
  const refusesRoles =
    spec.auth === "admin" && spec.role !== undefined && spec.role !== "viewer" && !spec.errors.includes(403);
  const errors = refusesRoles ? [...spec.errors, 403].sort((a, b) => a - b) : spec.errors;
  return { ...spec, errors, params: spec.params ?? noParams, query: spec.query ?? noQuery } as unknown as Filled<S>;
}

/** What a `raw` route's service receives as its body. */
export const RawDelivery = z.object({ payload: z.string(), signature: z.string().optional() });
export type RawDelivery = z.infer<typeof RawDelivery>;

type BodyOf<R extends Route> = R["raw"] extends object
  ? RawDelivery
  : R["body"] extends z.ZodType
    ? R["bodyOptional"] extends true
      ? z.infer<R["body"]> | undefined
      : z.infer<R["body"]>
    : undefined;

/** What a route's bus request carries. */
export interface RouteMessage<R extends Route> {
  tenant: R["auth"] extends WithTenant ? Tenant : undefined;
  session: R["auth"] extends "session"
    ? SessionActor
    : R["auth"] extends "optionalSession"
      ? SessionActor | undefined
      : undefined;
  client: ClientInfo;
  params: z.infer<R["params"]>;
  query: z.infer<R["query"]>;
  body: BodyOf<R>;
}

/** The zod schema of a route's bus request, built from the same objects the gateway validates with. */
export function routeMessage<R extends Route>(r: R): z.ZodType<RouteMessage<R>> {
  return z.object({
    tenant: needsTenant(r.auth) ? Tenant : z.undefined(),
    session:
      r.auth === "session" ? SessionActor : r.auth === "optionalSession" ? SessionActor.optional() : z.undefined(),
    client: ClientInfo,
    params: r.params,
    query: r.query,
    body: r.raw ? RawDelivery : r.body ? (r.bodyOptional ? r.body.optional() : r.body) : z.undefined(),
  }) as unknown as z.ZodType<RouteMessage<R>>;
}
