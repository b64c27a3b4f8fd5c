import { describe, expect, test } from "bun:test";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

forEachDeployment("operator API", ({ d }) => {
  test("the admin token is required", async () => {
    expect((await call(d, "POST", "/admin/v1/workspaces", { body: { name: "x" } })).status).toBe(401);
    expect(
      (await call(d, "POST", "/admin/v1/workspaces", { key: "wrong-token-wrong-token", body: { name: "x" } })).status,
    ).toBe(401);
  });

  test("workspaces default to free where Stripe billing is on; a plan can be given; bad input is 400", async () => {
    expect((await admin(d, "POST", "/admin/v1/workspaces", { name: "studio" })).body.plan).toBe("free");
    const pro = await admin(d, "POST", "/admin/v1/workspaces", { name: "studio", plan: "pro" });
    expect(pro.status).toBe(201);
    expect(pro.body).toEqual({ workspaceId: expect.stringMatching(/^wsp_/), plan: "pro" });
    expect((await admin(d, "POST", "/admin/v1/workspaces", { name: "x", plan: "platinum" })).status).toBe(400);
    expect((await admin(d, "POST", "/admin/v1/workspaces/wsp_missing/projects", { name: "g" })).status).toBe(404);
    const project = await admin(d, "POST", `/admin/v1/workspaces/${pro.body.workspaceId}/projects`, { name: "game" });
    expect(project.body).toEqual({ projectId: expect.stringMatching(/^prj_/), environments: ["stage", "prod"] });
  });

  test("a runtime key works until revoked, and is refused on the very next request", async () => {
    const t = await newTenant(d);
    expect(t.key).toMatch(/^spk_stage_[A-Za-z0-9]{32}$/);
    const acc = await newAccount(d, t.key);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    const revoked = await admin(d, "DELETE", `/admin/v1/runtime-keys/${t.keyId}`);
    expect(revoked.status).toBe(200);
    const after = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(after.status).toBe(401);
    // The message tells a revoked key from an unknown one, and says what a key looks like.
    expect(after.body.error.message).toContain("revoked");
    const unknown = await call(d, "GET", "/api/v1/runtime-config", { key: `spk_stage_${"x".repeat(32)}` });
    expect([unknown.status, unknown.body.error.code]).toEqual([401, "unauthorized"]);
    expect(unknown.body.error.message).toContain("Authorization: Bearer spk_<env>_");
    expect((await call(d, "POST", "/api/v1/accounts", { key: t.key })).status).toBe(401);
  });

  test("one runtime key by its id: project, environment, label and last use, never the key; an unknown id is 404", async () => {
    const t = await newTenant(d);
    await call(d, "GET", "/api/v1/runtime-config", { key: t.key });
    const one = await admin(d, "GET", `/admin/v1/runtime-keys/${t.keyId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      keyId: t.keyId,
      projectId: t.projectId,
      workspaceId: t.workspaceId,
      environment: "stage",
      label: "t",
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    expect(JSON.stringify(one.body)).not.toContain(t.key);
    await admin(d, "DELETE", `/admin/v1/runtime-keys/${t.keyId}`);
    expect((await admin(d, "GET", `/admin/v1/runtime-keys/${t.keyId}`)).body.revokedAt).toEqual(expect.any(String));
    const missing = await admin(d, "GET", "/admin/v1/runtime-keys/key_missing");
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
  });

  test("keys are per environment: a prod key does not see stage accounts", async () => {
    const t = await newTenant(d);
    const prod = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, {});
    expect(prod.body.runtimeKey).toMatch(/^spk_prod_/);
    const acc = await newAccount(d, t.key);
    expect(
      (await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, { key: prod.body.runtimeKey, session: acc.session }))
        .status,
    ).toBe(401);
  });

  test("the sync policy changes at once for new envelopes; invalid values are 400 and change nothing", async () => {
    const t = await newTenant(d);
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, {
      minRemoteSyncIntervalSeconds: 300,
      syncOnReconnect: false,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      minRemoteSyncIntervalSeconds: 300,
      syncOnReconnect: false,
      forceSyncCooldownSeconds: 10,
    });
    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, { forceSyncCooldownSeconds: 0 })).status,
    ).toBe(400);
    expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, { unknown: 1 })).status).toBe(400);
    const acc = await newAccount(d, t.key);
    expect(acc.created.body.syncPolicy).toMatchObject({
      minRemoteSyncIntervalSeconds: 300,
      syncOnReconnect: false,
      forceSyncCooldownSeconds: 10,
    });
  });

  test("a sync-policy change with no field is 400 naming what to send, writes nothing and leaves no audit entry", async () => {
    const t = await newTenant(d);
    const before = await admin(d, "GET", `/admin/v1/projects/${t.projectId}/sync-policy`);
    const empty = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, {});
    expect([empty.status, empty.body.error.code]).toEqual([400, "invalid_request"]);
    expect(JSON.stringify(empty.body.error.details)).toContain("at least one field");
    expect((await admin(d, "GET", `/admin/v1/projects/${t.projectId}/sync-policy`)).body).toEqual(before.body);
    const audit = await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}`);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).not.toContain("adminSetSyncPolicy");
  });

  test("suspend refuses the account's sessions with 403 at once; unsuspend restores them", async () => {
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key, { slot: { slotId: "s", data: { v: 1 } } });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect((await admin(d, "POST", `/admin/v1/accounts/${acc.accountId}/suspend`)).body).toEqual({
      accountId: acc.accountId,
      status: "suspended",
    });
    const blocked = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
      body: { baseVersion: 1, data: { v: 2 } },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe("account_suspended");
    await admin(d, "POST", `/admin/v1/accounts/${acc.accountId}/unsuspend`);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      version: 1,
      data: { v: 1 },
    });
    expect((await admin(d, "POST", "/admin/v1/accounts/acc_missing/suspend")).status).toBe(404);
  });

  test("the operator view pages through every slot generation and says how many there are", async () => {
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key);
    for (let i = 0; i < 5; i++) {
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "g", data: { i } } })).status,
      ).toBe(201);
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/g/archive")).status).toBe(200);
    }
    const pages = [];
    for (const offset of [0, 2, 4])
      pages.push(await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}?offset=${offset}&limit=2`));
    expect(pages.map((p) => p.body.slots.length)).toEqual([2, 2, 1]);
    expect(pages.every((p) => p.body.page.slotCount === 5)).toBe(true);
    expect(
      new Set(
        pages.flatMap((p) =>
          p.body.slots.map((s: { createdAt: string; updatedAt: string }) => s.updatedAt + s.createdAt),
        ),
      ).size,
    ).toBe(5);
    expect((await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}?limit=500`)).status).toBe(400);
  });

  test("the operator view shows archived slots and sessions, never a token or payload", async () => {
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key, {
      playerRef: "p9",
      slot: { slotId: "a", slotInfo: { lvl: 2 }, data: { secret: "slot data" } },
    });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/a/archive");
    const view = await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`);
    expect(view.status).toBe(200);
    expect(view.body.account).toMatchObject({
      accountId: acc.accountId,
      projectId: t.projectId,
      environment: "stage",
      status: "active",
      playerRef: "p9",
    });
    expect(view.body.slots).toEqual([
      { slotId: "a", status: "archived", version: 1, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    expect(view.body.sessions).toEqual([
      { sessionId: expect.stringMatching(/^ses_/), createdAt: expect.any(String), lastUsedAt: expect.any(String) },
    ]);
    expect(view.body.page).toEqual({ offset: 0, limit: 100, slotCount: 1, sessionCount: 1 });
    const text = JSON.stringify(view.body);
    expect(text).not.toContain(acc.session);
    expect(text).not.toContain("slot data");
  });
});

test("the admin API is off (404) when SAVEPOINT_ADMIN_TOKEN is unset", async () => {
  const d = await startEmbedded({ SAVEPOINT_ADMIN_TOKEN: "" });
  try {
    const a = await call(d, "POST", "/admin/v1/workspaces", { key: "anything-anything", body: { name: "x" } });
    expect(a.status).toBe(404);
    // Each answer names its path and says how to turn the admin API on, in the error envelope.
    for (const [method, path] of [
      ["POST", "/admin/v1/workspaces"],
      ["GET", "/admin"],
      ["GET", "/admin/v1/nothing"],
      ["GET", "/console"],
      ["GET", "/console/sign-in"],
    ]) {
      const off = await call(d, method!, path!, {
        key: "anything-anything",
        ...(method === "POST" ? { body: { name: "x" } } : {}),
      });
      expect([path, off.status, off.body.error.code]).toEqual([path, 404, "not_found"]);
      expect(off.body.error.message).toContain(path);
      expect(off.body.error.message).toContain("SAVEPOINT_ADMIN_TOKEN");
      expect(off.body.error.details).toMatchObject({ path, adminApi: "off" });
    }
    // Another path's 404 does not send anyone looking for the admin token.
    const typo = await call(d, "GET", "/api/v1/acounts", {});
    expect(typo.body.error.message).not.toContain("SAVEPOINT_ADMIN_TOKEN");
  } finally {
    await d.stop();
  }
});

describe("the default plan fits who runs the server", () => {
  const plansOf = async (env: Record<string, string>) => {
    const d = await startEmbedded(env);
    try {
      return (await admin(d, "POST", "/admin/v1/workspaces", { name: "studio" })).body.plan;
    } finally {
      await d.stop();
    }
  };

  test("self_hosted without Stripe billing, free with it, SAVEPOINT_DEFAULT_PLAN when set", async () => {
    expect(await plansOf({ STRIPE_WEBHOOK_SECRET: "" })).toBe("self_hosted");
    expect(await plansOf({})).toBe("free");
    expect(await plansOf({ SAVEPOINT_DEFAULT_PLAN: "starter" })).toBe("starter");
  });

  test("a default plan that is not in the catalog stops start-up, naming the variable", async () => {
    await expect(startEmbedded({ SAVEPOINT_DEFAULT_PLAN: "platinum" })).rejects.toThrow(/SAVEPOINT_DEFAULT_PLAN/);
  });
});
