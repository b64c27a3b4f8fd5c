import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { startAllInOne } from "../../services/all-in-one.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";

// A browser game on one origin calling the API on another, in real Chromium (docs/using-the-api.md#browser-games-cors).
let api: string;
let d: Deployment;
let pages: ReturnType<typeof Bun.serve>;
let gameOrigin: string;
let context: BrowserContext;
let page: Page;
const consoleLines: string[] = [];

/** The game's page: `play` creates a slot (a preflighted JSON POST with the session header), then lists the slots. */
const gamePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>CORS test game</title></head>
<body style="font: 14px monospace"><h1>Savepoint CORS test game</h1><pre id="log"></pre>
<script>
  const log = (line) => (document.getElementById("log").textContent += line + "\\n");
  async function attempt(label, run) {
    try {
      const res = await run();
      const body = await res.json();
      const result = { ok: true, status: res.status, body, requestId: res.headers.get("x-request-id") };
      log(label + ": " + res.status + " " + JSON.stringify(body).slice(0, 80) + " (X-Request-Id " + result.requestId + ")");
      return result;
    } catch (err) {
      log(label + ": fetch rejected: " + err);
      return { ok: false, error: String(err) };
    }
  }
  window.play = async ({ api, key, accountId, session, slotId }) => {
    log("origin " + location.origin + " calling " + api);
    const auth = { authorization: "Bearer " + key, "x-service-account-session": session };
    const created = await attempt("POST slot " + slotId, () =>
      fetch(api + "/api/v1/accounts/" + accountId + "/slots", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ slotId, data: { level: 3 } }),
      }));
    const listed = await attempt("GET slots", () => fetch(api + "/api/v1/accounts/" + accountId + "/slots", { headers: auth }));
    return { created, listed };
  };
</script></body></html>`;

beforeAll(async () => {
  const env = readEnv({ SAVEPOINT_DATA_DIR: tempDir("cors-browser"), SAVEPOINT_ADMIN_TOKEN: adminToken });
  const { gateway, stops } = await startAllInOne(env, createLogger({ test: "cors-browser" }));
  const server = gateway.listen(listenOptions({ HOST: "127.0.0.1", PORT: 0 })).server!;
  api = `http://127.0.0.1:${server.port}`;
  d = {
    name: "embedded",
    request: (path, init) => fetch(`${api}${path}`, init),
    stop: async () => {
      await gateway.stop(true);
      for (const s of [...stops].reverse()) await s();
    },
  };
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(gamePage, { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  gameOrigin = `http://127.0.0.1:${pages.port}`;

  const executablePath = requireChromium();
  context = await chromium.launchPersistentContext(tempDir("cors-chromium-profile"), {
    executablePath,
    headless: true,
    args: chromiumArgs,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(`${gameOrigin}/`);
}, 60_000);
afterAll(async () => {
  await context?.close();
  pages?.stop(true);
  await d?.stop();
});

describe("CORS in headless Chromium", () => {
  test("a page on another origin syncs through the API; once the environment is restricted to other origins its fetches fail and change nothing", async () => {
    expect(new URL(gameOrigin).origin).not.toBe(new URL(api).origin);
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key);
    const game = { api, key: t.key, accountId: acc.accountId, session: acc.session };
    const play = (slotId: string) => page.evaluate((args) => (globalThis as any).play(args), { ...game, slotId });
    const slotIds = async () =>
      (await acc.call("GET", "/api/v1/accounts/{acc}/slots")).body.slots
        .map((s: { slotId: string }) => s.slotId)
        .sort();
    const restrict = async (origins: string[]) => {
      const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
        allowedOrigins: { stage: origins },
      });
      expect(set.status).toBe(200);
    };

    // Any origin by default: the preflighted POST and the GET both work, and exposed headers are readable.
    const open = await play("from-browser");
    expect(open.created).toMatchObject({ ok: true, status: 201, body: { slotId: "from-browser" } });
    expect(open.created.requestId).toMatch(/^req_/);
    expect(open.listed).toMatchObject({ ok: true, status: 200 });
    expect(open.listed.body.slots.map((s: { slotId: string }) => s.slotId)).toEqual(["from-browser"]);

    // Restricted to another origin: the page cannot read the answers, and the server did nothing.
    await restrict(["https://game.example.com"]);
    const blocked = await play("blocked");
    expect(blocked.created).toMatchObject({ ok: false, error: expect.stringContaining("Failed to fetch") });
    expect(blocked.listed).toMatchObject({ ok: false, error: expect.stringContaining("Failed to fetch") });
    expect(await slotIds()).toEqual(["from-browser"]);
    expect(consoleLines.filter((l) => l.includes("has been blocked by CORS policy")).length).toBeGreaterThan(0);
    // Seen from outside a browser, that was the 403.
    const refused = await call(d, "GET", `/api/v1/accounts/${acc.accountId}/slots`, {
      key: t.key,
      session: acc.session,
      headers: { origin: gameOrigin },
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, "origin_not_allowed"]);

    // The game's own origin listed: it works again.
    await restrict(["https://game.example.com", gameOrigin]);
    const allowed = await play("allowed");
    expect(allowed.created).toMatchObject({ ok: true, status: 201 });
    expect(await slotIds()).toEqual(["allowed", "from-browser"]);

    const shot = join(mkdtempSync(join(tmpdir(), "cors-")), "cors-page.png");
    await page.screenshot({ path: shot });
    console.log(`CORS test page screenshot: ${shot}`);
  }, 60_000);
});
