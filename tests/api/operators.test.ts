import { expect, test } from "bun:test";
import { admin, call, newAccount } from "../helpers/api.ts";
import { adminToken } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const accountAdmin = (accountId: string, path = "") => `/admin/v1/accounts/${accountId}${path}`;
const as = (token: string) => (d: Parameters<typeof call>[0], method: string, path: string, body?: unknown) =>
  call(d, method, path, { key: token, body });

// Two gateway copies in the distributed deployment: a revoked operator is refused by the copy that did not revoke it.
forEachDeployment(
  "named operators",
  { tenant: true, distributed: { copies: { gateway: 2 } } },
  ({ d, setup, tenant }) => {
    test("a support operator is refused a key revoke with 403 naming the role, and named in the audit entry of its restore", async () => {
      const made = await admin(d, "POST", "/admin/v1/operators", { name: "Sam Support", role: "support" });
      expect(made.status).toBe(201);
      // Taken first: Bun's toMatchObject puts its matchers into the object it checks.
      const support = as(made.body.operatorToken);
      expect(made.body.operatorToken).toMatch(/^spo_[A-Za-z0-9]{43}$/);
      expect(made.body).toMatchObject({ name: "Sam Support", role: "support" });

      const revoke = await support(d, "DELETE", `/admin/v1/runtime-keys/${tenant.keyId}`);
      expect(revoke.status).toBe(403);
      expect(revoke.body.error).toMatchObject({ code: "forbidden", details: { role: "owner" } });
      expect((await admin(d, "GET", `/admin/v1/runtime-keys/${tenant.keyId}`)).body.revokedAt).toBeUndefined();

      const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", data: { n: 1 } } });
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", { body: { baseVersion: 1, data: { n: 2 } } });
      expect((await support(d, "GET", accountAdmin(acc.accountId))).status).toBe(200);
      // The name comes from the token: a header claiming another actor changes nothing.
      const claimed = {
        key: made.body.operatorToken,
        body: { version: 1 },
        headers: { "x-savepoint-actor": "cli:somebody-else" },
      };
      expect((await call(d, "POST", accountAdmin(acc.accountId, "/slots/main/restore"), claimed)).status).toBe(200);
      const entry = (await admin(d, "GET", `/admin/v1/audit?target=${acc.accountId}&action=adminRestoreSlot`)).body
        .entries[0];
      expect(entry.actor).toBe(`operator:${made.body.operatorId} (Sam Support)`);

      // Its export of the player's data (a read of personal data) is audited too.
      expect((await support(d, "GET", accountAdmin(acc.accountId, "/export"))).status).toBe(200);
      const exported = (await admin(d, "GET", `/admin/v1/audit?target=${acc.accountId}&action=adminExportAccount`)).body
        .entries[0];
      // Who read whose data, never the data.
      expect(exported).toMatchObject({
        actor: `operator:${made.body.operatorId} (Sam Support)`,
        method: "GET",
        before: null,
        after: null,
      });
    });

    test("a viewer reads but changes nothing; only the owner manages operators; a revoked operator is refused on every copy", async () => {
      const made = await admin(d, "POST", "/admin/v1/operators", { name: "Vic", role: "viewer" });
      const viewer = as(made.body.operatorToken);
      expect((await viewer(d, "GET", `/admin/v1/projects/${tenant.projectId}`)).status).toBe(200);
      const refused = await viewer(d, "PUT", `/admin/v1/projects/${tenant.projectId}/sync-policy`, { model: "slots" });
      expect([refused.status, refused.body.error.details]).toEqual([403, { role: "owner" }]);
      expect((await viewer(d, "GET", "/admin/v1/operators")).status).toBe(403);
      const listed = (await admin(d, "GET", "/admin/v1/operators")).body.operators;
      expect(listed.find((o: { operatorId: string }) => o.operatorId === made.body.operatorId)).toEqual({
        operatorId: made.body.operatorId,
        name: "Vic",
        role: "viewer",
        createdAt: expect.any(String),
        createdBy: expect.any(String),
      });
      expect(JSON.stringify(listed)).not.toContain(made.body.operatorToken);

      // Cached on the other copy first, then revoked: refused there at once.
      expect((await viewer(setup.other, "GET", "/admin/v1/audit?limit=1")).status).toBe(200);
      expect((await admin(d, "DELETE", `/admin/v1/operators/${made.body.operatorId}`)).status).toBe(200);
      expect((await viewer(setup.other, "GET", "/admin/v1/audit?limit=1")).status).toBe(401);
      expect((await viewer(d, "GET", "/admin/v1/audit?limit=1")).status).toBe(401);

      const count = (await admin(d, "GET", "/admin/v1/operators")).body.operators.length;
      for (const body of [
        { name: "", role: "viewer" },
        { name: "Boss", role: "boss" },
        { name: "Eve (owner)", role: "viewer" },
        { name: "Eve" },
      ]) {
        const bad = await admin(d, "POST", "/admin/v1/operators", body);
        expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
      }
      expect((await admin(d, "GET", "/admin/v1/operators")).body.operators.length).toBe(count);
      expect((await admin(d, "DELETE", "/admin/v1/operators/op_unknown")).status).toBe(404);
      expect((await admin(d, "DELETE", "/admin/v1/operators/not-an-id")).status).toBe(400);
      // The console's operator header counts only beside the admin token, and only for a live operator.
      const forged = await call(d, "GET", "/admin/v1/audit?limit=1", {
        key: adminToken,
        headers: { "x-savepoint-console-operator": made.body.operatorId },
      });
      expect(forged.status).toBe(401);
    });

    test("a 200 KB restore's audit entry holds before and after whole", async () => {
      const big = (c: string) => ({ blob: c.repeat(200_000) });
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", data: big("a") } });
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", { body: { baseVersion: 1, data: big("b") } }))
          .status,
      ).toBe(200);
      expect((await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/restore"), { version: 1 })).status).toBe(
        200,
      );
      const listed = (await admin(d, "GET", `/admin/v1/audit?target=${acc.accountId}&action=adminRestoreSlot`)).body
        .entries[0];
      expect(listed.before).not.toEqual(expect.objectContaining({ clipped: true }));
      // Not in the list (a page of them would outgrow a bus message): marked, and read whole by its id.
      expect([listed.before, listed.after]).toEqual([
        { large: true, sizeBytes: expect.any(Number) },
        { large: true, sizeBytes: expect.any(Number) },
      ]);
      const entry = (await admin(d, "GET", `/admin/v1/audit/${listed.auditId}`)).body;
      expect(entry.before.data).toEqual(big("b"));
      expect(entry.after.data).toEqual(big("a"));
    });
  },
);

// Last in the file: it uses up this address's failures for the minute.
forEachDeployment("failed operator tokens", { own: true }, ({ d }) => {
  test("wrong operator tokens count against the failed-admin-token limit: the eleventh check is refused, the right token too", async () => {
    for (let i = 0; i < 10; i++)
      expect((await call(d, "GET", "/admin/v1/audit?limit=1", { key: `spo_wrong${i}` })).status).toBe(401);
    const refused = await admin(d, "GET", "/admin/v1/audit?limit=1");
    expect([refused.status, refused.body.error.code]).toEqual([429, "rate_limited"]);
  });
});
