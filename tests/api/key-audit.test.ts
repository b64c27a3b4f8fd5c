import { expect, test } from "bun:test";
import { admin, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

forEachDeployment("the audit of runtime keys", ({ d }) => {
  test("a key creation's audit entry holds the one key it made, whatever the project's key count; a revocation's, that key before and after", async () => {
    const t = await newTenant(d);
    const keys = `/admin/v1/projects/${t.projectId}/environments/stage/runtime-keys`;
    for (let i = 0; i < 30; i++) expect((await admin(d, "POST", keys, { label: `k${i}` })).status).toBe(201);
    const made = await admin(d, "POST", keys, { label: "newest" });
    expect(made.status).toBe(201);

    const created = (
      await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}&action=adminCreateRuntimeKey&limit=1`)
    ).body.entries[0];
    expect(created).toMatchObject({
      action: "adminCreateRuntimeKey",
      target: t.projectId,
      targets: { projectId: t.projectId, keyId: made.body.keyId },
    });
    // Nothing is read before a creation, and after it only the new key: never the other 31, never the key itself.
    expect([created.before?.keys?.length, created.after?.keys?.length]).toEqual([undefined, undefined]);
    expect(created.before).toBeNull();
    expect(created.after).toEqual({
      keyId: made.body.keyId,
      projectId: t.projectId,
      workspaceId: t.workspaceId,
      environment: "stage",
      label: "newest",
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(created)).not.toContain(made.body.runtimeKey);

    expect((await admin(d, "DELETE", `/admin/v1/runtime-keys/${made.body.keyId}`)).status).toBe(200);
    const revoked = (await admin(d, "GET", `/admin/v1/audit?target=${made.body.keyId}&action=adminRevokeRuntimeKey`))
      .body.entries[0];
    expect(revoked.before).toEqual(created.after);
    expect(revoked.after).toEqual({ ...created.after, revokedAt: expect.any(String) });
  });

  test("one key is read by its id; an unknown or malformed id is refused", async () => {
    const t = await newTenant(d);
    const key = await admin(d, "GET", `/admin/v1/runtime-keys/${t.keyId}`);
    expect(key.body).toEqual({
      keyId: t.keyId,
      projectId: t.projectId,
      workspaceId: t.workspaceId,
      environment: "stage",
      label: "t",
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(key.body)).not.toContain(t.key);
    expect([(await admin(d, "GET", "/admin/v1/runtime-keys/key_unknown")).body.error.code]).toEqual(["not_found"]);
    expect((await admin(d, "GET", "/admin/v1/runtime-keys/not-a-key")).status).toBe(400);
  });
});
