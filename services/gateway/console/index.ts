import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Bus } from "../../../shared/bus/port.ts";
import { callEndpoint } from "../../../shared/serving/call.ts";
import { internal } from "../../../shared/contract/internal.ts";
import { requestIdOf } from "../request-id.ts";
import { ApiError, type Ctx, type Handler, type View, redirect } from "./context.ts";
import { html, page } from "./html.ts";
import { consoleKeys, cookieName, cookieOf, preCookieName, sessionSeconds, setCookie } from "./session.ts";
import { tenancyPages } from "./pages-tenancy.ts";
import { configPages } from "./pages-config.ts";
import { playerPages } from "./pages-players.ts";
import { opsPages } from "./pages-ops.ts";

/** Every byte the console serves is here or in node_modules: no CDN (README, Console). */
const assets: Record<string, { type: string; bytes: Uint8Array<ArrayBuffer> }> = {
  "console.css": { type: "text/css; charset=utf-8", bytes: new Uint8Array(readFileSync(join(import.meta.dir, "console.css"))) },
  "htmx.min.js": {
    type: "text/javascript; charset=utf-8",
    bytes: new Uint8Array(readFileSync(join(import.meta.dir, "..", "..", "..", "node_modules", "htmx.org", "dist", "htmx.min.js"))),
  },
};
const gzipped = new Map<string, Uint8Array<ArrayBuffer>>();

const csp = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";
const htmlHeaders = (request: Request, extra: Record<string, string> = {}) => ({
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": csp,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-request-id": requestIdOf(request.headers),
  ...extra,
});

function compress(request: Request, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>, status = 200, key?: string): Response {
  if (!/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(body, { status, headers });
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const zipped = key ? (gzipped.get(key) ?? gzipped.set(key, Bun.gzipSync(bytes)).get(key)!) : Bun.gzipSync(bytes);
  return new Response(zipped, { status, headers: { ...headers, "content-encoding": "gzip", vary: "accept-encoding" } });
}

/**
 * The operator console at /console (README, Console): server-rendered pages over the admin API. It is
 * on only with the admin API. A page calls the admin routes through `handle`, the gateway's own path,
 * so the console can do nothing the API and CLI cannot, and its changes are in the audit log.
 */
export function consoleRoutes(adminToken: string | undefined, handle: (request: Request) => Promise<Response>, bus: Bus, now: () => number = Date.now) {
  const app = new Elysia();
  if (!adminToken) return app;
  const keys = consoleKeys(adminToken, now);

  const api = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, "x-savepoint-actor": "console" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await handle(new Request(`http://console.internal${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed as any };
  };

  const render = (request: Request, view: View, csrf?: string, status = 200) => {
    const url = new URL(request.url);
    const messages = { notice: view.notice ?? url.searchParams.get("notice"), error: view.error ?? url.searchParams.get("error") };
    const text = page(view.title, view.body, { csrf, ...messages });
    return compress(request, text, htmlHeaders(request), status);
  };
  const refuse = (request: Request, status: number, message: string) => render(request, { title: "Refused", body: html`<p>${message}</p>` }, undefined, status);

  function serve(method: "GET" | "POST", path: string, handler: Handler) {
    app.route(method, path, async ({ request, params }) => {
      const session = keys.session(cookieOf(request, cookieName));
      const sid = session && !(await callEndpoint(bus, internal.consoleSignedOut, { sid: session.sid })).signedOut ? session.sid : undefined;
      if (!sid) return method === "GET" ? redirect("/console/sign-in") : refuse(request, 401, "Your console session has ended. Sign in again.");
      const form = method === "POST" ? new URLSearchParams(await request.text()) : new URLSearchParams();
      if (method === "POST" && !keys.checkCsrf(sid, form.get("_csrf"))) {
        return refuse(request, 403, "This form is not from this console session (CSRF token missing or wrong).");
      }
      const csrf = keys.csrfOf(sid);
      const ctx: Ctx = { request, url: new URL(request.url), params: params as Record<string, string>, csrf, form, api };
      try {
        const out = await handler(ctx);
        return out instanceof Response ? out : render(request, out, csrf);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return render(request, { title: "Not available", body: html`<p><a href="/console">Back to the console</a>
</p>`, error: err.message }, csrf, err.answer.status);
      }
    }, { parse: "none" });
  }

  app.get("/console/assets/:name", ({ request, params }) => {
    const asset = assets[params.name];
    if (!asset) return new Response("not found", { status: 404 });
    return compress(request, asset.bytes, { "content-type": asset.type, "cache-control": "public, max-age=3600" }, 200, params.name);
  });

  app.get("/console/sign-in", ({ request }) => {
    const pre = keys.issue(now() + 3600_000);
    const body = html`<form method="post" action="/console/sign-in"><input type="hidden" name="_csrf" value="${keys.csrfOf(keys.verify(pre)!)}">
<label for="token">Admin token</label>
<p class="field-help" id="token-help">SAVEPOINT_ADMIN_TOKEN. It is checked once and never kept in the page or the browser.</p>
<input id="token" name="token" type="password" autocomplete="current-password" required aria-describedby="token-help" size="40">
<p><button type="submit">Sign in</button></p></form>`;
    const text = page("Sign in", body, { error: new URL(request.url).searchParams.get("error") });
    return new Response(text, { headers: htmlHeaders(request, { "set-cookie": setCookie(request, preCookieName, pre, 3600) }) });
  });

  app.post("/console/sign-in", async ({ request }) => {
    const form = new URLSearchParams(await request.text());
    const pre = cookieOf(request, preCookieName);
    const preSid = keys.verify(pre);
    if (!preSid || !keys.checkCsrf(preSid, form.get("_csrf"))) {
      return refuse(request, 403, "This sign-in form is not from this browser (CSRF token missing or wrong).");
    }
    if (!keys.tokenMatches(form.get("token") ?? "")) return redirect("/console/sign-in", { error: "That is not the admin token." });
    const res = redirect("/console/workspaces");
    res.headers.append("set-cookie", setCookie(request, cookieName, keys.issue(), sessionSeconds));
    res.headers.append("set-cookie", setCookie(request, preCookieName, "", 0));
    return res;
  }, { parse: "none" });

  serve("POST", "/console/sign-out", async ({ request }) => {
    const session = keys.session(cookieOf(request, cookieName))!;
    await callEndpoint(bus, internal.consoleSignOut, session);
    const res = redirect("/console/sign-in");
    res.headers.append("set-cookie", `${cookieName}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`);
    return res;
  });
  serve("GET", "/console", async () => redirect("/console/workspaces"));
  for (const [method, path, handler] of [...tenancyPages, ...configPages, ...playerPages, ...opsPages]) serve(method, path, handler);
  return app;
}
