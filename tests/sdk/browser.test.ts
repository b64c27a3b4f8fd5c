import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { call } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";
import { builtSdk, type Server, tenantWithPolicy } from "./helpers.ts";

// The built browser bundle in real Chromium, on a page whose origin is not the API's (sdk/README.md).
let d: Server;
let pages: ReturnType<typeof Bun.serve>;
let context: BrowserContext;
let page: Page;
let gameUrl: string;
const consoleLines: string[] = [];

/** The game: loads the minified bundle, keeps saves in IndexedDB, exposes the client as `window.sp`. */
const gamePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>SDK test game</title></head>
<body><h1>Savepoint SDK test game</h1><pre id="status"></pre>
<script type="module">
  import { createClient, indexedDbStorage } from "/savepoint.js";
  const q = new URLSearchParams(location.search);
  const sp = createClient({ baseUrl: q.get("api"), runtimeKey: q.get("key"), storage: indexedDbStorage("sdk-test-game"),
    retry: { attempts: 1 }, reconnectBackoff: { baseMs: 100, maxMs: 500 } });
  sp.on("status", (s) => (document.getElementById("status").textContent = s.state + " " + s.pending.join(",")));
  window.sp = sp;
  window.started = sp.ready();
</script></body></html>`;

beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
  const bundle = readFileSync(join(import.meta.dir, "..", "..", "sdk", "dist", "savepoint.browser.min.js"));
  // Cacheable, so that a reload while offline still finds the game (as a service worker would serve it).
  const cache = { "cache-control": "public, max-age=3600" };
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/savepoint.js"
        ? new Response(bundle, { headers: { "content-type": "text/javascript", ...cache } })
        : new Response(gamePage, { headers: { "content-type": "text/html; charset=utf-8", ...cache } }),
  });
  context = await chromium.launchPersistentContext(tempDir("sdk-chromium-profile"), {
    executablePath: requireChromium(),
    headless: true,
    args: chromiumArgs,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (m) => consoleLines.push(m.text()));
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(async () => {
  await context?.close();
  pages?.stop(true);
  await d?.stop();
});

const sp = <T>(script: string): Promise<T> =>
  page.evaluate(`(async () => { await window.started; const sp = window.sp; ${script} })()`) as Promise<T>;

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; console: ${consoleLines.slice(-5).join(" | ")}`);
}

describe("sdk in headless Chromium", () => {
  test("save, go offline, reload, save again, come back online: every save is on the server; hidden flushes", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600, syncOnAppBackground: true });
    gameUrl = `http://127.0.0.1:${pages.port}/?api=${encodeURIComponent(d.base)}&key=${encodeURIComponent(t.key)}`;
    expect(new URL(gameUrl).origin).not.toBe(new URL(d.base).origin);
    await page.goto(gameUrl);
    const accountId = await sp<string>("return sp.ensureAccount();");
    const session = await sp<string>("return (await sp.store.getValue('session')).token;");
    const server = async () =>
      (await call(d, "GET", `/api/v1/accounts/${accountId}/slots/main`, { key: t.key, session })).body;

    await sp("await sp.save('main', { log: [1] }); await sp.settled();");
    await until(async () => (await server()).version === 1, "the first save on the server");

    await context.setOffline(true);
    // The emulation reaches the page a moment later, with its `offline` event: in one CI run the save
    // below came first, failed as any network error does, and was retried on timers.
    await until(async () => (await page.evaluate("navigator.onLine")) === false, "the page to be offline");
    await sp("await sp.save('main', { log: [1, 2] }); await sp.sync({ force: true }); await sp.settled();");
    // Told the network is gone, the client waits for the online event: no retry timer flips it back to syncing.
    await sp("window.states = []; sp.on('status', (s) => window.states.push(s.state));");
    await Bun.sleep(800); // longer than the page's reconnectBackoff.maxMs, 500
    expect(await sp<string[]>("return window.states;")).toEqual([]);
    expect(await sp<string>("return sp.status().state;")).toBe("offline");
    await page.goto(gameUrl);
    expect(await sp<unknown>("return sp.load('main');")).toEqual({ log: [1, 2] });
    await sp("await sp.save('main', { log: [...sp.load('main').log, 3] });");
    // (The reload's pagehide flush is a keepalive request, which Chromium's offline emulation may let through.)
    expect((await server()).data.log).not.toContain(3);

    await context.setOffline(false);
    await until(
      async () => JSON.stringify((await server()).data) === JSON.stringify({ log: [1, 2, 3] }),
      "the offline saves after the online event",
    );
    await until(async () => (await sp<string>("return sp.status().state;")) === "idle", "idle");

    // Inside the interval nothing is pushed, until the page is hidden.
    await sp("await sp.save('main', { log: [1, 2, 3, 4] });");
    await Bun.sleep(300);
    expect((await server()).data).toEqual({ log: [1, 2, 3] });
    // What a tab switch does to the page: visibilityState becomes hidden and visibilitychange fires.
    await page.evaluate(`Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));`);
    await until(
      async () => JSON.stringify((await server()).data) === JSON.stringify({ log: [1, 2, 3, 4] }),
      "the flush on hidden",
    );
  }, 120_000);
});
