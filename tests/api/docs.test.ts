import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString } from "@redocly/openapi-core";
import { chromium, type Locator, type Page } from "playwright-core";
import { z } from "zod";
import { startAllInOne } from "../../services/all-in-one.ts";
import { docsScriptPath } from "../../services/gateway/docs.ts";
import { statusOf } from "../../services/gateway/errors.ts";
import { errorCasesOf, openApiDocument } from "../../services/gateway/openapi.ts";
import { type Route, route } from "../../shared/contract/route.ts";
import { allRoutes, contractRoutes } from "../../shared/contract/routes.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";

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
  test("/openapi.json is valid OpenAPI 3.1: no errors and no warnings under Redocly's recommended rules", async () => {
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
    expect(warnings.map(describe)).toEqual([]);
    expect(JSON.parse(text).openapi).toBe("3.1.0");
  });

  test("named schemas are components, referenced by $ref from operations and from each other", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    const schemas = doc.components.schemas;
    expect(schemas.SyncAccountSlotRequest.required).toEqual(["baseVersion", "data"]);
    const sync = doc.paths["/api/v1/accounts/{accountId}/slots/{slotId}/sync"].post;
    expect(sync.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/SyncAccountSlotRequest",
    });
    expect(sync.responses["409"].content["application/json"].schema.oneOf).toContainEqual({
      $ref: "#/components/schemas/SlotConflictResponse",
    });
    expect(schemas.AccountEnvelopeResponse.properties.syncPolicy).toEqual({ $ref: "#/components/schemas/SyncPolicy" });

    // Every $ref points at a component that exists, and no zod-only `id` keyword leaks into a schema.
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(walk);
        return;
      }
      if (!node || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref") refs.push(v as string);
        else walk(v);
      }
    };
    walk(doc);
    for (const r of refs) expect(schemas[r.replace("#/components/schemas/", "")]).toBeDefined();
    for (const [name, s] of Object.entries(schemas as Record<string, object>))
      expect([name, "id" in s, "$id" in s, "$schema" in s]).toEqual([name, false, false, false]);
  });

  test("a named schema used both ways gets a separate input component when its forms differ", () => {
    const Counter = z.object({ n: z.int().default(1) }).meta({ id: "DocsTestCounter" });
    const Holder = z.strictObject({ counter: Counter }).meta({ id: "DocsTestHolder" });
    const echo = route({
      operationId: "echo",
      method: "POST",
      path: "/echo",
      summary: "Echo",
      tag: "test",
      auth: "none",
      body: Holder,
      ok: [200, Holder],
      errors: [400],
      subject: "test.echo",
    });
    const doc = openApiDocument([echo]);
    const schemas = doc.components.schemas as Record<
      string,
      { required?: string[]; properties?: Record<string, unknown> }
    >;
    // The output always has `n`; the input may omit it.
    expect(schemas.DocsTestCounter.required).toEqual(["n"]);
    expect(schemas.DocsTestCounterInput.required).toBeUndefined();
    // Holder's own shape is the same both ways, but it points at a different Counter.
    expect(schemas.DocsTestHolderInput.properties!.counter).toEqual({
      $ref: "#/components/schemas/DocsTestCounterInput",
    });
    const op = (doc.paths["/echo"] as Record<string, any>).post;
    expect(op.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/DocsTestHolderInput",
    });
    expect(op.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/DocsTestHolder",
    });
  });

  test("every operation has a summary, a description and an error table with a condition for each error status it lists", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    const routes: readonly Route[] = allRoutes;
    for (const r of routes) {
      const op = doc.paths[r.path.replace(/:([A-Za-z]+)/g, "{$1}")][r.method.toLowerCase()];
      expect([r.operationId, (r.description ?? "").length > 40]).toEqual([r.operationId, true]);
      expect([r.operationId, op.summary.length > 0]).toEqual([r.operationId, true]);
      const cases = errorCasesOf(r);
      // Each status the route lists is explained by at least one code, with the condition that causes it.
      const explained = new Set(cases.map((c) => statusOf[c.code]));
      expect([r.operationId, r.errors.filter((s) => !explained.has(s))]).toEqual([r.operationId, []]);
      expect(op.description).toStartWith(r.description!);
      if (cases.length > 0) expect(op.description).toContain("| Status | Code | When |");
      for (const c of cases) {
        expect([r.operationId, c.when.length > 10]).toEqual([r.operationId, true]);
        expect(op.description).toContain(`| ${statusOf[c.code]} | \`${c.code}\` | ${c.when} |`);
        const response = op.responses[String(statusOf[c.code])];
        expect([r.operationId, c.code, response?.content?.["application/json"] !== undefined]).toEqual([
          r.operationId,
          c.code,
          true,
        ]);
      }
    }
  });

  test("the concepts, the sync policy's fields and the sync answer's fields are explained in the document", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as any;
    const headings = [
      "Accounts and slots vs the save-based model",
      "Versions and conflicts",
      "The sync policy and warnings",
      "Sessions and devices",
    ];
    for (const heading of [...headings, "Idempotent retries", "Errors", "Limits"])
      expect(doc.info.description).toContain(`## ${heading}`);
    expect(doc.info.description).toContain("sync_interval_below_policy");
    const schemas = doc.components.schemas;
    const explained = ["SyncPolicy", "SyncAcceptedResponse", "AccountResponse", "AccountSlotSummary", "Save"];
    for (const name of [...explained, "SlotConflictResponse", "AccountConflictResponse", "SaveConflictResponse"]) {
      for (const [field, s] of Object.entries(schemas[name].properties as Record<string, { description?: string }>)) {
        expect([name, field, (s.description ?? "").length > 10]).toEqual([name, field, true]);
      }
    }
    expect(schemas.SyncAcceptedResponse.properties.warnings.description).toContain("sync_interval_below_policy");
  });

  test("an error case's condition stays in its table cell, whatever Markdown it holds", () => {
    const when = "A `a|b` pipe\nand a line break.";
    const echo = route({
      operationId: "echo",
      method: "GET",
      path: "/echo",
      summary: "Echo",
      tag: "test",
      auth: "none",
      ok: [200, z.object({})],
      errors: [404],
      description: "Echoes.",
      errorCases: [{ code: "not_found", when }],
      subject: "test.echo",
    });
    const op = (openApiDocument([echo]).paths["/echo"] as Record<string, any>).get;
    const rows = (op.description as string).split("\n").filter((l) => l.startsWith("|"));
    // Header, separator, one row per case: nothing spilled into a row or a column of its own.
    expect(rows.length).toBe(2 + errorCasesOf(echo).length);
    expect(rows).toContain("| 404 | `not_found` | A `a\\|b` pipe and a line break. |");
  });

  test("the document keeps all routes, with 501 for routes not implemented yet", () => {
    const routes: readonly Route[] = allRoutes;
    const doc = openApiDocument(routes);
    const ops = Object.values(doc.paths).flatMap(
      (ops) => Object.values(ops) as { operationId: string; responses: Record<string, unknown> }[],
    );
    expect(ops.map((o) => o.operationId).sort()).toEqual(routes.map((r) => r.operationId).sort());
    for (const r of routes) {
      const op = ops.find((o) => o.operationId === r.operationId)!;
      expect([r.operationId, "501" in op.responses]).toEqual([r.operationId, !r.subject && !r.gatewayOnly]);
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

  test("/docs and /openapi.json carry a Content-Security-Policy and nosniff", async () => {
    const docs = await fetch(`${base}/docs`);
    const policy = docs.headers.get("content-security-policy") ?? "";
    for (const directive of ["default-src 'none'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"])
      expect(policy).toContain(directive);
    // Scripts only from this server, and the one inline starter line by its hash: no 'unsafe-inline' script.
    expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
    const document = await fetch(`${base}/openapi.json`);
    expect(document.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(document.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await fetch(`${base}${docsScriptPath}`)).headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("/docs loads its script from this server, which serves it from the npm package with a long cache", async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const scripts = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toStartWith(`${docsScriptPath}?v=`);
    const script = await fetch(`${base}${scripts[0]}`, { headers: { "accept-encoding": "identity" } });
    expect(script.headers.get("content-type")).toStartWith("text/javascript");
    expect(script.headers.get("cache-control")).toContain("immutable");
    const bundle = Bun.file(
      join(import.meta.dir, "..", "..", "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js"),
    );
    expect((await script.arrayBuffer()).byteLength).toBe(bundle.size);
  });

  test("/docs renders the route list in headless Chromium with every non-loopback request blocked", async () => {
    await inChromium(async (docs) => {
      const { page, blocked, scriptLoads } = docs;
      const summary = page.getByText("Sync a slot under optimistic concurrency").first();
      await rendered(summary, docs);
      // Rendered text, not HTML source: innerText leaves out whatever is not laid out.
      const text = await page.locator("body").innerText();
      for (const s of [
        "Create an account (and optionally its first slot)",
        "Sync a slot under optimistic concurrency",
        "Create a workspace",
      ])
        expect(text).toContain(s);

      await summary.scrollIntoViewIfNeeded();
      await screenshot(page, "docs.png");
      expect(scriptLoads).toEqual([200]);
      expect(blocked).toEqual([]);
    });
  }, 60_000);

  test("/docs shows a route's description and its error table: each code with its status and condition", async () => {
    const r: Route = contractRoutes.syncSlot;
    const plain = (markdown: string) => markdown.replace(/`/g, "");
    const archived = errorCasesOf(r).find((c) => c.code === "slot_archived")!;
    expect(archived).toBeDefined();
    await inChromium(async (docs) => {
      const { page, blocked } = docs;
      // As a reader would: pick the route in the sidebar, which renders its section.
      const entry = page.getByText(`${r.number}. ${r.summary}`).first();
      await rendered(entry, docs);
      await entry.click();
      // The description's first sentence as the reader sees it (Markdown code spans rendered).
      const firstSentence = plain(r.description!.split(". ")[0]!);
      const description = page.getByText(firstSentence, { exact: false }).first();
      await rendered(description, docs);
      // The row of this route's table (the guide's status table also names the code).
      const row = page.locator("tr", { hasText: plain(archived.when) }).first();
      await row.waitFor({ state: "visible", timeout: 10_000 });
      const cells = await row.locator("td").allInnerTexts();
      expect(cells.map((c) => c.trim())).toEqual(["409", "slot_archived", plain(archived.when)]);
      // The table's header row is rendered too, not only its cells.
      const header = await row.locator("xpath=ancestor::table[1]//th").allInnerTexts();
      expect(header.map((h) => h.trim())).toEqual(["Status", "Code", "When"]);

      await row.scrollIntoViewIfNeeded();
      await screenshot(page, "docs-error-table.png");
      expect(blocked).toEqual([]);
    });
  }, 60_000);
});

type DocsPage = { page: Page; blocked: string[]; pageErrors: string[]; scriptLoads: number[]; refused: string[] };

/** Opens /docs in headless Chromium with every request that is not to this server failing, as offline. */
async function inChromium(fn: (docs: DocsPage) => Promise<void>) {
  const executablePath = requireChromium();
  const context = await chromium.launchPersistentContext(tempDir("chromium-profile"), {
    executablePath,
    headless: true,
    args: chromiumArgs,
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
    // The page's Content-Security-Policy must not block anything the reference needs.
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    const scriptLoads: number[] = [];
    page.on("response", (r) => {
      if (new URL(r.url()).pathname === docsScriptPath) scriptLoads.push(r.status());
    });
    await page.goto(`${base}/docs`);
    await fn({ page, blocked, pageErrors, scriptLoads, refused });
    expect(refused).toEqual([]);
  } finally {
    await context.close();
  }
}

async function rendered(locator: Locator, { blocked, pageErrors }: DocsPage) {
  await locator.waitFor({ state: "visible", timeout: 30_000 }).catch((err) => {
    throw new Error(
      `/docs did not render it (blocked: ${JSON.stringify(blocked)}, page errors: ${JSON.stringify(pageErrors)}): ${err}`,
    );
  });
}

async function screenshot(page: Page, name: string) {
  const shot = join(mkdtempSync(join(tmpdir(), "savepoint-docs-screenshot-")), name);
  await page.screenshot({ path: shot });
  console.log(`API reference screenshot: ${shot}`);
}
