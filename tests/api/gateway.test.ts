import { beforeAll, describe, expect, test } from "bun:test";
import { call, newTenant } from "../helpers/api.ts";
import { type Deployment, deployment, deploymentNames } from "../helpers/deployments.ts";


for (const name of deploymentNames) {
  describe(`gateway (${name})`, () => {
    let d: Deployment;
    let key: string;
    beforeAll(async () => {
      d = await deployment(name);
      ({ key } = await newTenant(d));
    });

    test("GET /healthz needs no credentials", async () => {
      const health = await call(d, "GET", "/healthz");
      expect([health.status, health.body]).toEqual([200, { ok: true }]);
    });

    test("an unknown route is 404 and a known path with another method is 405, both in the envelope", async () => {
      const missing = await call(d, "GET", "/api/v1/nothing-here", { key });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("not_found");
      const wrong = await call(d, "PUT", "/api/v1/accounts", { key });
      expect(wrong.status).toBe(405);
      expect(wrong.body.error.code).toBe("method_not_allowed");
      expect(wrong.headers.get("allow")).toBe("POST");
    });

    test("X-Request-Id is echoed when sane and generated otherwise", async () => {
      expect((await call(d, "GET", "/healthz", { headers: { "x-request-id": "client-123" } })).headers.get("x-request-id")).toBe("client-123");
      const generated = (await call(d, "GET", "/healthz", { headers: { "x-request-id": "bad id with spaces" } })).headers.get("x-request-id");
      expect(generated).toMatch(/^req_[A-Za-z0-9]{16}$/);
      const err = await call(d, "GET", "/api/v1/nothing", { headers: { "x-request-id": "trace-9" } });
      expect(err.headers.get("x-request-id")).toBe("trace-9");
    });

    test("/openapi.json lists all 18 contract routes with their schemas, and /docs renders", async () => {
      const doc = await call(d, "GET", "/openapi.json");
      expect(doc.status).toBe(200);
      const operations = Object.entries(doc.body.paths as Record<string, Record<string, { summary: string }>>).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => ({ path, method, summary: op.summary })),
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
  });
}
