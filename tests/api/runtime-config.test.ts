import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const path = "/api/v1/runtime-config";
const defaults = {
  minRemoteSyncIntervalSeconds: 60,
  forceSyncCooldownSeconds: 10,
  syncOnAppBackground: true,
  syncOnAppForeground: true,
  syncOnReconnect: true,
  maxQueuedLocalSnapshots: 25,
};

forEachDeployment("runtime config and operator settings", ({ d }) => {
  test("defaults until set: the default sync policy and no game config", async () => {
    const { key } = await newTenant(d);
    const got = await call(d, "GET", path, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ syncPolicy: defaults, gameConfig: { enabled: false, version: 0, sizeBytes: 0 } });
    expect(got.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
  });

  test("a policy change shows at once; a published config is served whole, then unchanged for its version", async () => {
    const t = await newTenant(d);
    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, { minRemoteSyncIntervalSeconds: 300 }))
        .status,
    ).toBe(200);
    expect((await call(d, "GET", path, { key: t.key })).body.syncPolicy).toEqual({
      ...defaults,
      minRemoteSyncIntervalSeconds: 300,
    });

    const data = { levels: [{ id: 1, boss: "slime" }], "a.b": { $x: "é" } };
    const published = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, {
      data,
    });
    expect(published.status).toBe(201);
    const bytes = JSON.stringify(data);
    const checksum = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    expect(published.body).toEqual({
      environment: "stage",
      enabled: true,
      version: 1,
      checksum,
      sizeBytes: Buffer.byteLength(bytes),
      publishedAt: expect.any(String),
    });

    const full = await call(d, "GET", path, { key: t.key });
    expect(full.body.gameConfig).toEqual({
      enabled: true,
      version: 1,
      checksum,
      sizeBytes: Buffer.byteLength(bytes),
      publishedAt: published.body.publishedAt,
      data,
    });
    const same = await call(d, "GET", `${path}?gameConfigVersion=1&_=123`, { key: t.key });
    expect(same.body.gameConfig).toEqual({
      enabled: true,
      unchanged: true,
      version: 1,
      checksum,
      sizeBytes: Buffer.byteLength(bytes),
      publishedAt: published.body.publishedAt,
    });

    await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, {
      data: { levels: [] },
    });
    const newer = await call(d, "GET", `${path}?gameConfigVersion=1`, { key: t.key });
    expect(newer.body.gameConfig).toMatchObject({ version: 2, data: { levels: [] } });
    // prod has its own config: still none.
    const prod = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, {});
    expect((await call(d, "GET", path, { key: prod.body.runtimeKey })).body.gameConfig).toEqual({
      enabled: false,
      version: 0,
      sizeBytes: 0,
    });
  });

  test("ETag and If-None-Match: 304 while nothing changed, 200 with a new ETag after a publish", async () => {
    const t = await newTenant(d);
    await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, { data: { v: 1 } });
    const first = await call(d, "GET", path, { key: t.key });
    const etag = first.headers.get("etag")!;
    const cached = await call(d, "GET", path, { key: t.key, headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(cached.body).toBe("");
    expect(cached.headers.get("etag")).toBe(etag);
    expect(cached.headers.get("x-request-id")).toBeTruthy();
    await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, { data: { v: 2 } });
    const changed = await call(d, "GET", path, { key: t.key, headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  test("a bad gameConfigVersion is 400; a disabled config is enabled false without data", async () => {
    const t = await newTenant(d);
    for (const bad of ["0", "abc", "1.5", "-1"]) {
      const answer = await call(d, "GET", `${path}?gameConfigVersion=${bad}`, { key: t.key });
      expect([bad, answer.status, answer.body.error.code]).toEqual([bad, 400, "invalid_request"]);
    }
    await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, { data: { v: 1 } });
    const off = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, {
      data: { v: 1 },
      enabled: false,
    });
    expect(off.body).toMatchObject({ enabled: false, version: 2 });
    expect((await call(d, "GET", path, { key: t.key })).body.gameConfig).toEqual({
      enabled: false,
      version: 0,
      sizeBytes: 0,
    });
    expect((await call(d, "GET", path)).status).toBe(401);
  });

  test("publishing is atomic: concurrent publishes get their own versions, and every read is one whole version", async () => {
    const t = await newTenant(d);
    const publishes = Array.from({ length: 6 }, (_, i) =>
      admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, {
        data: { writer: i, blob: "x".repeat(20_000 * (i + 1)) },
      }),
    );
    const reads = Array.from({ length: 12 }, () => call(d, "GET", path, { key: t.key }));
    const [done, seen] = await Promise.all([Promise.all(publishes), Promise.all(reads)]);
    expect(done.map((p) => p.body.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const r of seen.filter((x) => x.body.gameConfig.enabled)) {
      const bytes = JSON.stringify(r.body.gameConfig.data);
      expect(r.body.gameConfig.checksum).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
      expect(r.body.gameConfig.sizeBytes).toBe(Buffer.byteLength(bytes));
    }
  });

  test("settings: the transfer-code lifetime cap and rate limits apply to the project at once", async () => {
    const t = await newTenant(d);
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
      transferCodeTtlSeconds: 120,
      rateLimits: { accountCreationsPerIpPerMinute: 2 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      transferCodeTtlSeconds: 120,
      rateLimits: {
        accountCreationsPerIpPerMinute: 2,
        authExchangesPerIpPerMinute: 30,
        sessionRequestsPerMinute: 120,
        transferFailuresPerKeyPerMinute: 60,
        accountConcurrentRequests: 8,
        saveCreationsPerIpPerMinute: 30,
      },
      allowedOrigins: {},
      sessionIdleDays: 180,
    });
    const acc = await newAccount(d, t.key);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { ttlSeconds: 1800 } })).body
        .expiresInSeconds,
    ).toBe(120);
    const ip = { "x-forwarded-for": "10.99.0.1" };
    await awayFromWindowEnd(60);
    const creations = [];
    for (let i = 0; i < 3; i++)
      creations.push(await call(d, "POST", "/api/v1/accounts", { key: t.key, headers: ip, body: {} }));
    expect(creations.map((c) => c.status)).toEqual([201, 201, 429]);
    expect(creations[2]!.body.error).toMatchObject({ code: "rate_limited", details: { limit: 2, windowSeconds: 60 } });
    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { transferCodeTtlSeconds: 59 })).status,
    ).toBe(400);
    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: { nope: 1 } })).status,
    ).toBe(400);
  });

  test("runtime keys are listed by id, label, environment and last use, never the key", async () => {
    const t = await newTenant(d);
    await call(d, "GET", path, { key: t.key });
    const listed = await admin(d, "GET", `/admin/v1/projects/${t.projectId}/runtime-keys`);
    expect(listed.body).toEqual({
      projectId: t.projectId,
      keys: [
        {
          keyId: t.keyId,
          environment: "stage",
          label: "t",
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
      ],
    });
    expect(JSON.stringify(listed.body)).not.toContain(t.key);
    await admin(d, "DELETE", `/admin/v1/runtime-keys/${t.keyId}`);
    expect((await admin(d, "GET", `/admin/v1/projects/${t.projectId}/runtime-keys`)).body.keys[0].revokedAt).toEqual(
      expect.any(String),
    );
  });

  test("operators change a workspace's plan and billing status", async () => {
    const t = await newTenant(d, "free");
    const patched = await admin(d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, {
      plan: "growth",
      billingStatus: "past_due",
    });
    expect(patched.body).toMatchObject({
      workspaceId: t.workspaceId,
      plan: "growth",
      billingStatus: "past_due",
      pastDueSince: expect.any(String),
    });
    const paid = await admin(d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { billingStatus: "active" });
    expect(paid.body.pastDueSince).toBeUndefined();
    expect((await admin(d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { plan: "platinum" })).status).toBe(400);
    expect((await admin(d, "PATCH", "/admin/v1/workspaces/wsp_missing", { plan: "pro" })).status).toBe(404);
  });
});
