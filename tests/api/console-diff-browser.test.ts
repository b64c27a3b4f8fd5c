import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { cookieName } from "../../services/gateway/console/session.ts";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { type ConsoleHarness, consoleCookie, startConsoleHarness } from "../helpers/console-harness.ts";
import type { Deployment } from "../helpers/deployments.ts";

/** The console's diffs by JSON path (docs/console.md), and the sync policy page's versions, in real Chromium. */
const shots = "/tmp/console-diff-shots";
let base: string;
let d: Deployment;
let h: ConsoleHarness;
let context: BrowserContext;
let page: Page;
let cookie: string;

beforeAll(async () => {
  h = await startConsoleHarness("console-diff");
  ({ base, d, context, page } = h);
  cookie = await consoleCookie(base, cookieName);
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  await context.addCookies([{ name, value, url: `${base}/console` }]);
  mkdirSync(shots, { recursive: true });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

/** The page's HTML as the console serves it (decompressed), and its byte size. */
async function htmlOf(path: string) {
  const res = await fetch(`${base}${path}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, bytes: Buffer.byteLength(text) };
}

describe("console diffs by JSON path", () => {
  test("the slot diff says which key was added and which removed, and what changed from what", async () => {
    const t = await newTenant(d);
    const slot = {
      slotId: "main",
      slotInfo: { level: 1 },
      data: { hp: 100, level: 3, inventory: ["sword", "shield"], stats: { str: 5, dex: 7 } },
    };
    const acc = await newAccount(d, t.key, { slot });
    const next = { level: 3, gold: 0, inventory: ["sword", "bow"], stats: { str: 6, dex: 7 } };
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", { body: { baseVersion: 1, data: next } }))
        .status,
    ).toBe(200);
    await page.goto(`${base}/console/accounts/${acc.accountId}/slots/main?a=1&b=2`);
    await page.locator("table.diff").waitFor();
    await page.screenshot({ path: join(shots, "slot-diff.png"), fullPage: true });
    expect(await page.locator("table.diff tr.added").innerText()).toMatch(/data\.gold\s+added[\s\S]*0/);
    expect(await page.locator("table.diff tr.removed").innerText()).toMatch(/data\.hp\s+removed[\s\S]*100/);
    const changed = await page.locator("table.diff tr.changed").allInnerTexts();
    expect(
      changed.map((r) =>
        r
          .replace(/\s+/g, " ")
          .replace(/^~ changed /, "")
          .trim(),
      ),
    ).toEqual(['data.inventory[1] changed "shield" → "bow"', "data.stats.str changed 5 → 6"]);
    expect(await page.locator("p.diff-summary").innerText()).toBe("1 added, 1 removed, 2 changed; 4 unchanged keys.");
  });

  test("a 256 KB save's diff pages stay under 100 KB: the slot's versions and the restore's confirmation", async () => {
    const t = await newTenant(d);
    // Just under the 262,144-byte limit of a slot's data, every value different in the next version.
    const save = (tag: string, from: number) =>
      Object.fromEntries(
        Array.from({ length: 1900 }, (_, i) => [`item${from + i}`, { name: `${tag}-${"n".repeat(100)}`, count: i }]),
      );
    const first = save("a", 0);
    expect(Buffer.byteLength(JSON.stringify(first))).toBeGreaterThan(250_000);
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThanOrEqual(262_144);
    const acc = await newAccount(d, t.key, { slot: { slotId: "big", slotInfo: { level: 1 }, data: first } });
    const synced = await acc.call("POST", "/api/v1/accounts/{acc}/slots/big/sync", {
      body: { baseVersion: 1, data: save("b", 100) },
    });
    expect(synced.status).toBe(200);
    const diffPage = await htmlOf(`/console/accounts/${acc.accountId}/slots/big?a=1&b=2`);
    const confirm = await htmlOf(`/console/accounts/${acc.accountId}/slots/big/restore?version=1`);
    expect(diffPage.bytes).toBeLessThan(100_000);
    expect(confirm.bytes).toBeLessThan(100_000);
    expect(diffPage.text).toContain("100 added, 100 removed, 3600 changed");
    expect(confirm.text).toContain("more changed paths not shown");
    console.log(`256 KB save: diff page ${diffPage.bytes} B, restore confirmation ${confirm.bytes} B`);
  });

  test("the sync policy page: a change with a note, its versions with author, a diff of two, and a rollback served by route 2", async () => {
    const t = await newTenant(d);
    const before = (await call(d, "GET", "/api/v1/runtime-config", { key: t.key })).body.syncPolicy;
    await page.goto(`${base}/console/projects/${t.projectId}/sync-policy`);
    await page.getByLabel("minRemoteSyncIntervalSeconds").fill("240");
    await page.getByLabel("Note (optional)").fill("quieter servers at launch");
    await page.getByRole("button", { name: "Save sync policy" }).click();
    await page.getByText("Sync policy saved as a new version").waitFor();
    expect(await page.locator("tbody tr").first().innerText()).toMatch(
      /2\s+current[\s\S]*console[\s\S]*quieter servers at launch/,
    );
    await page.goto(`${base}/console/projects/${t.projectId}/sync-policy?a=1&b=2`);
    expect((await page.locator("table.diff tr.changed").innerText()).replace(/\s+/g, " ").trim()).toEndWith(
      "minRemoteSyncIntervalSeconds changed 60 → 240",
    );
    await page.screenshot({ path: join(shots, "sync-policy-versions.png"), fullPage: true });
    await page.getByRole("button", { name: "Roll back to version 1" }).click();
    await page.getByText("Rolled back: version 3 has version 1's policy").waitFor();
    const runtime = await call(d, "GET", "/api/v1/runtime-config", { key: t.key });
    expect(runtime.body.syncPolicy).toEqual(before);
  });
});
