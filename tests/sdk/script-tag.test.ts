import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { call } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";
import { builtSdk, type Server, tenantWithPolicy } from "./helpers.ts";

// The `<script>` build (dist/savepoint.global.min.js) in real Chromium: a page without modules uses `window.Savepoint`.
let d: Server;
let pages: ReturnType<typeof Bun.serve>;
let context: BrowserContext;
let page: Page;
const consoleLines: string[] = [];

/** A page as an engine's HTML export writes it: classic scripts only, the SDK from a plain <script src>. */
const gamePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Script tag game</title></head>
<body><h1>Savepoint from a script tag</h1><pre id="out">loading</pre>
<script src="/savepoint.global.min.js"></script>
<script>
  var q = new URLSearchParams(location.search);
  var sp;
  // As sdk/README.md shows it: openClient resolves with a client whose saves are loaded.
  window.run = Savepoint.openClient({ baseUrl: q.get("api"), runtimeKey: q.get("key"),
    storage: Savepoint.indexedDbStorage("script-tag-game"), retry: { attempts: 1 } }).then(function (client) {
    sp = client;
    return sp.ensureAccount();
  }).then(function (accountId) {
    return sp.save("main", { coins: 12, unlocks: ["forest"] }, { label: "World 1" }).then(function () {
      return sp.sync({ force: true });
    }).then(function () { return sp.idle(); }).then(function (status) {
      var refused = null;
      return sp.save("main", { coins: NaN }).catch(function (e) {
        refused = { isSavepointError: e instanceof Savepoint.SavepointError, code: e.code, path: e.details.path };
      }).then(function () {
        var report = { accountId: accountId, state: status.state, loaded: sp.load("main"), refused: refused, exports: Object.keys(Savepoint).length };
        document.getElementById("out").textContent = JSON.stringify(report, null, 2);
        return report;
      });
    });
  });
</script></body></html>`;

beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
  const bundle = readFileSync(join(import.meta.dir, "..", "..", "sdk", "dist", "savepoint.global.min.js"));
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/savepoint.global.min.js"
        ? new Response(bundle, { headers: { "content-type": "text/javascript" } })
        : new Response(gamePage, { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  context = await chromium.launchPersistentContext(tempDir("sdk-script-tag-profile"), {
    executablePath: requireChromium(),
    headless: true,
    args: chromiumArgs,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (m) => consoleLines.push(m.text()));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(async () => {
  await context?.close();
  pages?.stop(true);
  await d?.stop();
});

describe("sdk: the <script> build in headless Chromium", () => {
  test("a page without modules creates a client from window.Savepoint, saves, syncs to the real server, and gets typed errors", async () => {
    const t = await tenantWithPolicy(d);
    await page.goto(
      `http://127.0.0.1:${pages.port}/?api=${encodeURIComponent(d.base)}&key=${encodeURIComponent(t.key)}`,
    );
    const report = (await page.evaluate("window.run")) as {
      accountId: string;
      state: string;
      loaded: unknown;
      refused: unknown;
      exports: number;
    };
    expect(consoleLines.filter((l) => l.startsWith("pageerror"))).toEqual([]);
    expect(report).toMatchObject({ state: "idle", loaded: { coins: 12, unlocks: ["forest"] } });
    expect(report.refused).toEqual({ isSavepointError: true, code: "invalid_json", path: ["coins"] });
    expect(report.exports).toBeGreaterThan(10);
    // The save reached the server through the global's client.
    const session = (await page.evaluate("sp.store.getValue('session')")) as { token: string };
    const slot = await call(d, "GET", `/api/v1/accounts/${report.accountId}/slots/main`, {
      key: t.key,
      session: session.token,
    });
    expect({
      status: slot.status,
      version: slot.body.version,
      data: slot.body.data,
      slotInfo: slot.body.slotInfo,
    }).toEqual({
      status: 200,
      version: 1,
      data: { coins: 12, unlocks: ["forest"] },
      slotInfo: { label: "World 1" },
    });
    // For a person to look at (kept after the run): the page shows the report the game wrote.
    const shot = join(tmpdir(), "savepoint-sdk-script-tag.png");
    await page.screenshot({ path: shot });
    console.log(`script-tag page screenshot: ${shot}`);
  }, 120_000);
});
