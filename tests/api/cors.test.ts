import { expect, test } from "bun:test";
import { join } from "node:path";
import { openApiDocument } from "../../services/gateway/openapi.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { needsTenant } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

// docs/using-the-api.md#browser-games-cors.
const game = "https://game.example.com";
const elsewhere = "https://elsewhere.example.net";
const requestHeaders = [
  "authorization",
  "content-type",
  "x-service-account-session",
  "x-service-account-id",
  "x-persistly-account-session",
  "x-persistly-account-id",
  "idempotency-key",
  "if-none-match",
];
const exposedHeaders = [
  "etag",
  "retry-after",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "x-request-id",
  "idempotent-replayed",
  "date",
];
const list = (value: string | null) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** The free plan allows 2 stage requests a minute here (a burst of 4): a counted preflight would show at once. */
const plansFile = join(tempDir("cors-plans"), "plans.json");
await Bun.write(
  plansFile,
  JSON.stringify({ ...defaultPlans, free: { ...defaultPlans.free, perMinute: { prod: 2, stage: 2 } } }),
);

forEachDeployment("CORS", { env: { SAVEPOINT_PLANS: plansFile }, timeoutMs: 120_000 }, ({ d }) => {
  const preflight = (path: string, origin = game, headers: Record<string, string> = {}) =>
    d.request(path, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-service-account-session",
        ...headers,
      },
    });
  const expectCors = (what: string, res: { headers: Headers }, origin = game) => {
    expect([what, res.headers.get("access-control-allow-origin")]).toEqual([what, origin]);
    expect([what, list(res.headers.get("access-control-expose-headers"))]).toEqual([
      what,
      expect.arrayContaining(exposedHeaders),
    ]);
    expect([what, list(res.headers.get("vary"))]).toEqual([what, expect.arrayContaining(["origin"])]);
  };
  const settings = (projectId: string, body: unknown) =>
    admin(d, "PUT", `/admin/v1/projects/${projectId}/settings`, body);

  test("a preflight on any runtime path is answered 204 without credentials, with the origin, methods, headers and max age", async () => {
    for (const path of [
      "/api/v1/accounts",
      "/api/v1/accounts/acc_x/slots/main/sync",
      "/api/v1/runtime-config",
      "/healthz",
      "/api/v1/not-a-route",
    ]) {
      for (const origin of [game, elsewhere]) {
        const res = await preflight(path, origin);
        expect([path, res.status, await res.text()]).toEqual([path, 204, ""]);
        expect([path, res.headers.get("access-control-allow-origin")]).toEqual([path, origin]);
        expect([path, list(res.headers.get("access-control-allow-methods"))]).toEqual([
          path,
          expect.arrayContaining(["get", "post", "delete"]),
        ]);
        expect([path, list(res.headers.get("access-control-allow-headers"))]).toEqual([
          path,
          expect.arrayContaining(requestHeaders),
        ]);
        expect([path, Number(res.headers.get("access-control-max-age"))]).toEqual([path, expect.any(Number)]);
        expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
        expect([path, list(res.headers.get("vary"))]).toEqual([path, expect.arrayContaining(["origin"])]);
      }
    }
    // The brand's SDK may send its diagnostic headers (X-Persistly-SDK, ...): whichever it asks for are allowed.
    const sdk = await preflight("/api/v1/accounts", game, {
      "access-control-request-headers": "content-type,x-persistly-sdk,x-persistly-platform,x-other",
    });
    expect(list(sdk.headers.get("access-control-allow-headers"))).toEqual(
      expect.arrayContaining(["x-persistly-sdk", "x-persistly-platform"]),
    );
    expect(list(sdk.headers.get("access-control-allow-headers"))).not.toContain("x-other");
  });

  test("the admin API, the webhook, /metrics and /docs never carry CORS headers, not even to a preflight", async () => {
    const { projectId } = await newTenant(d);
    const paths = [
      "/admin/v1/workspaces",
      `/admin/v1/projects/${projectId}/settings`,
      "/webhooks/stripe",
      "/metrics",
      "/docs",
      "/openapi.json",
    ];
    for (const path of paths) {
      const answers = [
        await preflight(path),
        await call(d, "GET", path, { headers: { origin: game } }),
        await call(d, "POST", path, {
          headers: { origin: game, authorization: "Bearer test-admin-token-0123456789" },
          body: { name: "cors" },
        }),
      ];
      for (const res of answers) {
        const cors = [...res.headers.keys()].filter((h) => h.startsWith("access-control-"));
        expect([path, res.status, cors]).toEqual([path, res.status, []]);
      }
    }
  });

  test("every runtime answer to a request with Origin carries Allow-Origin, Expose-Headers and Vary: successes and errors alike", async () => {
    const { key } = await newTenant(d);
    const origin = { origin: game };
    const answers = {
      "healthz 200": await call(d, "GET", "/healthz", { headers: origin }),
      "create 201": await call(d, "POST", "/api/v1/accounts", { key, headers: origin, body: {} }),
      "runtime-config 200": await call(d, "GET", "/api/v1/runtime-config", { key, headers: origin }),
      "no key 401": await call(d, "GET", "/api/v1/runtime-config", { headers: origin }),
      "unknown route 404": await call(d, "GET", "/api/v1/nothing-here", { key, headers: origin }),
      "wrong method 405": await call(d, "PUT", "/api/v1/accounts", { key, headers: origin }),
      "bad body 400": await call(d, "POST", "/api/v1/accounts", { key, headers: origin, raw: "{nope" }),
    };
    expect(Object.entries(answers).map(([what, a]) => [what, a.status])).toEqual(
      Object.keys(answers).map((what) => [what, Number(what.split(" ").at(-1))]),
    );
    for (const [what, res] of Object.entries(answers)) expectCors(what, res);
    // A browser page can read the ETag only because it is exposed; sending it back is a 304, still with CORS.
    const etag = answers["runtime-config 200"].headers.get("etag")!;
    const again = await call(d, "GET", "/api/v1/runtime-config", {
      key,
      headers: { ...origin, "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expectCors("304", again);
  });

  test("preflights are counted in no quota, even when they carry a runtime key; a 429 still carries CORS headers", async () => {
    const { key } = await newTenant(d, "free");
    await awayFromWindowEnd(60);
    for (let i = 0; i < 10; i++) {
      const res = await preflight("/api/v1/runtime-config", game, i % 2 ? { authorization: `Bearer ${key}` } : {});
      expect(res.status).toBe(204);
    }
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await call(d, "GET", "/api/v1/runtime-config", { key, headers: { origin: game } });
      statuses.push(last.status);
    }
    // 2 a minute with a burst of twice that: 4 admitted, then refused.
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect(last!.body.error.code).toBe("rate_limited");
    expectCors("429", last!);
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  test("settings: allowedOrigins must be origins, is shown, kept when left out and replaced whole", async () => {
    const { projectId } = await newTenant(d);
    expect((await settings(projectId, {})).body.allowedOrigins).toEqual({});
    const bad = [
      { stage: [`${game}/`] },
      { stage: [`${game}/play`] },
      { stage: ["game.example.com"] },
      { stage: ["null"] },
      { stage: ["*"] },
      { stage: [`${game}:443`] },
      { stage: ["https://Game.example.com"] },
      { stage: [`${game}?x=1`] },
      { prod: "https://game.example.com" },
      { dev: [game] },
    ];
    for (const allowedOrigins of bad) {
      const res = await settings(projectId, { allowedOrigins });
      expect([allowedOrigins, res.status, res.body.error?.code]).toEqual([allowedOrigins, 400, "invalid_request"]);
      expect(JSON.stringify(res.body.error.details.issues)).toContain("allowedOrigins");
    }
    expect((await settings(projectId, {})).body.allowedOrigins).toEqual({});

    const set = await settings(projectId, {
      allowedOrigins: { stage: [game, "http://localhost:5173", "http://[::1]:8080"] },
    });
    expect([set.status, set.body.allowedOrigins]).toEqual([
      200,
      { stage: [game, "http://localhost:5173", "http://[::1]:8080"] },
    ]);
    const other = await settings(projectId, { transferCodeTtlSeconds: 300 });
    expect([other.body.transferCodeTtlSeconds, other.body.allowedOrigins]).toEqual([
      300,
      { stage: [game, "http://localhost:5173", "http://[::1]:8080"] },
    ]);
    const replaced = await settings(projectId, { allowedOrigins: { prod: [elsewhere] } });
    expect(replaced.body.allowedOrigins).toEqual({ prod: [elsewhere] });
  });

  test("a restricted environment refuses another origin 403 origin_not_allowed before anything is done; others keep working", async () => {
    const t = await newTenant(d);
    const prodKey = (
      await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, { label: "prod" })
    ).body.runtimeKey as string;
    const acc = await newAccount(d, t.key);
    const slot = (slotId: string, origin?: string) =>
      acc.call("POST", "/api/v1/accounts/{acc}/slots", {
        body: { slotId, data: { from: origin ?? "none" } },
        headers: origin ? { origin } : {},
      });
    const slotIds = async () =>
      (await acc.call("GET", "/api/v1/accounts/{acc}/slots")).body.slots
        .map((s: { slotId: string }) => s.slotId)
        .sort();
    expect((await settings(t.projectId, { allowedOrigins: { stage: [game] } })).status).toBe(200);

    const refused = await slot("refused", elsewhere);
    expect([refused.status, refused.body.error?.code]).toEqual([403, "origin_not_allowed"]);
    expect(refused.body.error.message).toContain(elsewhere);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(list(refused.headers.get("vary"))).toContain("origin");
    expect(await slotIds()).toEqual([]);
    // A read is refused too, and a preflight, which carries no key, is still answered.
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots", { headers: { origin: elsewhere } })).status).toBe(
      403,
    );
    const pre = await preflight("/api/v1/accounts/x/slots", elsewhere);
    expect([pre.status, pre.headers.get("access-control-allow-origin")]).toEqual([204, elsewhere]);

    const allowed = await slot("allowed", game);
    expect(allowed.status).toBe(201);
    expectCors("allowed", allowed);
    expect((await slot("native")).status).toBe(201);
    expect(await slotIds()).toEqual(["allowed", "native"]);

    // prod was left out: any origin.
    const prod = await call(d, "POST", "/api/v1/accounts", { key: prodKey, headers: { origin: elsewhere }, body: {} });
    expect(prod.status).toBe(201);
    expectCors("prod", prod, elsewhere);

    // An empty list allows no browser origin, only clients that send none.
    expect((await settings(t.projectId, { allowedOrigins: { stage: [] } })).body.allowedOrigins).toEqual({ stage: [] });
    expect((await slot("empty", game)).body.error?.code).toBe("origin_not_allowed");
    expect((await slot("none-sent")).status).toBe(201);
    expect(await slotIds()).toEqual(["allowed", "native", "none-sent"]);

    // Lifting the restriction works at once, on every gateway.
    expect((await settings(t.projectId, { allowedOrigins: {} })).body.allowedOrigins).toEqual({});
    expect((await slot("lifted", elsewhere)).status).toBe(201);
  });
});

test("the OpenAPI document lists 403 on every runtime route, which may refuse an origin, and on no admin route that did not", () => {
  const doc = openApiDocument(allRoutes);
  for (const r of allRoutes) {
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const op = paths[r.path.replace(/:(\w+)/g, "{$1}")]![r.method.toLowerCase()]!;
    expect([r.operationId, "403" in op.responses]).toEqual([
      r.operationId,
      needsTenant(r.auth) || (r.errors as readonly number[]).includes(403),
    ]);
  }
});
