import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type Answer, call } from "../helpers/api.ts";
import { type ConsoleHarness, startConsoleHarness } from "../helpers/console-harness.ts";
import { adminToken, type Deployment } from "../helpers/deployments.ts";

/** docs/operators.md: a support operator signs in to the console with its own token, and the audit log names it. */
const shots = "/tmp/console-shots";
let base: string;
let d: Deployment;
let h: ConsoleHarness;
let page: Page;
const admin = (method: string, path: string, body?: unknown): Promise<Answer> =>
  call(d, method, path, { key: adminToken, body });

beforeAll(async () => {
  h = await startConsoleHarness("console-operators");
  ({ base, d, page } = h);
  mkdirSync(shots, { recursive: true });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test("a support operator signs in with its own token, is refused a key revoke, restores a slot, and the audit log names it", async () => {
  const ws = await admin("POST", "/admin/v1/workspaces", { name: "Studio", plan: "self_hosted" });
  const project = await admin("POST", `/admin/v1/workspaces/${ws.body.workspaceId}/projects`, { name: "Game" });
  const projectId: string = project.body.projectId;
  const key = await admin("POST", `/admin/v1/projects/${projectId}/environments/stage/runtime-keys`, { label: "game" });
  const acc = await call(d, "POST", "/api/v1/accounts", {
    key: key.body.runtimeKey,
    body: { slot: { slotId: "main", data: { gold: 1 } } },
  });
  const accountId: string = acc.body.accountId;
  const sync = {
    key: key.body.runtimeKey,
    session: acc.body.accountSessionToken,
    body: { baseVersion: 1, data: { gold: 2 } },
  };
  expect((await call(d, "POST", `/api/v1/accounts/${accountId}/slots/main/sync`, sync)).status).toBe(200);
  // A wrong token is refused, and the refusal is in the audit log (never the token).
  await page.goto(`${base}/console/sign-in`);
  await page.locator("#token").fill("spo_notAToken");
  await page.keyboard.press("Enter");
  await page.getByText("neither the admin token nor a live operator token").waitFor();
  const failed = (await admin("GET", "/admin/v1/audit?action=adminConsoleSignInFailed")).body.entries;
  expect(failed.length).toBe(1);
  expect(JSON.stringify(failed)).not.toContain("spo_notAToken");

  // The owner (the admin token) adds the operator in the console and hands over its token, shown once.
  await page.goto(`${base}/console/sign-in`);
  await page.locator("#token").fill(adminToken);
  await page.keyboard.press("Enter");
  await page.getByRole("link", { name: "Operators" }).click();
  // The page it leaves (Workspaces) has a "Name" field too: filled there before the swap, the operator's
  // stays empty and the required field stops the post (one CI run).
  await page.getByRole("heading", { name: "Operators", exact: true }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill("Sam Support");
  await page.getByLabel("Role").selectOption("support");
  await page.getByRole("button", { name: "Add operator" }).click();
  await page.getByText("The token is shown once").waitFor();
  await page.screenshot({ path: join(shots, "operators.png"), fullPage: true });
  const operatorToken = (await page.locator(".secret code").textContent())!;
  const operatorId = (await admin("GET", "/admin/v1/operators")).body.operators.find(
    (o: { name: string }) => o.name === "Sam Support",
  ).operatorId;
  expect(operatorToken).toMatch(/^spo_/);
  await page.getByRole("button", { name: "Sign out" }).click();
  // The sign-out lands on a sign-in form: use that one (a second form in flight would race it for the cookie).
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.locator("#token").fill(operatorToken);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Workspaces" }).waitFor();
  expect(await page.content()).not.toContain(operatorToken);

  await page.goto(`${base}/console/projects/${projectId}`);
  await page.getByRole("button", { name: `Revoke ${key.body.keyId}` }).click();
  await page.getByText("This needs the owner role").first().waitFor();
  await page.screenshot({ path: join(shots, "operator-refused.png"), fullPage: true });
  expect((await admin("GET", `/admin/v1/runtime-keys/${key.body.keyId}`)).body.revokedAt).toBeUndefined();

  await page.goto(`${base}/console/accounts/${accountId}/slots/main`);
  await page.getByRole("link", { name: "Restore version 1…" }).click();
  await page.getByRole("button", { name: /Restore version 1 as version 3/ }).click();
  await page.getByText("Restored version 1 as version 3").first().waitFor();

  await page.goto(`${base}/console/audit?target=${accountId}`);
  await page.getByText(`operator:${operatorId} (Sam Support)`).first().waitFor();
  await page.screenshot({ path: join(shots, "operator-audit.png"), fullPage: true });
  const entries = (await admin("GET", `/admin/v1/audit?target=${accountId}&action=adminRestoreSlot`)).body.entries;
  expect(entries[0].actor).toBe(`operator:${operatorId} (Sam Support)`);
  // A support operator does not manage operators: the API refuses, so the console page does.
  await page.goto(`${base}/console/operators`);
  await page.getByText("This needs the owner role").first().waitFor();
  // The sign-in is in the log too, under the operator's name.
  const signIns = (await admin("GET", "/admin/v1/audit?action=adminConsoleSignIn")).body.entries;
  expect(signIns[0]).toMatchObject({ actor: `operator:${operatorId} (Sam Support)`, target: operatorId });

  // Revoked by the owner: the operator's console session ends at once.
  expect((await admin("DELETE", `/admin/v1/operators/${operatorId}`)).status).toBe(200);
  await page.goto(`${base}/console/workspaces`);
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  expect(new URL(page.url()).pathname).toBe("/console/sign-in");
}, 60_000);

test('a 200 KB restore\'s entry in the console shows its change, never "No differences"', async () => {
  const ws = await admin("POST", "/admin/v1/workspaces", { name: "Big", plan: "self_hosted" });
  const project = await admin("POST", `/admin/v1/workspaces/${ws.body.workspaceId}/projects`, { name: "Game" });
  const key = (await admin("POST", `/admin/v1/projects/${project.body.projectId}/environments/stage/runtime-keys`, {}))
    .body.runtimeKey;
  const big = (c: string) => ({ blob: c.repeat(200_000) });
  const acc = await call(d, "POST", "/api/v1/accounts", { key, body: { slot: { slotId: "main", data: big("a") } } });
  const sync = { key, session: acc.body.accountSessionToken, body: { baseVersion: 1, data: big("b") } };
  expect((await call(d, "POST", `/api/v1/accounts/${acc.body.accountId}/slots/main/sync`, sync)).status).toBe(200);
  expect(
    (await admin("POST", `/admin/v1/accounts/${acc.body.accountId}/slots/main/restore`, { version: 1 })).status,
  ).toBe(200);

  await page.goto(`${base}/console/sign-in`);
  await page.locator("#token").fill(adminToken);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Workspaces" }).waitFor();
  await page.goto(`${base}/console/audit?target=${acc.body.accountId}&action=adminRestoreSlot`);
  await page
    .getByText(/adminRestoreSlot/)
    .first()
    .click();
  expect(await page.getByText("No differences").count()).toBe(0);
  await page.getByRole("link", { name: "Show this change" }).click();
  await page.getByRole("heading", { name: /Audit entry aud_/ }).waitFor();
  await page.screenshot({ path: join(shots, "operator-large-entry.png") });
  expect(await page.getByText("No differences").count()).toBe(0);
  // The changed path, with both sides' sizes: the values were kept whole (a clipped one shows neither).
  const row = page.locator("table.diff tr.changed", { hasText: "data.blob" });
  expect(await row.count()).toBe(1);
  expect(await row.textContent()).toContain("bbbbbbbbbb");
  expect(await row.textContent()).toContain("aaaaaaaaaa");
  expect((await row.textContent())!.match(/195\.3 KB in all/g)?.length).toBe(2);
}, 60_000);
