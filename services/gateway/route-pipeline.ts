import type { Server } from "bun";
import { type Bus, defaultRequestTimeoutMs, requestIdHeader } from "../../shared/bus/port.ts";
import { AppError, fail } from "../../shared/contract/errors.ts";
import { needsTenant, type Route, roleAllows, takesIdempotencyKey } from "../../shared/contract/route.ts";
import type { ClientInfo } from "../../shared/contract/tenant.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { since } from "../../shared/observe/metrics.ts";
import { requestRoute } from "../../shared/serving/call.ts";
import { idempotencyKeyHeader, timeoutHeader } from "../../shared/serving/idempotency.ts";
import { checkAccountHeaders } from "./account-headers.ts";
import type { createAdminFailures } from "./admin-failures.ts";
import { type AnswerBytesOptions, type AnswerHold, createAnswerBytes } from "./answer-bytes.ts";
import { actorOf, type createAudit } from "./audit.ts";
import type { createAuth } from "./auth.ts";
import { readJsonBody, readTextBody } from "./body.ts";
import type { createCors } from "./cors.ts";
import { errorResponse } from "./errors.ts";
import { httpSeries } from "./http-series.ts";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import type { createLimits } from "./limits.ts";
import { adminApiOff, pathOf } from "./not-found.ts";
import { peerOf } from "./peer.ts";
import { renderReply, textOf, wasConflict } from "./reply.ts";
import { requestIdOf } from "./request-id.ts";
import type { createRequestLog } from "./request-log.ts";
import { requestWithTenant } from "./tenant-ref.ts";
import type { createTraffic } from "./traffic.ts";
import { validate } from "./validate.ts";

/** What the gateway built once that every route's request goes through. */
export interface PipelineParts {
  bus: Bus;
  log: Logger;
  adminToken?: string;
  timeoutMs?: number;
  proxies: ReadonlySet<string>;
  auth: ReturnType<typeof createAuth>;
  checkAdmin: ReturnType<typeof createAdminFailures>;
  limits: ReturnType<typeof createLimits>;
  cors: ReturnType<typeof createCors>;
  requests: ReturnType<typeof createRequestLog>;
  audit: ReturnType<typeof createAudit>;
  traffic: ReturnType<typeof createTraffic>;
  answerBytes?: AnswerBytesOptions;
}

/**
 * A bus route's request, the same steps for every route: authenticate, validate params, query and body
 * with the route's zod schemas, send one bus request, map the answer, count it. No business rules live here.
 */
export function createRoutePipeline(parts: PipelineParts) {
  const { bus, log, adminToken, timeoutMs, proxies, auth, checkAdmin, limits, cors, requests, audit, traffic } = parts;
  const answerBytes = createAnswerBytes(parts.answerBytes ?? { total: 64 * 1_048_576, perAccount: 4 * 1_048_576 });
  // A request's share of the bytes of answers in flight, held until its answer is handed to the server.
  const holds = new WeakMap<Request, AnswerHold>();
  // The dashboard's counts by environment: a request's environment is known once its key is.
  const envs = new WeakMap<Request, string>();
  // A request's place among its account's requests in flight, held until its answer is ready.
  const places = new WeakMap<Request, () => void>();

  /** The caller of an admin route, checked under the failure limit, allowed by the route's role, named for the audit log. */
  async function adminClient(r: Route, request: Request, client: ClientInfo): Promise<ClientInfo> {
    const caller = await checkAdmin(client.ip, () => auth.admin(request.headers));
    const needed = r.role ?? "owner";
    if (!roleAllows(caller.role, needed)) {
      throw new AppError(
        "forbidden",
        `This needs the ${needed} role; your operator is ${caller.role} (docs/api-rules.md#operators).`,
        { role: needed },
      );
    }
    return {
      ...client,
      actor: caller.operatorId ? `operator:${caller.operatorId} (${caller.name})` : actorOf(request.headers),
    };
  }

  async function handle(
    r: Route,
    request: Request,
    client: ClientInfo,
    rawParams: Record<string, string>,
    rawQuery: Record<string, unknown>,
    requestId: string,
  ) {
    if (!r.subject) throw fail.notImplemented();
    if (r.auth === "admin" && !adminToken) throw adminApiOff(r.method, pathOf(request));
    checkAccountHeaders(request.headers);
    const busHeaders = { [requestIdHeader]: requestId };
    // Without a session a key is scoped to the runtime key all players share: it must be a secret.
    const idempotencyKey = takesIdempotencyKey(r) ? idempotencyKeyOf(request.headers, r.auth !== "session") : undefined;

    const tenant = needsTenant(r.auth) ? await auth.tenant(request.headers, busHeaders) : undefined;
    if (tenant) envs.set(request, tenant.envId);
    if (tenant) cors.admit(tenant, request);
    if (tenant) limits.requirePayment(tenant);
    if (r.auth === "admin") client = await adminClient(r, request, client);
    const params = validate(r.params, rawParams, "path");
    const query = validate(r.query, rawQuery, "query");
    const session =
      r.auth === "session"
        ? await auth.session(tenant!, request.headers, (params as { accountId?: string }).accountId, busHeaders)
        : r.auth === "optionalSession"
          ? await auth.optionalSession(tenant!, request.headers, busHeaders)
          : undefined;
    requests.account(request, session?.accountId ?? (params as { accountId?: string }).accountId);
    // Bytes first: a refusal for them, like one for the count, is counted in no quota.
    if (tenant) holds.set(request, answerBytes.enter(session?.accountId, r.operationId));
    if (tenant) places.set(request, await limits.admit(tenant, session));
    const body = r.raw
      ? {
          payload: (await readTextBody(request)) ?? "",
          signature: request.headers.get(r.raw.signatureHeader) ?? undefined,
        }
      : r.body
        ? validate(r.bodyOptional ? r.body.optional() : r.body, await readJsonBody(request))
        : undefined;

    // The service learns how long this gateway waits: an Idempotency-Key's claim lasts as long.
    const routeHeaders = {
      ...busHeaders,
      [timeoutHeader]: String(timeoutMs ?? defaultRequestTimeoutMs),
      ...(idempotencyKey ? { [idempotencyKeyHeader]: idempotencyKey } : {}),
    };
    const message = { session, client, params, query, body };
    const options = { headers: routeHeaders, timeoutMs };
    const send = () =>
      tenant
        ? requestWithTenant(bus, r.subject!, tenant, message, options)
        : requestRoute(bus, r.subject!, message, options);
    const isAdminWrite = r.auth === "admin" && r.method !== "GET";
    const reply = isAdminWrite
      ? await audit.around(r, request, client, params as Record<string, unknown>, send, body)
      : r.auditAccess
        ? await audit.access(r, request, client, params as Record<string, unknown>, send)
        : await send();
    const response = renderReply(r, reply, body, request, requestId);
    // Its real size replaces the estimate, or refuses it (answer-bytes.ts).
    const text = textOf(response);
    holds.get(request)?.settle(text === undefined ? 0 : Buffer.byteLength(text));
    return response;
  }

  /** A route's answer, whatever happens (failures are rendered in the envelope here), counted in the metrics and traffic. */
  return async function serve(
    r: Route,
    request: Request,
    params: unknown,
    query: unknown,
    server: Server<unknown> | null,
  ): Promise<Response> {
    const start = performance.now();
    const requestId = requestIdOf(request.headers);
    // Asked of the socket only by what needs it (per-client limits, idempotency claims, admin checks): a load never does.
    let ip: string | undefined;
    const client = {
      get ip() {
        ip ??= peerOf(request, server, proxies).ip;
        return ip;
      },
    };
    let response: Response;
    try {
      const rawParams = (params ?? {}) as Record<string, string>;
      response = await handle(r, request, client, rawParams, (query ?? {}) as Record<string, unknown>, requestId);
    } catch (err) {
      // A client that hangs up mid-request is routine, not a fault: nobody reads this answer.
      if (request.signal.aborted) log.debug("client disconnected", { requestId, route: r.operationId });
      const closed = fail.invalidRequest([{ path: "body", message: "The client closed the request." }]);
      response = errorResponse(request.signal.aborted ? closed : err, requestId, log);
    } finally {
      places.get(request)?.();
      holds.get(request)?.release();
    }
    const seconds = since(start);
    const series = httpSeries(r, response.status);
    series.requests.inc();
    series.duration.observe(seconds);
    const envId = envs.get(request);
    if (envId) traffic.record(envId, r.operationId, response.status, wasConflict(response), seconds * 1000);
    return response;
  };
}
