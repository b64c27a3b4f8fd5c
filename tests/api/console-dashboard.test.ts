import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page, Response } from "playwright-core";
import { cookieName } from "../../services/gateway/console/session.ts";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { type ConsoleHarness, startConsoleHarness } from "../helpers/console-harness.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";

/**
 * docs/console.md: the overview page in real Chromium. A known workload, then the page shows its
 * counts, the largest accounts in order with links to their pages; no request leaves the machine,
 * no CSP violation, no axe-core violation of any impact, under 30 KB on the wire.
 */
const shots = "/tmp/console-shots";
const axeSource = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");
let base: string;
let d: Deployment;
let h: ConsoleHarness;
let context: BrowserContext;
let page: Page;
let blocked: string[];
let cspViolations: string[];

beforeAll(async () => {
  h = await startConsoleHarness("console-dashboard", { SAVEPOINT_TRAFFIC_FLUSH_MS: "200" });
  ({ base, d, context, page, blocked, cspViolations } = h);
  mkdirSync(shots, { recursive: true });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function signIn(): Promise<void> {
  const form = await fetch(`${base}/console/sign-in`);
  const pre = form.headers.get("set-cookie")!.split(";")[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: pre, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, token: adminToken }),
  });
  const value = res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${cookieName}=`))!
    .split(";")[0]!
    .slice(cookieName.length + 1);
  await context.addCookies([{ name: cookieName, value, url: `${base}/console` }]);
}

test("the overview page shows a known workload, the largest accounts in order with links, accessibly, under 30 KB", async () => {
  const t = await newTenant(d, "growth");
  const sizes = [3_000, 40_000, 12_000];
  const accounts = [];
  for (const [i, size] of sizes.entries())
    accounts.push(
      await newAccount(d, t.key, { playerRef: `player-${i + 1}`, accountData: { blob: "x".repeat(size) } }),
    );
  const [a] = accounts;
  const sync = (baseVersion: number, accountData: object) =>
    a!.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion, accountData } });
  for (let i = 1; i <= 5; i++) expect((await sync(i, { n: i })).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await sync(1, { stale: i })).status).toBe(409);
  for (let i = 0; i < 3; i++) expect((await a!.call("GET", "/api/v1/accounts/{acc}/slots/missing")).status).toBe(404);
  const requests = sizes.length + 5 + 2 + 3;
  const overview = () =>
    call(d, "GET", `/admin/v1/projects/${t.projectId}/environments/stage/overview`, { key: adminToken });
  for (let i = 0; i < 100 && ((await overview()).body.totals?.requests ?? 0) < requests; i++) await Bun.sleep(100);

  await signIn();
  await page.goto(`${base}/console`, { waitUntil: "networkidle" });
  expect(await page.locator("h1").textContent()).toBe("Overview");
  const sizesOnWire: Promise<number>[] = [];
  const measure = (r: Response) =>
    sizesOnWire.push(
      r
        .request()
        .sizes()
        .then((s) => s.responseBodySize + s.responseHeadersSize),
    );
  page.on("response", measure);
  await page.goto(`${base}/console/projects/${t.projectId}/overview/stage`, { waitUntil: "networkidle" });
  const tile = (label: string) =>
    page.locator(".tile", { has: page.locator("dt", { hasText: label }) }).locator(".big");
  expect(await tile("Requests").textContent()).toBe(String(requests));
  expect(await tile("Syncs").textContent()).toBe("7");
  expect(await tile("Sync conflicts").textContent()).toBe("2");
  expect(await tile("4xx answers").textContent()).toBe("5");
  expect(await tile("5xx answers").textContent()).toBe("0");
  expect(await tile("New accounts today").textContent()).toBe("3");
  const largest = page.locator("table", { has: page.locator("caption", { hasText: "Largest accounts" }) });
  const players = await largest.locator("tbody tr td:nth-child(2)").allTextContents();
  expect(players).toEqual(["player-2", "player-3", "player-1"]);
  // Stop measuring before the drill-down: a size asked of its answers would still be pending when the browser closes.
  page.off("response", measure);
  const transfer = (await Promise.all(sizesOnWire)).reduce((x, y) => x + y, 0);
  const shot = join(shots, "console-overview.png");
  await page.screenshot({ path: shot, fullPage: true });
  if (process.env.SAVEPOINT_UPDATE_SCREENSHOTS)
    copyFileSync(shot, join(import.meta.dir, "..", "..", "docs", "images", "console-overview.png"));
  const result = (await page.evaluate(`${axeSource};axe.run(document, { resultTypes: ["violations"] })`)) as {
    violations: { id: string }[];
  };
  expect(result.violations.map((v) => v.id)).toEqual([]);
  console.log(`overview page: ${(transfer / 1024).toFixed(1)} KB on the wire (gzip), screenshot ${shot}`);
  expect(transfer).toBeLessThan(30 * 1024);

  // The drill-down: the largest account's page.
  await page.getByRole("link", { name: accounts[1]!.accountId }).click();
  await page.waitForURL(`**/console/accounts/${accounts[1]!.accountId}`);
  expect(blocked).toEqual([]);
  expect(cspViolations).toEqual([]);
}, 60_000);
