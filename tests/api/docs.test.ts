import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString } from "@redocly/openapi-core";
import { chromium } from "playwright-core";
import { z } from "zod";
import { startAllInOne } from "../../services/all-in-one.ts";
import { docsScriptPath } from "../../services/gateway/docs.ts";
import { openApiDocument } from "../../services/gateway/openapi.ts";
import { type Route, route } from "../../shared/contract/route.ts";
import { allRoutes } from "../../shared/contract/routes.ts";
import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumBin } from "../helpers/tools.ts";

// The API reference is served over a real port here: a browser has to load it like a user would.
let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const env = readEnv({ SAVEPOINT_DATA_DIR: tempDir("docs") });
  const { gateway, stops } = await startAllInOne(env, createLogger({ test: "docs" }));
  gateway.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${gateway.server!.port}`;
  stop = async () => {
    await gateway.stop();
    for (const s of [...stops].reverse()) await s();
  };
});
afterAll(() => stop?.());

describe("OpenAPI document", () => {
  test("/openapi.json is valid OpenAPI 3.1: no errors under Redocly's recommended rules", async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();

    const config = await createConfig({ extends: ["recommended"] });
    const document = makeDocumentFromString(text, `${base}/openapi.json`);
    const problems = await lintDocument({ document, config, externalRefResolver: new BaseResolver() });
    const describe = (p: (typeof problems)[number]) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`;
    const errors = problems.filter((p) => p.severity === "error");
    const warnings = problems.filter((p) => p.severity === "warn");
    console.log(`redocly lint (recommended): ${errors.length} errors, ${warnings.length} warnings`);
    for (const w of warnings) console.log(`  warning: ${describe(w)}`);
    expect(errors.map(describe)).toEqual([]);
    expect(JSON.parse(text).openapi).toBe("3.1.0");
  });

  test("named schemas are components, referenced by $ref from operations and from each other", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    const schemas = doc.components.schemas;
    expect(schemas.SyncAccountSlotRequest.required).toEqual(["baseVersion", "data"]);
    const sync = doc.paths["/api/v1/accounts/{accountId}/slots/{slotId}/sync"].post;
    expect(sync.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SyncAccountSlotRequest" });
    expect(sync.responses["409"].content["application/json"].schema.oneOf).toContainEqual({ $ref: "#/components/schemas/SlotConflictResponse" });
    expect(schemas.AccountEnvelopeResponse.properties.syncPolicy).toEqual({ $ref: "#/components/schemas/SyncPolicy" });

    // Every $ref points at a component that exists, and no zod-only `id` keyword leaks into a schema.
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref") refs.push(v as string);
        else walk(v);
      }
    };
    walk(doc);
    for (const r of refs) expect(schemas[r.replace("#/components/schemas/", "")]).toBeDefined();
    for (const [name, s] of Object.entries(schemas as Record<string, object>)) expect([name, "id" in s, "$id" in s, "$schema" in s]).toEqual([name, false, false, false]);
  });

  test("a named schema used both ways gets a separate input component when its forms differ", () => {
    const Counter = z.object({ n: z.int().default(1) }).meta({ id: "DocsTestCounter" });
    const Holder = z.strictObject({ counter: Counter }).meta({ id: "DocsTestHolder" });
    const echo = route({ operationId: "echo", method: "POST", path: "/echo", summary: "Echo", tag: "test", auth: "none", body: Holder, ok: [200, Holder], errors: [400], subject: "test.echo" });
    const doc = openApiDocument([echo]);
    const schemas = doc.components.schemas as Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
    // The output always has `n`; the input may omit it.
    expect(schemas.DocsTestCounter.required).toEqual(["n"]);
    expect(schemas.DocsTestCounterInput.required).toBeUndefined();
    // Holder's own shape is the same both ways, but it points at a different Counter.
    expect(schemas.DocsTestHolderInput.properties!.counter).toEqual({ $ref: "#/components/schemas/DocsTestCounterInput" });
    const op = (doc.paths["/echo"] as Record<string, any>).post;
    expect(op.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/DocsTestHolderInput" });
    expect(op.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/DocsTestHolder" });
  });

  test("the document keeps all routes, with 501 for routes not implemented yet", () => {
    const routes: readonly Route[] = allRoutes;
    const doc = openApiDocument(routes);
    const ops = Object.values(doc.paths).flatMap((ops) => Object.values(ops) as { operationId: string; responses: Record<string, unknown> }[]);
    expect(ops.map((o) => o.operationId).sort()).toEqual(routes.map((r) => r.operationId).sort());
    for (const r of routes) {
      const op = ops.find((o) => o.operationId === r.operationId)!;
      expect([r.operationId, "501" in op.responses]).toEqual([r.operationId, !r.subject]);
    }
  });
});

describe("API reference", () => {
  test("/docs, /openapi.json and the reference's script carry X-Request-Id", async () => {
    for (const path of ["/docs", "/openapi.json", docsScriptPath]) {
      const given = await fetch(`${base}${path}`, { headers: { "x-request-id": "docs-trace-1" } });
      expect([path, given.status, given.headers.get("x-request-id")]).toEqual([path, 200, "docs-trace-1"]);
      const generated = await fetch(`${base}${path}`);
      expect(generated.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9]{16}$/);
    }
  });

  test("/docs loads its script from this server, which serves it from the npm package with a long cache", async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const scripts = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toStartWith(`${docsScriptPath}?v=`);
    const script = await fetch(`${base}${scripts[0]}`, { headers: { "accept-encoding": "identity" } });
    expect(script.headers.get("content-type")).toStartWith("text/javascript");
    expect(script.headers.get("cache-control")).toContain("immutable");
    const bundle = Bun.file(join(import.meta.dir, "..", "..", "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js"));
    expect((await script.arrayBuffer()).byteLength).toBe(bundle.size);
  });

  test("/docs renders the route list in headless Chromium with every non-loopback request blocked", async () => {
    const executablePath = chromiumBin();
    if (!executablePath) throw new Error("Chromium is missing: `npm test` installs it (apt-get install chromium), or set CHROMIUM_BIN");
    const context = await chromium.launchPersistentContext(tempDir("chromium-profile"), {
      executablePath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
    });
    try {
      // A CDN fetch fails here just as it would on a machine with no internet.
      const blocked: string[] = [];
      await context.route("**/*", (r) => {
        if (new URL(r.request().url()).hostname === "127.0.0.1") return r.continue();
        blocked.push(r.request().url());
        return r.abort("internetdisconnected");
      });
      const page = context.pages()[0] ?? (await context.newPage());
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(e.message));
      const scriptLoads: number[] = [];
      page.on("response", (r) => {
        if (new URL(r.url()).pathname === docsScriptPath) scriptLoads.push(r.status());
      });

      await page.goto(`${base}/docs`);
      const summary = page.getByText("Sync a slot under optimistic concurrency").first();
      await summary.waitFor({ state: "visible", timeout: 30_000 }).catch((err) => {
        throw new Error(`the route list did not render (blocked: ${JSON.stringify(blocked)}, page errors: ${JSON.stringify(pageErrors)}): ${err}`);
      });
      // Rendered text, not HTML source: innerText leaves out whatever is not laid out.
      const text = await page.locator("body").innerText();
      for (const s of ["Create an account (and optionally its first slot)", "Sync a slot under optimistic concurrency", "Create a workspace"]) expect(text).toContain(s);

      await summary.scrollIntoViewIfNeeded();
      const dir = mkdtempSync(join(tmpdir(), "savepoint-docs-screenshot-"));
      const shot = join(dir, "docs.png");
      await page.screenshot({ path: shot });
      console.log(`API reference screenshot: ${shot}`);

      expect(scriptLoads).toEqual([200]);
      expect(blocked).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
