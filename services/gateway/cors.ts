import { Elysia } from "elysia";
import { fail } from "../../shared/contract/errors.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { requestIdOf } from "./request-id.ts";

/** The runtime API, which browser games call from their own origins; nothing else answers CORS. */
const isRuntimePath = (path: string) => path === "/healthz" || path === "/api/v1" || path.startsWith("/api/v1/");
/** A request to the runtime API. One whose Host cannot be a host has no URL to read (host.ts): it is none. */
const isRuntimeRequest = (request: Request) => {
  const url = URL.parse(request.url);
  return url !== null && isRuntimePath(url.pathname);
};

const allowMethods = "GET, POST, PUT, PATCH, DELETE";
const allowHeaders = [
  "Authorization",
  "Content-Type",
  "X-Service-Account-Session",
  "X-Service-Account-ID",
  "X-Persistly-Account-Session",
  "X-Persistly-Account-ID",
  "Idempotency-Key",
  "If-None-Match",
  "X-Request-Id",
];
// Date too: the SDK keeps the offset of the server's clock from it, which a page may read only if exposed.
const exposeHeaders = [
  "ETag",
  "Retry-After",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "X-Request-Id",
  "Idempotent-Replayed",
  "Date",
].join(", ");
/** Chromium keeps a preflight's answer at most 2 hours, whatever is asked. */
const maxAgeSeconds = 7200;

/** The headers a page may send: the API's own, and whichever diagnostic `X-Persistly-*` headers its SDK asks for. */
function allowedRequestHeaders(requested: string | null): string {
  const diagnostics = (requested ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter((h) => /^x-persistly-[a-z0-9-]+$/i.test(h));
  const known = new Set(allowHeaders.map((h) => h.toLowerCase()));
  return [...allowHeaders, ...diagnostics.filter((h) => !known.has(h.toLowerCase()))].join(", ");
}

/**
 * CORS for the runtime API (docs/using-the-api.md#browser-games-cors). It uses no cookies, so it answers any origin
 * unless the project restricts the key's environment. A preflight carries no credentials and cannot
 * tell the environment: it is answered at once, before authentication, and counts nowhere. The
 * restriction applies to the request itself, once its runtime key is known (`admit`).
 */
export function createCors() {
  // Requests refused for their origin: their answer must not let the page read it.
  const refused = new WeakSet<Request>();

  // A preflight is answered before anything else runs.
  const plugin = new Elysia({ name: "cors" }).onRequest(({ request }) => {
    if (request.method !== "OPTIONS" || !isRuntimeRequest(request)) return;
    const origin = request.headers.get("origin");
    const headers: Record<string, string> = {
      vary: "Origin, Access-Control-Request-Headers",
      "access-control-allow-methods": allowMethods,
      "access-control-allow-headers": allowedRequestHeaders(request.headers.get("access-control-request-headers")),
      "access-control-max-age": String(maxAgeSeconds),
      "x-request-id": requestIdOf(request.headers),
    };
    if (origin) headers["access-control-allow-origin"] = origin;
    return new Response(null, { status: 204, headers });
  });

  return {
    plugin,
    /**
     * A runtime answer's CORS headers, the error envelope's included, set on the answer itself: a header
     * given to Elysia's `set` instead makes it copy every response it sends. `route`: the template the
     * request matched, when it matched one.
     */
    decorate(request: Request, response: Response, route?: string): void {
      // The matched route's template says it without parsing the URL again (issue 30).
      const runtime = route ? isRuntimePath(route) : isRuntimeRequest(request);
      if (request.method === "OPTIONS" || !runtime) return;
      const headers = response.headers;
      if (!headers.has("vary")) headers.set("vary", "Origin");
      const origin = request.headers.get("origin");
      if (!origin || refused.has(request)) return;
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-expose-headers", exposeHeaders);
    },
    /** Refuses a request whose Origin the key's environment does not allow, before anything is done. */
    admit(tenant: Tenant, request: Request): void {
      const origin = request.headers.get("origin");
      const allowed = tenant.settings.allowedOrigins[tenant.environment];
      if (origin === null || !allowed || allowed.includes(origin)) return;
      refused.add(request);
      throw fail.originNotAllowed(origin, tenant.environment);
    },
  };
}
