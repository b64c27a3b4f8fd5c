import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { createGateway } from "../../services/gateway/app.ts";
import { consoleKeys, cookieName } from "../../services/gateway/console/session.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { type Answer, call } from "../helpers/api.ts";
import { type ConsoleHarness, startConsoleHarness } from "../helpers/console-harness.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";

const shots = "/tmp/console-shots";
const axeSource = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");

let base: string;
let dataDir: string;
let d: Deployment;
let bus: Bus;
let h: ConsoleHarness;
let context: BrowserContext;
let page: Page;
let blocked: string[];
let cspViolations: string[];
const axeFindings: Record<string, string[]> = {};
const transfer: Record<string, number> = {};
const admin = (method: string, path: string, body?: unknown): Promise<Answer> =>
  call(d, method, path, { key: adminToken, body });

beforeAll(async () => {
  h = await startConsoleHarness("console");
  ({ base, d, context, page, bus, dataDir, blocked, cspViolations } = h);
  mkdirSync(shots, { recursive: true });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

/** Loads a page, sums what crossed the wire for it, screenshots it and runs axe-core on it. */
async function visit(name: string, path?: string) {
  const sizes: Promise<number>[] = [];
  const onResponse = (r: import("playwright-core").Response) =>
    sizes.push(
      r
        .request()
        .sizes()
        .then((s) => s.responseBodySize + s.responseHeadersSize),
    );
  page.on("response", onResponse);
  if (path) await page.goto(`${base}${path}`, { waitUntil: "networkidle" });
  else await page.waitForLoadState("networkidle");
  page.off("response", onResponse);
  if (path) transfer[name] = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  // Run through the DevTools protocol: the page's CSP (no inline script) stays as it is.
  const result = await page.evaluate(`${axeSource};axe.run(document, { resultTypes: ["violations"] })`);
  const serious = (result as { violations: { id: string; impact: string; nodes: unknown[] }[] }).violations.filter(
    (v) => v.impact === "serious" || v.impact === "critical",
  );
  axeFindings[name] = serious.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
}

async function submit(buttonName: string | RegExp, expectText: string | RegExp) {
  await page.getByRole("button", { name: buttonName }).first().click();
  await page.getByText(expectText).first().waitFor({ timeout: 15_000 });
}

const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
async function signInByFetch(): Promise<string> {
  const form = await fetch(`${base}/console/sign-in`);
  const pre = form.headers.get("set-cookie")!.split(";")[0]!;
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: pre, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text())!, token: adminToken }),
  });
  expect(res.status).toBe(303);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${cookieName}=`))!
    .split(";")[0]!;
}

describe("operator console", () => {
  test("a forged form without the CSRF token, a request without the cookie, and an expired cookie are refused; off without the admin API", async () => {
    const before = (await admin("GET", "/admin/v1/workspaces")).body.workspaces.length;
    const post = (cookie: string | undefined, body: Record<string, string>) =>
      fetch(`${base}/console/workspaces`, {
        method: "POST",
        redirect: "manual",
        headers: { ...(cookie ? { cookie } : {}), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body),
      });
    expect((await post(undefined, { name: "forged" })).status).toBe(401);
    const cookie = await signInByFetch();
    expect(cookie).not.toContain(adminToken);
    expect((await post(cookie, { name: "forged" })).status).toBe(403);
    expect((await post(cookie, { name: "forged", _csrf: "x".repeat(43) })).status).toBe(403);
    expect((await admin("GET", "/admin/v1/workspaces")).body.workspaces.length).toBe(before);
    const noCookie = await fetch(`${base}/console/workspaces`, { redirect: "manual" });
    expect([noCookie.status, noCookie.headers.get("location")]).toEqual([303, "/console/sign-in"]);
    const expired = consoleKeys(adminToken).issueSession(Date.now() - 1000);
    expect(
      (
        await fetch(`${base}/console/workspaces`, {
          redirect: "manual",
          headers: { cookie: `${cookieName}=${expired}` },
        })
      ).status,
    ).toBe(303);
    const wrongKey = consoleKeys("another-admin-token-0123").issueSession();
    expect(
      (
        await fetch(`${base}/console/workspaces`, {
          redirect: "manual",
          headers: { cookie: `${cookieName}=${wrongKey}` },
        })
      ).status,
    ).toBe(303);
    const ok = await fetch(`${base}/console/workspaces`, { headers: { cookie } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-security-policy")).toStartWith("default-src 'self'");
    const off = createGateway({ bus, log: createLogger({ test: "console-off" }) });
    expect((await off.handle(new Request("http://x/console/sign-in"))).status).toBe(404);
  });

  const ids: { workspaceId: string; projectId: string; key: string; accountId: string; session: string } = {} as never;

  test("sign in by keyboard; the cookie is HttpOnly and the token is nowhere in the page", async () => {
    await visit("sign-in", "/console/sign-in");
    await page.locator("#token").focus();
    await page.keyboard.type(adminToken);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Workspaces" }).waitFor();
    expect(await page.evaluate("document.cookie")).toBe("");
    // htmx keeps only the current path there: no page content, no CSRF token, no admin token.
    const stored = String(await page.evaluate("JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"));
    expect(stored).not.toContain(adminToken);
    expect(stored).not.toContain("_csrf");
    expect(stored).not.toContain("<");
    expect(await page.content()).not.toContain(adminToken);
    const cookies = await context.cookies(`${base}/console/workspaces`);
    expect(cookies.find((c) => c.name === cookieName)).toMatchObject({ httpOnly: true, sameSite: "Strict" });
  });

  test("create a workspace, a project and a key", async () => {
    await page.getByLabel("Name", { exact: true }).fill("Console studio");
    await page.getByLabel("Plan").selectOption("self_hosted");
    await submit("Create workspace", /Workspace wsp_\w+ created/);
    await visit("workspaces");
    await page.getByRole("link", { name: "Console studio" }).first().click();
    await page.getByLabel("New project name").fill("Console game");
    await submit("Create project", /Project prj_\w+ created/);
    await visit("workspace");
    ids.workspaceId = new URL(page.url()).pathname.split("/").pop()!;
    await page.getByRole("link", { name: "Console game" }).click();
    await page.getByLabel("Environment").selectOption("stage");
    await page.getByLabel("Label").fill("ci");
    await submit("Create runtime key", "It is shown once");
    ids.key = (await page.locator("#new-key").innerText()).trim();
    ids.projectId = new URL(page.url()).pathname.split("/")[3]!;
    expect(ids.key).toStartWith("spk_stage_");
    await visit("project");
    expect((await call(d, "GET", "/api/v1/runtime-config", { key: ids.key })).status).toBe(200);
  });

  test("change the sync policy and see route 2 serve it", async () => {
    await page.goto(`${base}/console/projects/${ids.projectId}/sync-policy`);
    await page.getByLabel("minRemoteSyncIntervalSeconds").fill("123");
    await page.getByLabel("syncOnReconnect").selectOption("false");
    await submit("Save sync policy", "Sync policy saved");
    await visit("sync-policy");
    const runtime = await call(d, "GET", "/api/v1/runtime-config", { key: ids.key });
    expect(runtime.body.syncPolicy).toMatchObject({ minRemoteSyncIntervalSeconds: 123, syncOnReconnect: false });
  });

  test("publish a config, see the diff, roll back and see route 2 serve the old content as a new version", async () => {
    await page.goto(`${base}/console/projects/${ids.projectId}/game-config/stage`);
    for (const level of [1, 2]) {
      await page.getByLabel(/New game config/).fill(JSON.stringify({ level, name: "spring" }));
      await submit("Preview diff", "Review before publishing");
      expect(await page.locator("table.diff tr.changed, table.diff tr.added").count()).toBeGreaterThan(0);
      if (level === 2) {
        await page.screenshot({ path: join(shots, "game-config-preview.png"), fullPage: true });
        expect(await page.locator("table.diff tr.changed").innerText()).toMatch(/level\s+changed\s+1\s+→ 2/);
      }
      await submit(/Publish as version/, `Published version ${level}`);
    }
    await submit("Roll back to version 1", "Rolled back: version 3");
    const runtime = await call(d, "GET", "/api/v1/runtime-config", { key: ids.key });
    expect(runtime.body.gameConfig).toMatchObject({ version: 3, data: { level: 1, name: "spring" } });
    await visit("game-config", `/console/projects/${ids.projectId}/game-config/stage?a=2&b=3`);
  });

  test("find an account by player reference; restore a slot; the stale device's next sync gets the 409 with the restored data", async () => {
    const created = await call(d, "POST", "/api/v1/accounts", {
      key: ids.key,
      body: { playerRef: "hero-42", slot: { slotId: "main", slotInfo: { level: 1 }, data: { gold: 1 } } },
    });
    ids.accountId = created.body.accountId;
    ids.session = created.body.accountSessionToken;
    const device = (body: unknown) =>
      call(d, "POST", `/api/v1/accounts/${ids.accountId}/slots/main/sync`, {
        key: ids.key,
        session: ids.session,
        body,
      });
    expect((await device({ baseVersion: 1, slotInfo: { level: 2 }, data: { gold: 2 } })).status).toBe(200);

    await page.goto(`${base}/console/find?projectId=${ids.projectId}&env=stage`);
    await page.getByLabel("Player reference").fill("hero-42");
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByRole("link", { name: ids.accountId }).click();
    await page.getByRole("heading", { name: `Account ${ids.accountId}` }).waitFor();
    await visit("account");
    await page.goto(`${base}/console/find?projectId=${ids.projectId}&env=stage&playerRef=hero-42`);
    await visit("find");

    await page.goto(`${base}/console/accounts/${ids.accountId}/slots/main?a=1&b=2`);
    await visit("slot");
    expect(await page.getByText('slotInfo: {"level":1}').count()).toBe(1);
    await page.getByRole("link", { name: "Restore version 1…" }).click();
    await page.getByText("409 conflict carrying the restored save").waitFor();
    await visit("restore-confirm");
    await submit(/Restore version 1 as version 3/, "Restored version 1 as version 3");

    const stale = await device({ baseVersion: 2, data: { gold: 99 } });
    expect(stale.status).toBe(409);
    expect(stale.body.slot).toMatchObject({ version: 3, data: { gold: 1 } });
  });

  test("revoke a device and see its next request refused", async () => {
    const read = () => call(d, "GET", `/api/v1/accounts/${ids.accountId}`, { key: ids.key, session: ids.session });
    expect((await read()).status).toBe(200);
    await page.goto(`${base}/console/accounts/${ids.accountId}`);
    await submit(/Revoke ses_/, "Session revoked");
    expect((await read()).status).toBe(401);
  });

  test("suspend and unsuspend, download the export, delete the account", async () => {
    await page.goto(`${base}/console/accounts/${ids.accountId}`);
    await submit("Suspend account", "Account suspended");
    expect((await admin("GET", `/admin/v1/accounts/${ids.accountId}`)).body.account.status).toBe("suspended");
    await submit("Unsuspend account", "Suspension lifted");
    expect((await admin("GET", `/admin/v1/accounts/${ids.accountId}`)).body.account.status).toBe("active");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: /Download data-subject export/ }).click(),
    ]);
    const exported = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(exported.account.accountId).toBe(ids.accountId);
    expect(exported.slots.map((s: { slotId: string }) => s.slotId)).toContain("main");
    await page.getByRole("link", { name: "Delete account…" }).click();
    // visit()'s network-idle wait does not see htmx's swap: without this, the account page could be the one checked.
    await page.getByRole("heading", { name: `Delete account ${ids.accountId}?`, exact: true }).waitFor();
    await visit("delete-confirm");
    await submit("Delete account permanently", "Account deleted");
    expect((await admin("GET", `/admin/v1/accounts/${ids.accountId}`)).body.account.status).toBe("deleted");
  });

  test("the audit log lists each change with who, before and after", async () => {
    const byProject = (await admin("GET", `/admin/v1/audit?target=${ids.projectId}`)).body.entries;
    const actions = byProject.map((e: { action: string }) => e.action);
    for (const a of [
      "adminSetSyncPolicy",
      "adminPublishGameConfig",
      "adminRollbackGameConfig",
      "adminCreateRuntimeKey",
    ])
      expect(actions).toContain(a);
    for (const e of byProject) expect(e.actor).toBe("console");
    const policy = byProject.find((e: { action: string }) => e.action === "adminSetSyncPolicy");
    expect([policy.before.minRemoteSyncIntervalSeconds, policy.after.minRemoteSyncIntervalSeconds]).toEqual([60, 123]);
    const rollback = byProject.find((e: { action: string }) => e.action === "adminRollbackGameConfig");
    expect([rollback.before.data.level, rollback.after.data.level, rollback.after.version]).toEqual([2, 1, 3]);
    const byAccount = (await admin("GET", `/admin/v1/audit?target=${ids.accountId}`)).body.entries;
    const restore = byAccount.find((e: { action: string }) => e.action === "adminRestoreSlot");
    expect([restore.before.data.gold, restore.after.data.gold]).toEqual([2, 1]);
    const revoke = byAccount.find((e: { action: string }) => e.action === "adminRevokeSession");
    expect(revoke.before.sessions[0].revokedAt).toBeUndefined();
    expect(revoke.after.sessions[0].revokedAt).toBeString();
    expect(
      (await admin("GET", `/admin/v1/audit?target=${ids.workspaceId}`)).body.entries.map(
        (e: { action: string }) => e.action,
      ),
    ).toContain("adminCreateWorkspace");

    await page.goto(`${base}/console/audit?target=${ids.projectId}`);
    await page.locator("details summary").first().click();
    await visit("audit");
    expect(await page.locator("details").count()).toBe(byProject.length);
  });

  test("dead letters: retry one, discard another", async () => {
    // Two cleanup jobs that ran out of deliveries, written where the accounts service keeps them.
    const store = createSqliteStore(join(dataDir, "accounts.sqlite"));
    const letters = await store.collection("deadLetters");
    const at = new Date().toISOString();
    const retried = `cleanup:account:${ids.accountId}`;
    const discarded = "cleanup:malformed:0123456789abcdef";
    await letters.insert({
      _id: retried,
      queue: "cleanup",
      job: JSON.stringify({ kind: "account", id: ids.accountId }),
      deliveries: 8,
      error: "store down",
      failedAt: at,
    });
    await letters.insert({
      _id: discarded,
      queue: "cleanup",
      job: JSON.stringify({ bad: true }),
      deliveries: 8,
      error: "malformed",
      failedAt: at,
    });
    await store.close();
    await visit("dead-letters", "/console/dead-letters");
    await submit(`Retry ${retried}`, "Queued again.");
    await submit(`Discard ${discarded}`, "Discarded.");
    const left = (await admin("GET", "/admin/v1/dead-letters")).body.deadLetters.map(
      (l: { deadLetterId: string }) => l.deadLetterId,
    );
    expect(left).not.toContain(discarded);
    const audited = (await admin("GET", `/admin/v1/audit?target=${encodeURIComponent(discarded)}`)).body.entries;
    expect(audited[0]).toMatchObject({ actor: "console", action: "adminDiscardDeadLetter" });
  });

  test("the save page renders", async () => {
    await call(d, "POST", "/api/v1/saves/console-save/sync", {
      key: ids.key,
      body: { baseVersion: 0, externalUserId: "u1", metadata: { slot: 1 }, state: { hp: 3 } },
    });
    await visit("save", `/console/saves/${ids.projectId}/stage/console-save`);
    expect(await page.getByText('"hp": 3').count()).toBe(1);
  });

  test("no request left the machine, no CSP violation, no serious accessibility violation; transfer size printed", async () => {
    await visit("workspaces-reload", "/console/workspaces");
    const heaviest = Object.entries(transfer).sort((a, b) => b[1] - a[1])[0]!;
    console.log(`console transfer per page (bytes on the wire, gzip): ${JSON.stringify(transfer)}`);
    console.log(`heaviest page: ${heaviest[0]}, ${(heaviest[1] / 1024).toFixed(1)} KB`);
    console.log(`screenshots: ${shots}`);
    expect(blocked).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(Object.fromEntries(Object.entries(axeFindings).filter(([, v]) => v.length))).toEqual({});
    expect(Object.keys(axeFindings).length).toBeGreaterThanOrEqual(12);
  });

  test("sign-out clears the cookie, and a copy of the cookie kept from before is refused too", async () => {
    await page.goto(`${base}/console/workspaces`);
    const kept = (await context.cookies(`${base}/console/workspaces`)).find((c) => c.name === cookieName)!;
    const replay = () =>
      fetch(`${base}/console/workspaces`, { redirect: "manual", headers: { cookie: `${cookieName}=${kept.value}` } });
    expect((await replay()).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect((await context.cookies(`${base}/console/workspaces`)).find((c) => c.name === cookieName)).toBeUndefined();
    await page.goto(`${base}/console/audit`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const replayed = await replay();
    expect([replayed.status, replayed.headers.get("location")]).toEqual([303, "/console/sign-in"]);
  });
});
