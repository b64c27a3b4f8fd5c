import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { admin } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";
import { waitUntil } from "../helpers/wait.ts";
import { builtSdk, type Server, tenantWithPolicy } from "./helpers.ts";

// The built bundle in real Chromium on another origin than the API: what only a browser decides (CORS, page events).
let d: Server;
let pages: ReturnType<typeof Bun.serve>;
let context: BrowserContext;
let page: Page;
/** The runtime key the example game's config.json hands out. */
let exampleKey = "";
const example = join(import.meta.dir, "..", "..", "sdk", "example");

/** A game page whose device clock is `skew` ms off the true time; it exposes the client as `window.sp`. */
const gamePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>SDK promises</title></head>
<body><h1>Savepoint SDK: promises kept</h1><pre id="out"></pre>
<script type="module">
  import { openClient, memoryStorage } from "/savepoint.js";
  const q = new URLSearchParams(location.search);
  const skew = Number(q.get("skew") ?? 0);
  const clock = { now: () => Date.now() + skew, setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h) };
  window.started = openClient({ baseUrl: q.get("api"), runtimeKey: q.get("key"), storage: memoryStorage(), clock, retry: { attempts: 1 } })
    .then((sp) => (window.sp = sp));
</script></body></html>`;

beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
  const bundle = readFileSync(join(import.meta.dir, "..", "..", "sdk", "dist", "savepoint.browser.min.js"));
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname.replace(/^\/example/, "");
      const js = { "content-type": "text/javascript" };
      if (path === "/savepoint.js") return new Response(bundle, { headers: js });
      // The example game as `npm run sdk:example` serves it (sdk/example/serve.ts), on this test's server.
      if (path === "/config.json") return Response.json({ api: d.base, key: exampleKey });
      if (path === "/game.js") return new Response(readFileSync(join(example, "game.js")), { headers: js });
      const html = new URL(req.url).pathname.startsWith("/example")
        ? readFileSync(join(example, "index.html"), "utf8")
        : gamePage;
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  context = await chromium.launchPersistentContext(tempDir("sdk-promises-chromium"), {
    executablePath: requireChromium(),
    headless: true,
    args: chromiumArgs,
  });
  page = context.pages()[0] ?? (await context.newPage());
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(async () => {
  await context?.close();
  pages?.stop(true);
  await d?.stop();
});

const sp = <T>(script: string): Promise<T> =>
  page.evaluate(`(async () => { const sp = await window.started; ${script} })()`) as Promise<T>;
const open = (key: string, skew = 0) =>
  page.goto(
    `http://127.0.0.1:${pages.port}/?api=${encodeURIComponent(d.base)}&key=${encodeURIComponent(key)}&skew=${skew}`,
  );

describe("sdk in headless Chromium: promises kept", () => {
  test("a page whose clock is a day ahead saves on the server's clock: the Date of cross-origin answers is readable", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600 });
    await open(t.key, 24 * 3600 * 1000);
    await sp("await sp.ensureAccount();");
    await sp("await sp.save('main', { music: true });");
    const [savedAt, pageNow] = await sp<[number, number]>(`const savedAt = sp.localSnapshots('main')[0].savedAt;
      const iso = (t) => new Date(t).toISOString();
      const lines = ["device clock " + iso(sp.clock.now()), "saved at     " + iso(savedAt), "true time    " + iso(Date.now())];
      document.getElementById("out").textContent = lines.join("\\n");
      return [savedAt, Date.now()];`);
    // Within the Date header's second (and the round trip) of the true time, not a day ahead.
    expect(Math.abs(savedAt - pageNow)).toBeLessThan(1_500);
    await page.screenshot({ path: join(tempDir("sdk-promises-shots"), "clock.png") });
    if (process.env.SDK_SCREENSHOT) await page.screenshot({ path: process.env.SDK_SCREENSHOT });
  }, 60_000);

  test("a page made visible reads the policy even after the operator turned syncOnAppForeground off", async () => {
    const t = await tenantWithPolicy(d, { syncOnAppForeground: false, minRemoteSyncIntervalSeconds: 3600 });
    await open(t.key);
    await sp("await sp.ensureAccount(); await sp.ready();");
    expect(await sp<boolean>("return sp.config.policy.syncOnAppForeground;")).toBe(false);
    const set = await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, {
      syncOnAppForeground: true,
      minRemoteSyncIntervalSeconds: 7,
    });
    expect(set.status).toBe(200);
    // What coming back to the tab does to the page: visibilityState becomes visible and visibilitychange fires.
    await page.evaluate(`Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));`);
    await waitUntil(
      async () => (await sp<number>("return sp.config.policy.minRemoteSyncIntervalSeconds;")) === 7,
      "the new policy after visibilitychange",
    );
    expect(await sp<boolean>("return sp.config.policy.syncOnAppForeground;")).toBe(true);
  }, 60_000);

  test("the example game: progress survives a reload, and its cloud tick appears only once the server has the save", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 1 });
    exampleKey = t.key;
    await page.goto(`http://127.0.0.1:${pages.port}/example/`);
    const game = <T>(script: string) =>
      page.evaluate(`(async () => { const savepoint = window.savepoint; ${script} })()`) as Promise<T>;
    await waitUntil(
      async () => (await page.evaluate("typeof window.savepoint")) === "object",
      "the example game to start",
    );
    for (let i = 0; i < 5; i++) await page.click("#tap");
    await page.click("#save-now");
    await waitUntil(async () => (await page.textContent("#saved")) === "✓ saved to cloud", "the cloud tick");
    const onServer = await game<{ coins: number }>("return (await savepoint.api.getSlot('main')).data;");
    expect(onServer.coins).toBeGreaterThanOrEqual(5);
    const box = (await page.locator("main").boundingBox())!;
    const clip = { x: box.x - 24, y: box.y - 24, width: box.width + 48, height: box.height + 48 };
    await page.screenshot({
      path: process.env.SDK_EXAMPLE_SCREENSHOT ?? join(tempDir("sdk-example-shot"), "example.png"),
      clip,
    });

    await page.reload();
    await waitUntil(
      async () => (await page.evaluate("typeof window.savepoint")) === "object",
      "the example game to start again",
    );
    // Loaded before the first frame: the game continues from the saved coins, it does not start over at 0.
    expect(Number((await page.textContent("#coins"))!.replace(/\D/g, ""))).toBeGreaterThanOrEqual(onServer.coins);
    expect(await game<string[]>("return (await savepoint.account.devices()).map((s) => s.deviceLabel);")).toEqual([
      "Idle clicker (browser)",
    ]);
  }, 60_000);
});
