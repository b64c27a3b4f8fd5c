import type { Server } from "bun";
import { Elysia } from "elysia";
import { type Bus, defaultRequestTimeoutMs, requestIdHeader } from "../../shared/bus/port.ts";
import { AppError, fail } from "../../shared/contract/errors.ts";
import { type BackupStatus, operationsRoutes } from "../../shared/contract/operations.ts";
import { needsTenant, type Route, roleAllows, takesIdempotencyKey } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import type { ClientInfo } from "../../shared/contract/tenant.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { metrics, metricsContentType, renderMetrics, since } from "../../shared/observe/metrics.ts";
import { checkReadiness } from "../../shared/process/readiness.ts";
import { requestRoute } from "../../shared/serving/call.ts";
import { idempotencyKeyHeader, timeoutHeader } from "../../shared/serving/idempotency.ts";
import { serviceNames } from "../registry.ts";
import { checkAccountHeaders } from "./account-headers.ts";
import { createAdminFailures } from "./admin-failures.ts";
import { type AnswerBytesOptions, type AnswerHold, createAnswerBytes } from "./answer-bytes.ts";
import { actorOf, createAudit } from "./audit.ts";
import { createAuth } from "./auth.ts";
import { readJsonBody, readTextBody } from "./body.ts";
import { createClaims } from "./claims.ts";
import { consoleRoutes } from "./console/index.ts";
import { createCors } from "./cors.ts";
import { docsRoutes } from "./docs.ts";
import { createDrain, type Drain } from "./drain.ts";
import { errorResponse } from "./errors.ts";
import { refuseBadHost } from "./host.ts";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import { createLimits } from "./limits.ts";
import { adminApiOff, index, pathOf, routeNotFound } from "./not-found.ts";
import { peerOf } from "./peer.ts";
import { json, renderReply, textOf, wasConflict } from "./reply.ts";
import { requestIdOf } from "./request-id.ts";
import { createRequestLog, type RequestLogMode } from "./request-log.ts";
import { type Surface, servesConsole, servesDocs, servesMetrics, servesRoute } from "./surface.ts";
import { requestWithTenant } from "./tenant-ref.ts";
import { hsts } from "./tls.ts";
import { createTraffic } from "./traffic.ts";
import { validate } from "./validate.ts";

export interface GatewayOptions {
  bus: Bus;
  log: Logger;
  /** Turns the admin API on. */
  adminToken?: string;
  /** How long a bus request may take before the answer is 504. */
  timeoutMs?: number;
  /** Peers whose X-Forwarded-For names the client (SAVEPOINT_TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** Set while the gateway stops (drain.ts). */
  drain?: Drain;
  /** How long a runtime request waits for billing to grant a limit's units (claims.ts, SAVEPOINT_CLAIM_DEADLINE_MS). */
  claimDeadlineMs?: number;
  /** Failed admin tokens a client IP may send in a minute (admin-failures.ts). */
  adminFailuresPerMinute?: number;
  /** What this listener serves (surface.ts); "all" unless SAVEPOINT_ADMIN_ADDRESS splits it in two. */
  surface?: Surface;
  /** The clock session expiry is judged on: the services' own in one process (tests move it). */
  now?: () => Date;
  /** Bytes of answers in flight at once, in this copy and per account (answer-bytes.ts). */
  answerBytes?: AnswerBytesOptions;
  /** The embedded server's scheduled backups, shown in /readyz (services/backup-schedule.ts). */
  backups?: () => BackupStatus;
  /** Which requests get a log line (request-log.ts, SAVEPOINT_REQUEST_LOG); "all" unless set. */
  requestLog?: RequestLogMode;
  /** Served over TLS (tls.ts, SAVEPOINT_TLS_CERT): URLs are https, and every answer carries HSTS. */
  tls?: boolean;
  /** How often this copy adds its dashboard counts to the shared series (traffic.ts, SAVEPOINT_TRAFFIC_FLUSH_MS). */
  trafficFlushMs?: number;
}

/**
 * The HTTP edge. Every route runs the same steps: authenticate, validate params, query and body with
 * the route's zod schemas, send one bus request, map the answer. No business rules live here.
 */
export function createGateway(options: GatewayOptions) {
  const {
    bus,
    log,
    adminToken,
    timeoutMs,
    trustedProxies = [],
    drain = createDrain(),
    surface = "all",
    adminFailuresPerMinute,
    now,
  } = options;
  const answerBytes = createAnswerBytes(options.answerBytes ?? { total: 64 * 1_048_576, perAccount: 4 * 1_048_576 });
  // A request's share of the bytes of answers in flight, held until its answer is handed to the server.
  const holds = new WeakMap<Request, AnswerHold>();
  const auth = createAuth(bus, adminToken, timeoutMs, now);
  const proxies = new Set(trustedProxies);
  const limits = createLimits(createClaims(bus, log, { deadlineMs: options.claimDeadlineMs, timeoutMs }));
  const cors = createCors();
  const requests = createRequestLog(log, options.requestLog);
  const audit = createAudit(bus, log, timeoutMs);
  // The dashboard's counts by environment: a request's environment is known once its key is.
  const traffic = createTraffic(bus, log, options.trafficFlushMs);
  const envs = new WeakMap<Request, string>();
  // A request's place among its account's requests in flight, held until its answer is ready.
  const places = new WeakMap<Request, () => void>();
  // Its own claims: failed admin tokens are counted apart from the runtime limits' windows.
  const checkAdmin = createAdminFailures(
    createClaims(bus, log, { deadlineMs: options.claimDeadlineMs, timeoutMs }),
    adminFailuresPerMinute,
  );
  // Probes come every few seconds from every balancer: one round of questions a second is enough.
  let lastReadiness: { at: number; state: Promise<Awaited<ReturnType<typeof checkReadiness>>> } | undefined;
  const readiness = () => {
    if (!lastReadiness || Date.now() - lastReadiness.at > 1_000)
      lastReadiness = { at: Date.now(), state: checkReadiness(bus, serviceNames) };
    return lastReadiness.state;
  };

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

  // Routed on the real path: the URL is cut where the path starts, whatever the Host (host.ts).
  const badHost = refuseBadHost(log, options.tls);
  /** Every answer's last step: HSTS over TLS, then the request's log line. */
  const finish = (request: Request, route: string | undefined, response: Response) => {
    if (options.tls) response.headers.set("strict-transport-security", hsts);
    requests.finish(request, route, response);
    return response;
  };
  // Over TLS Elysia's standard cut of the URL applies (host.ts says why).
  const app = new Elysia({ handler: { standardHostname: !!options.tls } })
    .onRequest(({ request, set }) => {
      requests.start(request);
      if (options.tls) set.headers["strict-transport-security"] = hsts;
      const refused = badHost({ request });
      return refused && finish(request, undefined, refused);
    })
    // Before every route, so each one's answer passes here, the API document's included.
    .mapResponse(({ request, response, route }) => {
      if (!(response instanceof Response)) return;
      if (drain.state.draining) response.headers.set("connection", "close");
      finish(request, route, response);
    })
    .use(cors.plugin)
    .use(servesDocs(surface) ? docsRoutes([...allRoutes, ...Object.values(operationsRoutes)]) : new Elysia())
    .get("/healthz", ({ request }) => json(200, { ok: true }, requestIdOf(request.headers)))
    .use(
      servesDocs(surface)
        ? new Elysia().get("/", ({ request }) => json(200, index, requestIdOf(request.headers)))
        : new Elysia(),
    )
    .get("/readyz", async ({ request }) => {
      const backup = options.backups ? { backup: options.backups() } : {};
      const state = drain.state.draining ? { ready: false, draining: true } : { ...(await readiness()), ...backup };
      return json(state.ready ? 200 : 503, state, requestIdOf(request.headers));
    });

  if (servesMetrics(surface))
    app.get("/metrics", () => new Response(renderMetrics(), { headers: { "content-type": metricsContentType } }));

  const methodsByPath = new Map<string, string[]>();
  for (const r of allRoutes as readonly Route[]) {
    if (!r.gatewayOnly && !servesRoute(surface, r)) continue;
    methodsByPath.set(r.path, [...(methodsByPath.get(r.path) ?? []), r.method]);
    if (r.gatewayOnly) continue;
    app.route(
      r.method,
      r.path,
      async ({ request, params, query, server }) => {
        const start = performance.now();
        const response = await answer(r, request, params, query, server);
        const labels = { route: r.operationId, method: r.method, status: response.status };
        metrics.httpRequests.inc(labels);
        const seconds = since(start);
        metrics.httpDuration.observe(labels, seconds);
        const envId = envs.get(request);
        if (envId) traffic.record(envId, r.operationId, response.status, wasConflict(response), seconds * 1000);
        return response;
      },
      { parse: "none" },
    );
  }

  /** A route's answer, whatever happens: failures are rendered in the envelope here. */
  async function answer(
    r: Route,
    request: Request,
    params: unknown,
    query: unknown,
    server: Server<unknown> | null,
  ): Promise<Response> {
    const requestId = requestIdOf(request.headers);
    const client = { ip: peerOf(request, server, proxies).ip };
    try {
      return await handle(
        r,
        request,
        client,
        (params ?? {}) as Record<string, string>,
        (query ?? {}) as Record<string, unknown>,
        requestId,
      );
    } catch (err) {
      // A client that hangs up mid-request is routine, not a fault: nobody reads this answer.
      if (request.signal.aborted) {
        log.debug("client disconnected", { requestId, route: r.operationId });
        return errorResponse(
          fail.invalidRequest([{ path: "body", message: "The client closed the request." }]),
          requestId,
          log,
        );
      }
      return errorResponse(err, requestId, log);
    } finally {
      places.get(request)?.();
      holds.get(request)?.release();
    }
  }
  // A known path with another method is 405 with Allow, not 404.
  for (const [path, methods] of methodsByPath) {
    app.all(
      path,
      ({ request }) => {
        const allow = methods.join(", ");
        const err = new AppError("method_not_allowed", `Use ${allow} on this path.`, { allow: methods });
        return errorResponse(err, requestIdOf(request.headers), log, { allow });
      },
      { parse: "none" },
    );
  }

  // The console calls the admin routes through this same app: every check and the audit log apply. Its
  // sign-in checks the admin token under the same failure limit; it is on the admin listener only.
  const peer = (request: Request, server: Server<unknown> | null) => peerOf(request, server, proxies);
  if (servesConsole(surface))
    app.use(consoleRoutes({ adminToken, handle: (request) => app.handle(request), bus, checkAdmin, peer }));

  // A stopped copy sends no more reports (its bus may be closed by then).
  app.onStop(() => traffic.stop());
  return app.onError(({ code, error, request, route }) => {
    const requestId = requestIdOf(request.headers);
    const response =
      code === "NOT_FOUND"
        ? errorResponse(routeNotFound(request, !!adminToken, servesConsole(surface)), requestId, log)
        : code === "PARSE"
          ? errorResponse(fail.invalidRequest([{ path: "body", message: "Malformed body" }]), requestId, log)
          : errorResponse(error, requestId, log);
    // An unknown path has no template: the line says so rather than repeat what the client typed.
    return finish(request, code === "NOT_FOUND" ? undefined : route, response);
  });
}
export type Gateway = ReturnType<typeof createGateway>;
