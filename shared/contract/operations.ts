import { z } from "zod";
import { route } from "./route.ts";

/**
 * The gateway's operator endpoints beside the API: readiness for balancers and Prometheus' scrape.
 * Answered by the gateway itself (no bus request), documented in /openapi.json; not part of the
 * client SDK or the numbered contract routes.
 */
/** The embedded server's scheduled backups (docs/backups.md): times and sizes, never a path or an error's text. */
export const BackupStatus = z
  .object({
    intervalMinutes: z.number(),
    keep: z.number().int(),
    lastAt: z.string().optional().describe("When the newest kept backup finished."),
    lastBytes: z.number().int().optional().describe("Its size in bytes."),
    lastFailureAt: z.string().optional(),
    ok: z.number().int().describe("Backups made since this process started."),
    failed: z.number().int(),
  })
  .meta({ id: "BackupStatus" });
export type BackupStatus = z.infer<typeof BackupStatus>;

export const ReadinessResponse = z
  .object({
    ready: z
      .boolean()
      .describe("Whether a balancer should send requests here: its NATS connection is up and it is not stopping."),
    bus: z.string().optional().describe("`ok`, or `disconnected` while NATS reconnects (then `ready` is false)."),
    degraded: z
      .boolean()
      .optional()
      .describe(
        "True when some service has no copy whose store answers. Still 200: every gateway would see the same, " +
          "and taking all out would turn a partial outage into a whole one.",
      ),
    services: z
      .record(z.string(), z.string())
      .optional()
      .describe("Each service: `ok`, or the error code its readiness question got."),
    draining: z
      .boolean()
      .optional()
      .describe("True while the gateway stops (SIGTERM): it answers 503 so balancers take it out."),
    backup: BackupStatus.optional().describe(
      "With SAVEPOINT_BACKUP_DIR set on the embedded server: its scheduled backups.",
    ),
  })
  .meta({ id: "ReadinessResponse" });

export const MetricsText = z
  .string()
  .meta({ id: "PrometheusText", description: "Prometheus' text exposition format, version 0.0.4." });

const badHost = {
  code: "invalid_request",
  when: "The Host header cannot name a host (answered before any route, on every path).",
} as const;

export const operationsRoutes = {
  readiness: route({
    operationId: "readiness",
    method: "GET",
    path: "/readyz",
    summary: "Readiness for balancers, and each service's state",
    tag: "operations",
    auth: "none",
    gatewayOnly: true,
    ok: [200, ReadinessResponse],
    answers: [{ status: 503, schema: ReadinessResponse, description: "Not ready: stopping, or NATS is down" }],
    errors: [],
    errorCases: [badHost],
    description:
      "200 while the gateway's NATS connection is up and it is not stopping, with each service's state; 503 (same shape) while it drains or " +
      "NATS is down. A service with no copy up makes it `degraded: true`, not unready. Needs no credentials; served on both listeners.",
  }),
  metrics: route({
    operationId: "metrics",
    method: "GET",
    path: "/metrics",
    summary: "Prometheus metrics",
    tag: "operations",
    auth: "none",
    gatewayOnly: true,
    ok: [200, MetricsText],
    contentType: "text/plain; version=0.0.4",
    errors: [],
    errorCases: [badHost],
    description:
      "The gateway's metrics in Prometheus' text format, with no credentials. With SAVEPOINT_ADMIN_ADDRESS set it is served only on that " +
      "address, and the public port answers 404.",
  }),
};
