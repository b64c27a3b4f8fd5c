import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { call } from "../helpers/api.ts";
import { startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { chromiumArgs, requireChromium } from "../helpers/tools.ts";
import { waitUntil } from "../helpers/wait.ts";
import { builtSdk, type Server, tenantWithPolicy } from "./helpers.ts";

// Two tabs of one game: one origin, one IndexedDB, one Web Lock (sdk/README.md, Several tabs).
let d: Server;
let pages: ReturnType<typeof Bun.serve>;
let context: BrowserContext;

/** The game in a tab: its client on IndexedDB as `window.sp`, and which tab syncs, on the page. */
const gamePage = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>SDK two tabs</title></head>
<body style="font: 16px sans-serif"><h1>Savepoint SDK: <span id="tab"></span></h1><pre id="out"></pre>
<script type="module">
  import { openClient, indexedDbStorage } from "/savepoint.js";
  const q = new URLSearchParams(location.search);
  window.conflicts = 0;
  window.started = openClient({ baseUrl: q.get("api"), runtimeKey: q.get("key"), storage: indexedDbStorage("two-tabs"), retry: { attempts: 1 } })
    .then((sp) => {
      const show = () => {
        document.getElementById("tab").textContent = q.get("tab") + (sp.isSyncingTab ? ": the syncing tab" : ": hands its saves over");
        const lines = sp.slots().sort().map((s) => s + " " + JSON.stringify(sp.load(s)) + (sp.status().pending.includes(s) ? " (pending)" : ""));
        document.getElementById("out").textContent = lines.join("\\n");
      };
      sp.on("conflict", () => window.conflicts++);
      for (const e of ["status", "saved", "synced", "change"]) sp.on(e, show);
      setInterval(show, 100);
      return (window.sp = sp);
    });
</script></body></html>`;

beforeAll(async () => {
  d = await startEmbedded();
  await builtSdk();
  const bundle = readFileSync(join(import.meta.dir, "..", "..", "sdk", "dist", "savepoint.browser.min.js"));
  pages = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/savepoint.js"
        ? new Response(bundle, { headers: { "content-type": "text/javascript" } })
        : new Response(gamePage, { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  context = await chromium.launchPersistentContext(tempDir("sdk-tabs-chromium"), {
    executablePath: requireChromium(),
    headless: true,
    args: chromiumArgs,
  });
}, 300_000); // the declarations type-check the whole SDK: slow on a busy machine
afterAll(async () => {
  await context?.close();
  pages?.stop(true);
  await d?.stop();
});

const inTab = <T>(page: Page, script: string): Promise<T> =>
  page.evaluate(`(async () => { const sp = await window.started; ${script} })()`) as Promise<T>;

describe("sdk in headless Chromium: two tabs of one game", () => {
  test("one tab syncs the saves of both, each change once; when it closes mid-push the other takes over and loses nothing", async () => {
    // Inside the interval a tab holds its saves, and closing a tab pushes nothing: only a sync or a new syncing tab does.
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600, syncOnAppBackground: false });
    const url = (tab: string) =>
      `http://127.0.0.1:${pages.port}/?api=${encodeURIComponent(d.base)}&key=${encodeURIComponent(t.key)}&tab=${tab}`;
    const a = await context.newPage();
    await a.goto(url("Tab A"));
    const accountId = await inTab<string>(a, "return sp.ensureAccount();");
    const session = await inTab<string>(a, "return (await sp.store.getValue('session')).token;");
    const slot = async (id: string) =>
      (await call(d, "GET", `/api/v1/accounts/${accountId}/slots/${id}`, { key: t.key, session })).body;
    await inTab(a, "await sp.save('a', { n: 1 });");
    await waitUntil(async () => (await slot("a")).version === 1, "the first save on the server", 15_000);

    const b = await context.newPage();
    await b.goto(url("Tab B"));
    // A save in each tab; the sync asked for in B pushes both, each once.
    await inTab(a, "await sp.save('a', { n: 2 });");
    await inTab(b, "await sp.save('b', { n: 1 });");
    const result = await inTab<{ status: string; targets: Record<string, { status: string }> }>(
      b,
      "return sp.sync({ force: true });",
    );
    expect(await slot("a")).toMatchObject({ version: 2, data: { n: 2 } });
    expect(await slot("b")).toMatchObject({ version: 1, data: { n: 1 } });
    expect(result).toMatchObject({ status: "synced", targets: { a: { status: "synced" }, b: { status: "synced" } } });
    // B reads what A's push wrote: every change is acknowledged, in both tabs.
    await waitUntil(
      async () => (await inTab<string[]>(b, "return sp.status().pending;")).length === 0,
      "tab B to see the push",
      15_000,
    );
    expect(await inTab<unknown>(b, "return sp.load('a');")).toEqual({ n: 2 });

    // Again a save in each tab; A's push is on its way (the server writes it, the answer never reaches A) when A closes.
    await inTab(a, "await sp.save('a', { n: 3 });");
    await inTab(b, "await sp.save('b', { n: 2 });");
    let reachedServer = 0;
    await a.route(`${d.base}/api/v1/**`, async (route) => {
      if (route.request().method() === "OPTIONS" || route.request().method() === "GET") return route.continue();
      await route.fetch(); // the server accepts the write; A never hears it
      reachedServer++;
      await new Promise(() => {});
    });
    void inTab(a, "await sp.flushNow();").catch(() => {});
    await waitUntil(async () => reachedServer === 1, "tab A's push to reach the server", 15_000);
    const shots = process.env.SDK_TABS_SHOTS ?? tempDir("sdk-tabs-shots");
    await a.screenshot({ path: join(shots, "tab-a.png") });
    expect([
      await inTab<boolean>(a, "return sp.isSyncingTab;"),
      await inTab<boolean>(b, "return sp.isSyncingTab;"),
    ]).toEqual([true, false]);
    await b.screenshot({ path: join(shots, "tab-b.png") });
    await a.close();

    // B takes the lock and pushes what A left: the write A began under its stored key, and B's own save.
    await waitUntil(
      async () =>
        (await slot("b")).version === 2 && (await inTab<string[]>(b, "return sp.status().pending;")).length === 0,
      "tab B's push",
      15_000,
    );
    expect(await slot("a")).toMatchObject({ version: 3, data: { n: 3 } });
    expect(await slot("b")).toMatchObject({ version: 2, data: { n: 2 } });
    expect(await inTab<boolean>(b, "return sp.isSyncingTab;")).toBe(true);
    expect(await b.evaluate("window.conflicts")).toBe(0);
    await b.waitForTimeout(200);
    await b.screenshot({ path: join(shots, "tab-b-after.png") });
  }, 120_000);
});
