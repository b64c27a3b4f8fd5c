import { expect, test } from "bun:test";
import { admin, call, newTenant } from "../helpers/api.ts";
import { adminToken } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const runtime = "/api/v1/runtime-config";
const as = (actor: string) => ({ key: adminToken, headers: { "x-savepoint-actor": actor } });

forEachDeployment("sync policy versions", ({ d }) => {
  test("every change is a version with its author and note; a rollback is a new version served by route 2 with a new ETag", async () => {
    const t = await newTenant(d);
    const base = `/admin/v1/projects/${t.projectId}/sync-policy`;
    const original = (await call(d, "GET", runtime, { key: t.key })).body.syncPolicy;
    const set = (body: unknown, actor: string) => call(d, "PUT", base, { ...as(actor), body });
    expect((await set({ minRemoteSyncIntervalSeconds: 120, note: "slower syncs for launch" }, "alice")).status).toBe(
      200,
    );
    expect((await set({ syncOnReconnect: false }, "bob")).status).toBe(200);
    const before = await call(d, "GET", runtime, { key: t.key });
    expect(before.body.syncPolicy).toEqual({ ...original, minRemoteSyncIntervalSeconds: 120, syncOnReconnect: false });

    const rolled = await call(d, "POST", `${base}/rollback`, {
      ...as("carol"),
      body: { version: 1, note: "back to defaults" },
    });
    expect(rolled.status).toBe(201);
    expect(rolled.body).toEqual({
      version: 4,
      author: "carol",
      note: "back to defaults",
      createdAt: expect.any(String),
      rolledBackFrom: 1,
      policy: original,
    });
    const after = await call(d, "GET", runtime, {
      key: t.key,
      headers: { "if-none-match": before.headers.get("etag")! },
    });
    expect(after.status).toBe(200);
    expect(after.body.syncPolicy).toEqual(original);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));

    const list = await admin(d, "GET", `${base}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.currentVersion).toBe(4);
    expect(list.body.versions.map((v: any) => [v.version, v.author, v.note ?? null, v.rolledBackFrom ?? null])).toEqual(
      [
        [4, "carol", "back to defaults", 1],
        [3, "bob", null, null],
        [2, "alice", "slower syncs for launch", null],
        [1, "unknown", expect.any(String), null],
      ],
    );
    const two = await admin(d, "GET", `${base}/versions/2`);
    expect(two.body.policy).toEqual({ ...original, minRemoteSyncIntervalSeconds: 120 });
    expect((await admin(d, "GET", `${base}/versions/9`)).status).toBe(404);
  });

  test("a project without versions has version 1, its policy as it is; bad input is 4xx and changes nothing", async () => {
    const t = await newTenant(d);
    const base = `/admin/v1/projects/${t.projectId}/sync-policy`;
    const policy = (await admin(d, "GET", base)).body;
    const list = await admin(d, "GET", `${base}/versions`);
    expect(list.body).toEqual({
      projectId: t.projectId,
      currentVersion: 1,
      versions: [expect.objectContaining({ version: 1, policy })],
    });
    expect((await admin(d, "GET", `${base}/versions/1`)).body.policy).toEqual(policy);
    const refused = [
      await admin(d, "POST", `${base}/rollback`, { version: 2 }),
      await admin(d, "POST", `${base}/rollback`, { version: 0 }),
      await admin(d, "POST", `${base}/rollback`, { version: 1, extra: true }),
      await admin(d, "PUT", base, { note: "a note alone" }),
      await admin(d, "PUT", base, { minRemoteSyncIntervalSeconds: 5, note: "x".repeat(501) }),
      await admin(d, "POST", `/admin/v1/projects/prj_missing/sync-policy/rollback`, { version: 1 }),
    ];
    expect(refused.map((r) => r.status)).toEqual([404, 400, 400, 400, 400, 404]);
    for (const r of refused) expect(r.body.error.code).toMatch(/^(not_found|invalid_request)$/);
    expect((await admin(d, "GET", `${base}/versions`)).body).toEqual(list.body);
  });

  test("concurrent changes get consecutive versions, none lost and none twice", async () => {
    const t = await newTenant(d);
    const base = `/admin/v1/projects/${t.projectId}/sync-policy`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(d, "PUT", base, { ...as(`op-${i}`), body: { maxQueuedLocalSnapshots: 10 + i } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const { versions, currentVersion } = (await admin(d, "GET", `${base}/versions`)).body;
    expect(currentVersion).toBe(9);
    expect(versions.map((v: any) => v.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(new Set(versions.slice(0, 8).map((v: any) => v.author)).size).toBe(8);
    // The current policy is the newest version's.
    expect((await admin(d, "GET", base)).body).toEqual(versions[0].policy);
  });
});
