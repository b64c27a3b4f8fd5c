import type { Logger } from "../observe/log.ts";
import { metricsContentType, renderMetrics } from "../observe/metrics.ts";

/**
 * A service's operator port (SAVEPOINT_METRICS_PORT): `/metrics` for Prometheus, `/healthz` (the
 * process runs) and `/readyz` (its bus and store answer, and it is not draining). Services have no
 * other HTTP port; the gateway serves the same paths on its own.
 */
export function serveOps(port: number, ready: () => Promise<{ ready: boolean }>, log: Logger) {
  const server = Bun.serve({
    port,
    hostname: "0.0.0.0",
    reusePort: false,
    async fetch(request) {
      // Not `new URL`: a request without a Host header (HTTP/1.0 probes) has no valid URL.
      const pathname = request.url.replace(/^[a-z]+:\/\/[^/]*/i, "").split("?")[0];
      if (pathname === "/metrics")
        return new Response(renderMetrics(), { headers: { "content-type": metricsContentType } });
      if (pathname === "/healthz") return Response.json({ ok: true });
      if (pathname === "/readyz") {
        const state = await ready();
        return Response.json(state, { status: state.ready ? 200 : 503 });
      }
      return Response.json({ error: { code: "not_found", message: "Route was not found." } }, { status: 404 });
    },
  });
  log.info("operator port listening", { port: server.port, paths: ["/metrics", "/healthz", "/readyz"] });
  return server;
}
