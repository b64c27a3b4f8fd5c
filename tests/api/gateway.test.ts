import { expect, test } from "bun:test";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * A credential revoked while requests using it are being resolved (the gateway's cache was empty, so
 * each asks the owning service): `trials` times, `inFlight` requests are sent, the credential is
 * revoked before they are answered, then `after` more are sent. Returns how many of those were not 401.
 */
async function acceptedAfterRevokes(
  trials: number,
  fresh: () => Promise<{ send: () => Promise<{ status: number }>; revoke: () => Promise<number> }>,
) {
  const inFlight = 20;
  const after = 15;
  let accepted = 0;
  for (let trial = 0; trial < trials; trial++) {
    const { send, revoke } = await fresh();
    const racing = Array.from({ length: inFlight }, () => send());
    expect(await revoke()).toBe(200);
    // Once every racing answer is in, a stale one would have refilled the cache.
    await Promise.all(racing);
    for (let i = 0; i < after; i++) if ((await send()).status !== 401) accepted++;
  }
  return `${accepted} of ${trials * after}`;
}
forEachDeployment("gateway", { tenant: true }, ({ d, tenant }) => {
  test("GET /healthz needs no credentials", async () => {
    const health = await call(d, "GET", "/healthz");
    expect([health.status, health.body]).toEqual([200, { ok: true }]);
  });

  test("an unknown route is 404 and a known path with another method is 405, both in the envelope", async () => {
    const missing = await call(d, "GET", "/api/v1/nothing-here", { key: tenant.key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    // The answer names what was asked for, so a typo shows itself.
    expect(missing.body.error.message).toBe(
      "No route answers GET /api/v1/nothing-here: the API reference is at /docs.",
    );
    expect(missing.body.error.details).toEqual({ method: "GET", path: "/api/v1/nothing-here" });
    const wrong = await call(d, "PUT", "/api/v1/accounts", { key: tenant.key });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe("method_not_allowed");
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  test("GET / points at the API reference and the health checks", async () => {
    const index = await call(d, "GET", "/");
    expect(index.status).toBe(200);
    expect(index.body).toEqual({
      service: "savepoint",
      docs: "/docs",
      openapi: "/openapi.json",
      healthz: "/healthz",
      readyz: "/readyz",
    });
  });

  test("X-Request-Id is echoed when sane and generated otherwise", async () => {
    expect(
      (await call(d, "GET", "/healthz", { headers: { "x-request-id": "client-123" } })).headers.get("x-request-id"),
    ).toBe("client-123");
    const generated = (
      await call(d, "GET", "/healthz", { headers: { "x-request-id": "bad id with spaces" } })
    ).headers.get("x-request-id");
    expect(generated).toMatch(/^req_[A-Za-z0-9]{16}$/);
    const err = await call(d, "GET", "/api/v1/nothing", { headers: { "x-request-id": "trace-9" } });
    expect(err.headers.get("x-request-id")).toBe("trace-9");
  });

  test("/openapi.json lists all 18 contract routes with their schemas, and /docs renders", async () => {
    const doc = await call(d, "GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const operations = Object.entries(doc.body.paths as Record<string, Record<string, { summary: string }>>).flatMap(
      ([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, summary: op.summary })),
    );
    const numbered = operations.filter((o) => /^\d+\. /.test(o.summary)).map((o) => Number(o.summary.split(".")[0]));
    expect(numbered.sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    expect(doc.body.openapi).toBe("3.1.0");
    const sync = doc.body.paths["/api/v1/accounts/{accountId}/slots/{slotId}/sync"].post;
    // Named schemas are components: the body is a $ref to one.
    const body = sync.requestBody.content["application/json"].schema;
    expect(body).toEqual({ $ref: "#/components/schemas/SyncAccountSlotRequest" });
    expect(doc.body.components.schemas.SyncAccountSlotRequest.required).toEqual(["baseVersion", "data"]);
    expect(Object.keys(sync.responses)).toContain("409");
    const docs = await d.request("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("x-request-id")).toMatch(/^req_/);
    const html = await docs.text();
    expect(html).toContain("/openapi.json");
    expect(html).toContain("/docs/assets/standalone.js");
  });

  test("a runtime key revoked while its first requests are resolved is refused by every request sent after the revoke answered", async () => {
    const t = await newTenant(d);
    const accepted = await acceptedAfterRevokes(20, async () => {
      const created = await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/runtime-keys`, {
        label: "race",
      });
      return {
        send: () => call(d, "GET", "/api/v1/runtime-config", { key: created.body.runtimeKey }),
        revoke: async () => (await admin(d, "DELETE", `/admin/v1/runtime-keys/${created.body.keyId}`)).status,
      };
    });
    expect(`requests after the revoke accepted: ${accepted}`).toBe("requests after the revoke accepted: 0 of 300");
  });

  test("a session revoked while its first requests are resolved is refused by every request sent after the revoke answered", async () => {
    const accepted = await acceptedAfterRevokes(20, async () => {
      const acc = await newAccount(d, tenant.key);
      const { sessionId } = (await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`)).body.sessions[0];
      return {
        send: () => acc.call("GET", "/api/v1/accounts/{acc}"),
        revoke: async () =>
          (await admin(d, "DELETE", `/admin/v1/accounts/${acc.accountId}/sessions/${sessionId}`)).status,
      };
    });
    expect(`requests after the revoke accepted: ${accepted}`).toBe("requests after the revoke accepted: 0 of 300");
  });
});
