import type { Logger } from "../../shared/observe/log.ts";
import type { Env } from "../../shared/process/env.ts";
import type { Gateway } from "./app.ts";
import { readTlsPair, type TlsFiles, warnIfPlainHttp, watchTlsFiles } from "./tls.ts";

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
export function addresses(host: string, port: number, tls = false): { url: string; localUrl?: string } {
  const literal = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const scheme = tls ? "https" : "http";
  const url = `${scheme}://${literal}:${port}`;
  return everyInterface.has(host) ? { url, localUrl: `${scheme}://localhost:${port}` } : { url };
}

/** Whether `/admin/v1` exists on this start: operators should not have to guess. */
export const adminApi = (env: Pick<Env, "SAVEPOINT_ADMIN_TOKEN">) => (env.SAVEPOINT_ADMIN_TOKEN ? "on" : "off");

/** The gateway's settings from `env`, the same for both entry points. */
export const gatewaySettings = (env: Env) => ({
  adminToken: env.SAVEPOINT_ADMIN_TOKEN,
  timeoutMs: env.SAVEPOINT_BUS_TIMEOUT_MS,
  claimDeadlineMs: env.SAVEPOINT_CLAIM_DEADLINE_MS,
  trafficFlushMs: env.SAVEPOINT_TRAFFIC_FLUSH_MS,
  trustedProxies: env.SAVEPOINT_TRUSTED_PROXIES,
  adminFailuresPerMinute: env.SAVEPOINT_ADMIN_FAILURES_PER_MINUTE,
  requestLog: env.SAVEPOINT_REQUEST_LOG,
  tls: tlsFilesOf(env) !== undefined,
  answerBytes: {
    total: env.SAVEPOINT_ANSWER_BYTES_IN_FLIGHT,
    perAccount: env.SAVEPOINT_ACCOUNT_ANSWER_BYTES_IN_FLIGHT,
  },
});

/** The TLS files, when the gateway terminates TLS itself (docs/tls.md). */
export const tlsFilesOf = (env: Pick<Env, "SAVEPOINT_TLS_CERT" | "SAVEPOINT_TLS_KEY">): TlsFiles | undefined =>
  env.SAVEPOINT_TLS_CERT && env.SAVEPOINT_TLS_KEY
    ? { cert: env.SAVEPOINT_TLS_CERT, key: env.SAVEPOINT_TLS_KEY }
    : undefined;

/** A gateway listener: where it is, and how to stop it with the watch of its TLS files. */
export interface Listening {
  port: number;
  url: string;
  localUrl?: string;
  stop(): Promise<void>;
}

/**
 * Listens on `at`, over TLS when `tls` names the files. Bun cannot swap a live listener's certificate
 * (`server.reload` ignores `tls`), so a renewed pair gets a new listener on the same port, sharing it
 * (SO_REUSEPORT) until the old one has stopped taking connections: the port is never closed, and a
 * pair that fails to load leaves the old listener serving. Sharing the port would also let a second
 * start share it silently, so a TLS start first binds the port alone to prove it free.
 */
export function listenGateway(
  app: Gateway,
  at: { HOST: string; PORT: number },
  options: { tls?: TlsFiles; trustedProxies: readonly string[]; log: Logger },
): Listening {
  const { tls, log } = options;
  warnIfPlainHttp(log, { host: at.HOST, tls: !!tls, trustedProxies: options.trustedProxies });
  if (!tls) {
    const port = app.listen(listenOptions(at)).server!.port!;
    return { port, ...addresses(at.HOST, port), stop: async () => void (await app.stop()) };
  }
  const first = readTlsPair(tls);
  if (at.PORT !== 0) Bun.serve({ ...listenOptions(at), fetch: () => new Response() }).stop(true);
  const serve = (port: number, pair: { cert: string; key: string }) =>
    app.listen({
      ...listenOptions({ HOST: at.HOST, PORT: port }),
      reusePort: true,
      tls: { cert: pair.cert, key: pair.key },
    });
  const port = serve(at.PORT, first).server!.port!;
  const unwatch = watchTlsFiles(tls, first, log, (pair) => {
    const old = app.server!;
    serve(port, pair);
    void old.stop();
  });
  return {
    port,
    ...addresses(at.HOST, port, true),
    stop: async () => {
      unwatch();
      await app.stop();
    },
  };
}
