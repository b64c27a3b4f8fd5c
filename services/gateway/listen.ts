import type { Env } from "../../shared/process/env.ts";

/**
 * How the gateway listens, for both entry points (`services/main.ts` and `services/gateway/main.ts`).
 *
 * Bun's own `maxRequestBodySize` answers a Content-Length above it with a bare `413` before the app
 * sees the request: no error envelope, no X-Request-Id, and the connection closed. Measured on Bun
 * 1.4.5 over a raw socket: with the limit at 2 MiB, `Content-Length: 3000000` followed by 5 bytes got
 * that bare 413. With the limit raised, the app's own 1 MiB rule (`body.ts`) answers every such
 * request from the header alone, and Bun drains the unread rest and keeps the connection usable.
 * A body the app never reads is not buffered either: 500 MB sent to a route that ignores it left
 * the server's RSS at 28 MiB. So the limit is as high as a declared length can meaningfully go;
 * only a Content-Length above 2^53 (about 9 PB) still gets Bun's bare answer.
 */
const bunBodyLimit = Number.MAX_SAFE_INTEGER;

export const listenOptions = (env: Pick<Env, "HOST" | "PORT">) => ({
  hostname: env.HOST,
  port: env.PORT,
  maxRequestBodySize: bunBodyLimit,
  // Elysia shares ports by default: a second start on a taken port would split the traffic silently.
  reusePort: false,
});

const everyInterface = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The address really bound, and, when that is every interface (which no browser can open), the
 * local URL to click.
 */
export function addresses(host: string, port: number): { url: string; localUrl?: string } {
  const literal = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = `http://${literal}:${port}`;
  return everyInterface.has(host) ? { url, localUrl: `http://localhost:${port}` } : { url };
}

/** Whether `/admin/v1` exists on this start: operators should not have to guess. */
export const adminApi = (env: Pick<Env, "SAVEPOINT_ADMIN_TOKEN">) => (env.SAVEPOINT_ADMIN_TOKEN ? "on" : "off");

/** The gateway's settings from `env`, the same for both entry points. */
export const gatewaySettings = (env: Env) => ({
  adminToken: env.SAVEPOINT_ADMIN_TOKEN,
  timeoutMs: env.SAVEPOINT_BUS_TIMEOUT_MS,
  claimDeadlineMs: env.SAVEPOINT_CLAIM_DEADLINE_MS,
  trustedProxies: env.SAVEPOINT_TRUSTED_PROXIES,
  adminFailuresPerMinute: env.SAVEPOINT_ADMIN_FAILURES_PER_MINUTE,
  requestLog: env.SAVEPOINT_REQUEST_LOG,
  answerBytes: { total: env.SAVEPOINT_ANSWER_BYTES_IN_FLIGHT, perAccount: env.SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT },
});

/** The second listener's options, for the admin API and /metrics (SAVEPOINT_ADMIN_ADDRESS). */
export const adminListenOptions = (address: NonNullable<Env["SAVEPOINT_ADMIN_ADDRESS"]>) => listenOptions({ HOST: address.host, PORT: address.port });
