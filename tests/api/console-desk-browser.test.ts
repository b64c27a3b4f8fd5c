import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { type ConsoleHarness, startConsoleHarness } from "../helpers/console-harness.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";

// The player desk driven as an operator does (docs/console.md), in headless Chromium; the harness is console-browser.test.ts's.
const shots = "/tmp/console-desk-shots";
const axeSource = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");
let base: string;
let d: Deployment;
let h: ConsoleHarness;
let page: Page;
const axeFindings: Record<string, string[]> = {};
const admin = (method: string, path: string, body?: unknown) => call(d, method, path, { key: adminToken, body });

beforeAll(async () => {
  h = await startConsoleHarness("console-desk");
  ({ base, d, page } = h);
  mkdirSync(shots, { recursive: true });
  await page.goto(`${base}/console/sign-in`);
  await page.locator("#token").fill(adminToken);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Workspaces" }).waitFor();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function visit(name: string, path?: string) {
  if (path) await page.goto(`${base}${path}`, { waitUntil: "networkidle" });
  else await page.waitForLoadState("networkidle");
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const result = await page.evaluate(`${axeSource};axe.run(document, { resultTypes: ["violations"] })`);
  const { violations } = result as { violations: { id: string; impact: string; nodes: unknown[] }[] };
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  axeFindings[name] = serious.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
}

describe("the player desk in the console", () => {
  test("find by external reference with no project; edit a slot with a reason; the current version is marked; the stale device gets the 409", async () => {
    const stage = await newTenant(d);
    const prod = await newTenant(d, "self_hosted", "prod");
    const ref = { externalAccountRef: { provider: "steam", subject: "765611980" } };
    const acc = await newAccount(d, stage.key, {
      ...ref,
      slot: { slotId: "main", slotInfo: { level: 1 }, data: { gold: 10, hp: 100 } },
    });
    const other = await newAccount(d, prod.key, ref);
    expect(
      (
        await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
          body: { baseVersion: 1, data: { gold: 0, hp: 100 } },
        })
      ).status,
    ).toBe(200);

    await page.goto(`${base}/console/find`);
    await page.getByLabel("External provider").fill("steam");
    await page.getByLabel("External subject").fill("765611980");
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByRole("link", { name: other.accountId }).waitFor();
    expect(await page.getByRole("cell", { name: "prod", exact: true }).count()).toBe(1);
    expect(await page.getByRole("cell", { name: "stage", exact: true }).count()).toBe(1);
    await visit("find-anywhere");

    await page.getByRole("link", { name: acc.accountId }).click();
    await page.getByRole("link", { name: "main" }).click();
    await page.getByRole("link", { name: "Edit this slot…" }).click();
    await page.getByLabel("Data (JSON)").fill(JSON.stringify({ gold: 500, hp: 100 }));
    await page.getByLabel("Reason").fill("Ticket 4711: gold lost to the shop bug");
    await page.getByRole("button", { name: "Write as version 3" }).click();
    // The edit page says "is written as version 3" too: the slot page's own notice.
    await page.getByText("Written as version 3, with your reason").waitFor();
    expect(await page.locator('ol.timeline li[aria-current="true"]').innerText()).toContain("Version 3");
    await page.goto(`${base}/console/accounts/${acc.accountId}/slots/main?a=2&b=3`);
    await visit("slot-timeline");
    expect(await page.locator('ol.timeline li[aria-current="true"] .badge.current').count()).toBe(1);

    const stale = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
      body: { baseVersion: 2, data: { gold: 1 } },
    });
    expect([stale.status, stale.body.slot?.data]).toEqual([409, { gold: 500, hp: 100 }]);
    const audit = (await admin("GET", `/admin/v1/audit?target=${acc.accountId}&action=adminEditSlot`)).body.entries;
    expect(audit[0]).toMatchObject({ actor: "console", reason: "Ticket 4711: gold lost to the shop bug" });
    await page.goto(`${base}/console/audit?target=${acc.accountId}`);
    expect(await page.getByText("reason: Ticket 4711: gold lost to the shop bug").count()).toBe(1);

    // A second editor opened on version 3; a device writes first: nothing is written, the operator is told.
    await page.goto(`${base}/console/accounts/${acc.accountId}/slots/main/edit`);
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
      body: { baseVersion: 3, data: { gold: 501, hp: 100 } },
    });
    await page.getByLabel("Reason").fill("late");
    await page.getByRole("button", { name: "Write as version 4" }).click();
    await page.getByText("Nothing was written: it is at version 4 now").waitFor();
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body.data).toEqual({ gold: 501, hp: 100 });
  });

  test("account data: history with the current version marked, diff, restore by an operator", async () => {
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key, { accountData: { coins: 5, vip: true } });
    await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1, accountData: { coins: 0 } } });
    await page.goto(`${base}/console/accounts/${acc.accountId}`);
    await page.getByRole("link", { name: "History, diff and restore of account data" }).click();
    await page.getByRole("heading", { name: `Account data of ${acc.accountId}` }).waitFor();
    await page.goto(`${base}/console/accounts/${acc.accountId}/data?a=1&b=2`);
    await visit("account-data");
    expect(await page.locator("table.diff").count()).toBe(1);
    await page.getByRole("link", { name: "Restore version 1…" }).click();
    await page.getByRole("button", { name: "Restore version 1 as version 3" }).click();
    await page.getByText("Restored version 1 as version 3").waitFor();
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({
      version: 3,
      accountData: { coins: 5, vip: true },
    });
  });

  test("a save: history, diff and restore", async () => {
    const t = await newTenant(d);
    const sync = (body: unknown) => call(d, "POST", "/api/v1/saves/desk-save/sync", { key: t.key, body });
    await sync({ baseVersion: 0, externalUserId: "u1", metadata: { lvl: 1 }, state: { hp: 3 } });
    await sync({ baseVersion: 1, metadata: { lvl: 2 }, state: { hp: 0 } });
    await page.goto(`${base}/console/saves/${t.projectId}/stage/desk-save?a=1&b=2`);
    await visit("save-history");
    expect(await page.locator('ol.timeline li[aria-current="true"]').innerText()).toContain("Version 2");
    await page.getByRole("link", { name: "Restore version 1…" }).click();
    await page.getByRole("button", { name: "Restore version 1 as version 3" }).click();
    await page.getByText("Restored version 1 as version 3").waitFor();
    expect((await sync({ baseVersion: 2, state: { hp: 9 } })).body).toMatchObject({
      status: "conflict",
      save: { version: 3, state: { hp: 3 } },
    });
  });

  test("the CLI does the same: player find with no project, slot edit with a reason, a stale edit told in one line", async () => {
    const t = await newTenant(d, "self_hosted", "prod");
    const acc = await newAccount(d, t.key, { playerRef: "cli-hero", slot: { slotId: "main", data: { gold: 1 } } });
    const cli = async (...args: string[]) => {
      const env = { ...process.env, SAVEPOINT_URL: base, SAVEPOINT_ADMIN_TOKEN: adminToken };
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "cli", "main.ts"), ...args], {
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [code, stdout, stderr] = await Promise.all([
        proc.exited,
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
      ]);
      return { code, stdout, stderr };
    };
    const found = await cli("player", "find", "--playerRef", "cli-hero", "--json");
    expect(JSON.parse(found.stdout).accounts).toMatchObject([
      { accountId: acc.accountId, projectId: t.projectId, environment: "prod" },
    ]);
    const edit = [
      "slot",
      "edit",
      "--account",
      acc.accountId,
      "--slot",
      "main",
      "--data",
      '{"gold":7}',
      "--reason",
      "cli refund",
    ];
    const done = await cli(...edit, "--baseVersion", "1");
    expect([done.code, done.stdout]).toEqual([
      0,
      expect.stringContaining("a device on an older version gets a conflict with it"),
    ]);
    const stale = await cli(...edit, "--baseVersion", "1");
    const told =
      "conflict: nothing was written; the current version is 2. Read it again (--json shows it) and edit from there.";
    expect([stale.code, stale.stderr.trim()]).toEqual([1, told]);
    const entries = (await admin("GET", `/admin/v1/audit?target=${acc.accountId}&action=adminEditSlot`)).body.entries;
    expect(entries.map((e: { reason: string; actor: string }) => [e.reason, e.actor.startsWith("cli:")])).toEqual([
      ["cli refund", true],
    ]);
  });

  test("no serious accessibility violation on the desk's pages", () => {
    expect(Object.fromEntries(Object.entries(axeFindings).filter(([, v]) => v.length))).toEqual({});
    expect(Object.keys(axeFindings).length).toBe(4);
  });
});
