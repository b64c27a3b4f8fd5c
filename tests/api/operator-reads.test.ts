import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createAuditLog } from "../../services/config/audit.ts";
import type { Deps } from "../../services/config/deps.ts";
import { openRepo } from "../../services/config/repo.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

const as = (d: Deployment, actor: string | undefined, method: string, path: string, body?: unknown): Promise<Answer> =>
  call(d, method, path, { key: adminToken, body, headers: actor ? { "x-savepoint-actor": actor } : {} });

forEachDeployment("operator reads and the audit log", { own: true }, ({ d }) => {
  test("workspaces and projects are listed and read; sync policy and settings read back", async () => {
    const t = await newTenant(d);
    const list = await admin(d, "GET", "/admin/v1/workspaces");
    expect(list.status).toBe(200);
    expect(list.body.workspaces.map((w: { workspaceId: string }) => w.workspaceId)).toContain(t.workspaceId);
    expect((await admin(d, "GET", `/admin/v1/workspaces/${t.workspaceId}`)).body.name).toBe("test");
    const projects = await admin(d, "GET", `/admin/v1/workspaces/${t.workspaceId}/projects`);
    expect(projects.body.projects.map((p: { projectId: string }) => p.projectId)).toEqual([t.projectId]);
    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, { forceSyncCooldownSeconds: 42 })).status,
    ).toBe(200);
    expect((await admin(d, "GET", `/admin/v1/projects/${t.projectId}/sync-policy`)).body.forceSyncCooldownSeconds).toBe(
      42,
    );
    expect((await admin(d, "GET", `/admin/v1/projects/${t.projectId}`)).body.syncPolicy.forceSyncCooldownSeconds).toBe(
      42,
    );
    expect(
      (await admin(d, "GET", `/admin/v1/projects/${t.projectId}/settings`)).body.transferCodeTtlSeconds,
    ).toBeNumber();
    expect((await admin(d, "GET", "/admin/v1/workspaces/wsp_nope")).status).toBe(404);
  });

  test("game config versions are kept; a rollback is a new version that route 2 serves", async () => {
    const t = await newTenant(d);
    const gc = `/admin/v1/projects/${t.projectId}/environments/stage/game-config`;
    expect((await admin(d, "POST", gc, { data: { level: 1 } })).body.version).toBe(1);
    expect((await admin(d, "POST", gc, { data: { level: 2 } })).body.version).toBe(2);
    const versions = await admin(d, "GET", `${gc}/versions`);
    expect(versions.body.activeVersion).toBe(2);
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await admin(d, "GET", `${gc}/versions/1`)).body.data).toEqual({ level: 1 });
    expect((await admin(d, "POST", `${gc}/rollback`, { version: 99 })).status).toBe(404);
    expect((await admin(d, "GET", `${gc}/versions`)).body.activeVersion).toBe(2);
    const rolled = await admin(d, "POST", `${gc}/rollback`, { version: 1 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.version).toBe(3);
    const runtime = await call(d, "GET", "/api/v1/runtime-config", { key: t.key });
    expect(runtime.body.gameConfig).toMatchObject({ version: 3, data: { level: 1 } });
    expect((await admin(d, "GET", `${gc}/versions`)).body.versions[0]).toMatchObject({ version: 3, rolledBackFrom: 1 });
  });

  test("accounts are found by player or external reference; restore points and saves are read", async () => {
    const t = await newTenant(d);
    const ref = `player-${crypto.randomUUID()}`;
    const a = await newAccount(d, t.key, {
      playerRef: ref,
      externalAccountRef: { provider: "steam", subject: ref },
      slot: { slotId: "main", data: { gold: 1 } },
    });
    const envPath = `/admin/v1/projects/${t.projectId}/environments/stage`;
    const byRef = await admin(d, "GET", `${envPath}/accounts?playerRef=${ref}`);
    expect(byRef.body.accounts.map((x: { accountId: string }) => x.accountId)).toEqual([a.accountId]);
    const byExternal = await admin(d, "GET", `${envPath}/accounts?provider=steam&subject=${ref}`);
    expect(byExternal.body.accounts.map((x: { accountId: string }) => x.accountId)).toEqual([a.accountId]);
    // Another environment never sees it, and the runtime API has no such lookup.
    expect(
      (await admin(d, "GET", `/admin/v1/projects/${t.projectId}/environments/prod/accounts?playerRef=${ref}`)).body
        .accounts,
    ).toEqual([]);
    expect((await admin(d, "GET", `${envPath}/accounts`)).status).toBe(400);
    expect(
      (
        await call(d, "GET", `/api/v1/projects/${t.projectId}/environments/stage/accounts?playerRef=${ref}`, {
          key: t.key,
        })
      ).status,
    ).toBe(404);

    expect(
      (
        await a.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
          body: { baseVersion: 1, data: { gold: 2 }, slotInfo: { level: 9 } },
        })
      ).status,
    ).toBe(200);
    const history = await admin(d, "GET", `/admin/v1/accounts/${a.accountId}/slots/main/history`);
    const oldest = history.body.snapshots.at(-1).version;
    const point = await admin(d, "GET", `/admin/v1/accounts/${a.accountId}/slots/main/history/${oldest}`);
    expect(point.status).toBe(200);
    expect(point.body.data).toEqual({ gold: 1 });
    expect((await admin(d, "GET", `/admin/v1/accounts/${a.accountId}/slots/main/history/999`)).status).toBe(404);
    expect((await admin(d, "GET", `/admin/v1/accounts/${a.accountId}/slots/main`)).body).toMatchObject({
      status: "active",
      version: 2,
      slotInfo: { level: 9 },
    });

    const saveId = `save-${crypto.randomUUID()}`;
    expect(
      (
        await call(d, "POST", `/api/v1/saves/${saveId}/sync`, {
          key: t.key,
          body: { baseVersion: 0, externalUserId: "u1", metadata: {}, state: { hp: 3 } },
        })
      ).status,
    ).toBe(200);
    expect((await admin(d, "GET", `${envPath}/saves/${saveId}`)).body.save).toMatchObject({ saveId, state: { hp: 3 } });
    expect((await admin(d, "GET", `/admin/v1/projects/${t.projectId}/environments/prod/saves/${saveId}`)).status).toBe(
      404,
    );
  });

  test("every admin change is in the audit log with who, what, before and after; filters and pages", async () => {
    const t = await newTenant(d);
    // `since` is inclusive to the millisecond: start it after the tenant's own entries, and act after it.
    const sinceMs = Date.now() + 1;
    const since = new Date(sinceMs).toISOString();
    while (Date.now() < sinceMs) await Bun.sleep(1);
    const policy = `/admin/v1/projects/${t.projectId}/sync-policy`;
    expect((await as(d, "console:alice", "PUT", policy, { minRemoteSyncIntervalSeconds: 77 })).status).toBe(200);
    expect((await as(d, undefined, "PUT", policy, { minRemoteSyncIntervalSeconds: 88 })).status).toBe(200);
    // A refused change is not a change.
    expect((await as(d, "console:alice", "PUT", policy, { minRemoteSyncIntervalSeconds: -1 })).status).toBe(400);

    const log = await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}&action=adminSetSyncPolicy`);
    expect(log.status).toBe(200);
    const [newest, older] = log.body.entries;
    expect(log.body.entries).toHaveLength(2);
    expect(newest).toMatchObject({ actor: "admin-api", method: "PUT", path: policy, target: t.projectId, status: 200 });
    expect(newest.before.minRemoteSyncIntervalSeconds).toBe(77);
    expect(newest.after.minRemoteSyncIntervalSeconds).toBe(88);
    expect(older).toMatchObject({ actor: "console:alice" });
    expect(older.before.minRemoteSyncIntervalSeconds).toBe(60);
    expect(older.after.minRemoteSyncIntervalSeconds).toBe(77);

    // A creation has no before; its target is the new record.
    const ws = await as(d, "cli:bob", "POST", "/admin/v1/workspaces", { name: "audited" });
    const created = await admin(d, "GET", `/admin/v1/audit?target=${ws.body.workspaceId}`);
    expect(created.body.entries[0]).toMatchObject({ actor: "cli:bob", action: "adminCreateWorkspace", before: null });
    expect(created.body.entries[0].after).toMatchObject({ workspaceId: ws.body.workspaceId, name: "audited" });

    const paged = await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}&limit=1`);
    expect(paged.body.entries).toHaveLength(1);
    expect(paged.body.next).toBe(1);
    const later = await admin(
      d,
      "GET",
      `/admin/v1/audit?target=${t.projectId}&since=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(later.body.entries).toEqual([]);
    const sinceStart = await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}&since=${since}`);
    expect(sinceStart.body.entries.length).toBe(2);
    expect((await admin(d, "GET", "/admin/v1/audit?action=drop%20table")).status).toBe(400);
  });
});

describe("audit retention", () => {
  test("entries older than the retention setting are pruned by day; newer ones stay", async () => {
    const store = createSqliteStore(join(tempDir("audit-retention"), "config.sqlite"));
    let now = new Date("2026-01-01T12:00:00Z");
    const deps = {
      repo: await openRepo(store),
      now: () => now,
      log: createLogger({ test: "audit" }),
    } as unknown as Deps;
    const audit = createAuditLog(deps, 90);
    const entry = {
      actor: "t",
      action: "adminSetSyncPolicy",
      method: "PUT",
      path: "/p",
      target: "prj_x",
      targets: {},
      status: 200,
      before: null,
      after: null,
    };
    await audit.record(entry);
    now = new Date("2026-03-01T12:00:00Z");
    await audit.record(entry);
    now = new Date("2026-04-15T12:00:00Z"); // 104 days after the first, 45 after the second
    await audit.record(entry);
    const left = await audit.list({ offset: 0, limit: 50 });
    expect(left.entries.map((e) => e.at.slice(0, 10))).toEqual(["2026-04-15", "2026-03-01"]);
    await store.close();
  });

  test("entries recorded in one millisecond are listed newest first, in the order they were recorded", async () => {
    const store = createSqliteStore(join(tempDir("audit-order"), "config.sqlite"));
    const now = new Date("2026-01-01T12:00:00Z");
    const deps = {
      repo: await openRepo(store),
      now: () => now,
      log: createLogger({ test: "audit" }),
    } as unknown as Deps;
    const audit = createAuditLog(deps, 90);
    for (let i = 0; i < 40; i++)
      await audit.record({
        actor: `a${i}`,
        action: "adminSetSyncPolicy",
        method: "PUT",
        path: "/p",
        target: "prj_x",
        targets: {},
        status: 200,
        before: null,
        after: null,
      });
    const listed = await audit.list({ offset: 0, limit: 50 });
    expect(listed.entries.map((e) => e.actor)).toEqual(Array.from({ length: 40 }, (_, i) => `a${39 - i}`));
    await store.close();
  });
});
