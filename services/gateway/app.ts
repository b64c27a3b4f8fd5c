import type { Server } from "bun";
import { Elysia } from "elysia";
import type { Bus } from "../../shared/bus/port.ts";
import { AppError, fail } from "../../shared/contract/errors.ts";
import { type BackupStatus, operationsRoutes } from "../../shared/contract/operations.ts";
import type { Route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { metricsContentType, renderMetrics } from "../../shared/observe/metrics.ts";
import { checkReadiness } from "../../shared/process/readiness.ts";
import { serviceNames } from "../registry.ts";
import { createAdminFailures } from "./admin-failures.ts";
import type { AnswerBytesOptions } from "./answer-bytes.ts";
import { createAudit } from "./audit.ts";
import { createAuth } from "./auth.ts";
import { createClaims } from "./claims.ts";
import { consoleRoutes } from "./console/index.ts";
import { createCors } from "./cors.ts";
import { docsRoutes } from "./docs.ts";
import { createDrain, type Drain } from "./drain.ts";
import { errorResponse } from "./errors.ts";
import { refuseBadHost } from "./host.ts";
import { createLimits } from "./limits.ts";
import { index, routeNotFound } from "./not-found.ts";
import { peerOf } from "./peer.ts";
import { json } from "./reply.ts";
import { requestIdOf } from "./request-id.ts";
import { createRequestLog, type RequestLogMode } from "./request-log.ts";
import { createRoutePipeline } from "./route-pipeline.ts";
import { type Surface, servesConsole, servesDocs, servesMetrics, servesRoute } from "./surface.ts";
import { hsts } from "./tls.ts";
import { createTraffic } from "./traffic.ts";

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
 * The HTTP edge: the probes, the API document, the console and every route of the route table, each
 * through the same pipeline (route-pipeline.ts). No business rules live here.
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
  const auth = createAuth(bus, adminToken, timeoutMs, now);
  const proxies = new Set(trustedProxies);
  const cors = createCors();
  const requests = createRequestLog(log, options.requestLog);
  const traffic = createTraffic(bus, log, options.trafficFlushMs);
  // Its own claims: failed admin tokens are counted apart from the runtime limits' windows.
  const checkAdmin = createAdminFailures(
    createClaims(bus, log, { deadlineMs: options.claimDeadlineMs, timeoutMs }),
    adminFailuresPerMinute,
  );
  const serve = createRoutePipeline({
    bus,
    log,
    adminToken,
    timeoutMs,
    proxies,
    auth,
    checkAdmin,
    cors,
    requests,
    traffic,
    limits: createLimits(createClaims(bus, log, { deadlineMs: options.claimDeadlineMs, timeoutMs })),
    audit: createAudit(bus, log, timeoutMs),
    answerBytes: options.answerBytes,
  });
  // Probes come every few seconds from every balancer: one round of questions a second is enough.
  let lastReadiness: { at: number; state: Promise<Awaited<ReturnType<typeof checkReadiness>>> } | undefined;
  const readiness = () => {
    if (!lastReadiness || Date.now() - lastReadiness.at > 1_000)
      lastReadiness = { at: Date.now(), state: checkReadiness(bus, serviceNames) };
    return lastReadiness.state;
  };

  // Routed on the real path: the URL is cut where the path starts, whatever the Host (host.ts).
  const badHost = refuseBadHost(log, options.tls);
  /** Every answer's last step: HSTS over TLS, then the request's log line. */
  const finish = (request: Request, route: string | undefined, response: Response) => {
    if (options.tls) response.headers.set("strict-transport-security", hsts);
    cors.decorate(request, response, route);
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
    app.route(r.method, r.path, ({ request, params, query, server }) => serve(r, request, params, query, server), {
      parse: "none",
    });
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
