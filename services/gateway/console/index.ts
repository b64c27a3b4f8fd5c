import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { Elysia } from "elysia";
import type { Bus } from "../../../shared/bus/port.ts";
import { adminClient } from "../../../shared/contract/admin-client.ts";
import { fail, isAppError } from "../../../shared/contract/errors.ts";
import { internal } from "../../../shared/contract/internal.ts";
import type { ResolvedOperator } from "../../../shared/contract/operators.ts";
import { callEndpoint } from "../../../shared/serving/call.ts";
import { sha256Hex } from "../../../shared/util/crypto.ts";
import type { CheckAdmin } from "../admin-failures.ts";
import { consoleOperatorHeader } from "../auth.ts";
import type { Peer } from "../peer.ts";
import { requestIdOf } from "../request-id.ts";
import { ApiError, type Ctx, type Handler, redirect, type View } from "./context.ts";
import { html, page } from "./html.ts";
import { configPages } from "./pages-config.ts";
import { dashboardPages } from "./pages-dashboard.ts";
import { deskPages } from "./pages-desk.ts";
import { operatorPages } from "./pages-operators.ts";
import { opsPages } from "./pages-ops.ts";
import { playerPages } from "./pages-players.ts";
import { policyPages } from "./pages-policy.ts";
import { tenancyPages } from "./pages-tenancy.ts";
import {
  consoleKeys,
  cookieName,
  cookieOf,
  preCookieName,
  sessionSeconds,
  setCookie,
  signInFormSeconds,
} from "./session.ts";
import { signInAudit } from "./sign-in-audit.ts";

/** Every byte the console serves is here or in node_modules: no CDN (docs/console.md). */
const assets: Record<string, { type: string; bytes: Uint8Array<ArrayBuffer> }> = {
  "console.css": {
    type: "text/css; charset=utf-8",
    bytes: new Uint8Array(readFileSync(join(import.meta.dir, "console.css"))),
  },
  "htmx.min.js": {
    type: "text/javascript; charset=utf-8",
    bytes: new Uint8Array(
      readFileSync(join(import.meta.dir, "..", "..", "..", "node_modules", "htmx.org", "dist", "htmx.min.js")),
    ),
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

function compress(
  request: Request,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
  status = 200,
  key?: string,
): Response {
  if (!/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(body, { status, headers });
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const zipped = key ? (gzipped.get(key) ?? gzipped.set(key, Bun.gzipSync(bytes)).get(key)!) : Bun.gzipSync(bytes);
  return new Response(zipped, { status, headers: { ...headers, "content-encoding": "gzip", vary: "accept-encoding" } });
}

/** The only messages the sign-in page shows: a code in its URL picks one (docs/console.md). */
const signInErrors = new Map([["wrong-token", "That is neither the admin token nor a live operator token."]]);

export interface ConsoleOptions {
  adminToken: string | undefined;
  /** The gateway's own route handling, for the admin API. */
  handle: (request: Request) => Promise<Response>;
  bus: Bus;
  /** The gateway's check of the admin token, under the failure limit per client IP (admin-failures.ts). */
  checkAdmin: CheckAdmin;
  peer: (request: Request, server: Server<unknown> | null) => Peer;
  now?: () => number;
}

/**
 * The operator console at /console (docs/console.md): server-rendered pages over the admin API. It is
 * on only with the admin API, and on the admin listener when there is one. A page calls the admin
 * routes through `handle`, the gateway's own path, so the console can do nothing the API and CLI
 * cannot, and its changes are in the audit log.
 */
export function consoleRoutes({ adminToken, handle, bus, checkAdmin, peer, now = Date.now }: ConsoleOptions) {
  const app = new Elysia();
  if (!adminToken) return app;
  const keys = consoleKeys(adminToken, now);
  const signIns = signInAudit(bus);

  // A page acts as its session's operator: the gateway checks that operator's role and names it in the audit log.
  const apiAs = (operatorId: string | undefined) =>
    adminClient(async ({ method, path, body }) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${adminToken}`,
        "x-savepoint-actor": "console",
      };
      if (operatorId) headers[consoleOperatorHeader] = operatorId;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await handle(new Request(`http://console.internal${path}`, { method, headers, body }));
      return { status: res.status, text: await res.text() };
    });

  // A notice or error in a page's URL is shown only with the seal the console put on it for this
  // session when it redirected there: a link from elsewhere cannot make the console say anything.
  const messageText = (q: URLSearchParams) => `notice\n${q.get("notice") ?? ""}\nerror\n${q.get("error") ?? ""}`;
  const sealed = (res: Response, sid: string) => {
    const location = res.headers.get("location");
    if (!location) return res;
    const url = new URL(location, "http://console");
    if (!url.searchParams.has("notice") && !url.searchParams.has("error")) return res;
    url.searchParams.set("seal", keys.sealMessage(sid, messageText(url.searchParams)));
    res.headers.set("location", url.pathname + url.search);
    return res;
  };
  const messagesOf = (request: Request, sid: string | undefined) => {
    const q = new URL(request.url).searchParams;
    return sid && keys.checkMessage(sid, messageText(q), q.get("seal"))
      ? { notice: q.get("notice"), error: q.get("error") }
      : {};
  };

  const render = (
    request: Request,
    view: View,
    opts: { csrf?: string; sid?: string; status?: number; headers?: Record<string, string> } = {},
  ) => {
    const messages = messagesOf(request, opts.sid);
    const text = page(view.title, view.body, {
      csrf: opts.csrf,
      notice: view.notice ?? messages.notice,
      error: view.error ?? messages.error,
    });
    return compress(request, text, htmlHeaders(request, opts.headers), opts.status ?? 200);
  };
  const refuse = (request: Request, status: number, message: string, headers?: Record<string, string>) =>
    render(request, { title: "Refused", body: html`<p>${message}</p>` }, { status, headers });

  function serve(method: "GET" | "POST", path: string, handler: Handler) {
    app.route(
      method,
      path,
      async ({ request, params }) => {
        const session = keys.session(cookieOf(request, cookieName));
        const sid =
          session && !(await callEndpoint(bus, internal.consoleSignedOut, { sid: session.sid })).signedOut
            ? session.sid
            : undefined;
        if (!sid)
          return method === "GET"
            ? redirect("/console/sign-in")
            : refuse(request, 401, "Your console session has ended. Sign in again.");
        const form = method === "POST" ? new URLSearchParams(await request.text()) : new URLSearchParams();
        if (method === "POST" && !keys.checkCsrf("session", sid, form.get("_csrf"))) {
          return refuse(request, 403, "This form is not from this console session (CSRF token missing or wrong).");
        }
        const csrf = keys.csrfOf("session", sid);
        const ctx: Ctx = {
          request,
          url: new URL(request.url),
          params: params as Record<string, string>,
          csrf,
          form,
          api: apiAs(session!.operatorId),
        };
        try {
          const out = await handler(ctx);
          return out instanceof Response ? sealed(out, sid) : render(request, out, { csrf, sid });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // The session's operator was revoked since it signed in: that session has ended.
          if (err.answer.status === 401 && session!.operatorId) return redirect("/console/sign-in");
          return render(
            request,
            {
              title: "Not available",
              body: html`<p><a href="/console">Back to the console</a>
</p>`,
              error: err.message,
            },
            { csrf, sid, status: err.answer.status },
          );
        }
      },
      { parse: "none" },
    );
  }

  app.get("/console/assets/:name", ({ request, params }) => {
    const asset = assets[params.name];
    if (!asset) return new Response("not found", { status: 404, headers: { "x-content-type-options": "nosniff" } });
    const headers = {
      "content-type": asset.type,
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
    };
    return compress(request, asset.bytes, headers, 200, params.name);
  });

  app.get("/console/sign-in", ({ request, server }) => {
    const form = keys.issueSignInForm();
    const body = html`<form method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${keys.csrfOf("sign-in-form", keys.signInForm(form)!)}">
<label for="token">Operator or admin token</label>
<p class="field-help" id="token-help">Your operator token (spo_...), or SAVEPOINT_ADMIN_TOKEN. It is checked once and never kept in the page or the browser.</p>
<input id="token" name="token" type="password" autocomplete="current-password" required aria-describedby="token-help" size="40">
<p><button type="submit">Sign in</button></p></form>`;
    const text = page("Sign in", body, {
      error: signInErrors.get(new URL(request.url).searchParams.get("error") ?? ""),
    });
    const cookie = setCookie(preCookieName, form, signInFormSeconds, peer(request, server).https);
    return new Response(text, { headers: htmlHeaders(request, { "set-cookie": cookie }) });
  });

  // The token is checked like the admin API's (admin-failures.ts): the same count of failures per
  // client IP, across gateway copies, so the console is no way around the limit.
  app.post(
    "/console/sign-in",
    async ({ request, server }) => {
      const form = new URLSearchParams(await request.text());
      const formId = keys.signInForm(cookieOf(request, preCookieName));
      if (!formId || !keys.checkCsrf("sign-in-form", formId, form.get("_csrf"))) {
        return refuse(request, 403, "This sign-in form is not from this browser (CSRF token missing or wrong).");
      }
      const from = peer(request, server);
      const token = form.get("token") ?? "";
      let operator: ResolvedOperator | undefined;
      try {
        operator = await checkAdmin(from.ip, async () => {
          if (token.startsWith("spo_"))
            return callEndpoint(bus, internal.resolveOperator, { tokenHash: sha256Hex(token) });
          if (!keys.tokenMatches(token)) throw fail.unauthorized();
          return undefined;
        });
      } catch (err) {
        if (!isAppError(err)) throw err;
        if (err.code !== "rate_limited") {
          await signIns.record(request, from.ip, undefined);
          return redirect("/console/sign-in", { error: "wrong-token" });
        }
        const retryAfter = String((err.details as { retryAfter?: number } | undefined)?.retryAfter ?? 60);
        return refuse(
          request,
          429,
          `Too many wrong admin tokens from your address: try again in ${retryAfter} seconds.`,
          { "retry-after": retryAfter },
        );
      }
      await signIns.record(request, from.ip, operator ?? null);
      const res = redirect("/console/workspaces");
      res.headers.append(
        "set-cookie",
        setCookie(cookieName, keys.issueSession(undefined, operator?.operatorId), sessionSeconds, from.https),
      );
      res.headers.append("set-cookie", setCookie(preCookieName, "", 0, from.https));
      return res;
    },
    { parse: "none" },
  );

  serve("POST", "/console/sign-out", async ({ request }) => {
    const session = keys.session(cookieOf(request, cookieName))!;
    await callEndpoint(bus, internal.consoleSignOut, session);
    const res = redirect("/console/sign-in");
    res.headers.append("set-cookie", `${cookieName}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`);
    return res;
  });
  const pages = [
    ...dashboardPages,
    ...tenancyPages,
    ...configPages,
    ...policyPages,
    ...playerPages,
    ...deskPages,
    ...opsPages,
    ...operatorPages,
  ];
  for (const [method, path, handler] of pages) serve(method, path, handler);
  return app;
}
