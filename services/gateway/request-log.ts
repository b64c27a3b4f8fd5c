import type { Logger } from "../../shared/observe/log.ts";

/** SAVEPOINT_REQUEST_LOG: a line for every request, for failed ones (status 400 and up) only, or none. */
export const requestLogModes = ["all", "errors", "off"] as const;
export type RequestLogMode = (typeof requestLogModes)[number];

// Balancers ask these every few seconds: their successes would drown the requests people look up.
const probes = new Set(["/healthz", "/readyz", "/metrics"]);

/** Error codes by answer, set where a failure is rendered (errors.ts): the log names the code without reading the body. */
const codes = new WeakMap<Response, string>();
export const markErrorCode = (response: Response, code: string) => void codes.set(response, code);

/**
 * One JSON line per request (docs/operating.md#logs): method, route template (never the raw path, which holds
 * ids and could hold a transfer code), status, milliseconds, the X-Request-Id the client got, the
 * account when known, the error code when it failed. Never a header value, a query or a body: no
 * secret can reach the line through it.
 */
export function createRequestLog(log: Logger, mode: RequestLogMode = "all") {
  const started = new WeakMap<Request, number>();
  const accounts = new WeakMap<Request, string>();
  return {
    /** First hook of every request. */
    start(request: Request): void {
      if (mode !== "off") started.set(request, performance.now());
    },
    /** The account the request acts for, once known. */
    account(request: Request, accountId: string | undefined): void {
      if (accountId && mode !== "off") accounts.set(request, accountId);
    },
    /** Writes the request's line, once, when its answer is ready. */
    finish(request: Request, route: string | undefined, response: Response): void {
      const start = started.get(request);
      if (start === undefined) return;
      started.delete(request);
      const { status } = response;
      if (mode === "errors" && status < 400) return;
      if (route && probes.has(route) && status < 400) return;
      log.info("request", {
        method: request.method,
        route: route ?? null,
        status,
        ms: Math.round((performance.now() - start) * 10) / 10,
        requestId: response.headers.get("x-request-id") ?? undefined,
        accountId: accounts.get(request),
        code: codes.get(response),
      });
    },
  };
}
export type RequestLog = ReturnType<typeof createRequestLog>;
