import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AccountDoc } from "../../services/accounts/repo.ts";
import type { AccountUsageDoc } from "../../services/accounts/environment-budget.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

/**
 * README, Storage budgets: the accounts of one environment together store at most the plan's
 * `bytesPerEnvironmentAccounts`, however many accounts one address opens, counted exactly through two
 * gateway copies and two accounts copies. `growth` has a 1 MiB one here, and records a restore point
 * only at creation (once a day), so each account's bytes are known.
 */
const budget = 1_048_576;
const plansFile = join(tempDir("plans-env-accounts"), "plans.json");
const storage = { bytesPerAccount: budget, bytesPerEnvironmentSaves: budget, bytesPerEnvironmentAccounts: budget };
const growth = { ...defaultPlans.growth, snapshot: { everySeconds: 86_400, keptPerSlot: 10, retentionDays: 7 }, storage };
await Bun.write(plansFile, JSON.stringify({ ...defaultPlans, growth }));

/** A value whose JSON is exactly `n` bytes long; `tag` makes values of one size differ. */
const blob = (n: number, tag = "x") => ({ s: tag + "x".repeat(n - 9) });
const storedOf = async (d: Deployment, accountId: string) =>
  (await admin(d, "GET", `/admin/v1/accounts/${accountId}`)).body.storage as { storedBytes: number; currentStateBytes: number };

async function freshTenant(d: Deployment) {
  const t = await newTenant(d, "growth");
  const limits = { accountCreationsPerIpPerMinute: 1000, sessionRequestsPerMinute: 100_000 };
  expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: limits })).status).toBe(200);
  return t;
}

const refusedByEnvironment = (a: Answer) =>
  a.status === 409 && a.body.error?.code === "storage_quota_exceeded" && a.body.error.details?.scope === "environment_accounts";

const suite = { env: { SAVEPOINT_PLANS: plansFile }, distributed: { copies: { gateway: 2 } }, timeoutMs: 120_000 };

forEachDeployment("an environment's accounts share one storage budget", suite, ({ setup: s }) => {
  test("past it a new account or a larger state is refused with the documented 409 and changes nothing; a smaller one passes", async () => {
    const { d } = s;
    const t = await freshTenant(d);
    const a1 = await newAccount(d, t.key, { accountData: blob(200_000, "1") });
    const a2 = await newAccount(d, t.key, { accountData: blob(200_000, "2") });
    const [s1, s2] = [await storedOf(d, a1.accountId), await storedOf(d, a2.accountId)];
    const used = s1.storedBytes + s2.storedBytes;
    const current = s1.currentStateBytes + s2.currentStateBytes;

    // A third account of the same size would store as much again: past the budget.
    const third = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "3") } });
    expect(third.status).toBe(409);
    expect(third.body.error).toEqual({
      code: "storage_quota_exceeded",
      message: expect.any(String),
      details: {
        scope: "environment_accounts",
        budgetBytes: budget,
        usedBytes: used,
        currentStateBytes: current,
        historyBytes: used - current,
        requiredBytes: used + s1.storedBytes,
      },
    });

    // A slot whose restore point does not fit is kept without one; a larger state past the budget is refused.
    const slot = await a2.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "big", data: blob(240_000, "s") } });
    expect(slot.status).toBe(201);
    expect((await admin(d, "GET", `/admin/v1/accounts/${a2.accountId}/slots/big/history`)).body.snapshots).toEqual([]);
    const grown = await a2.call("POST", "/api/v1/accounts/{acc}/slots/big/sync", { body: { baseVersion: 1, data: blob(262_000, "g") } });
    expect(grown.status).toBe(409);
    expect(grown.body.error).toMatchObject({ code: "storage_quota_exceeded", details: { scope: "environment_accounts", budgetBytes: budget } });
    const after = await a2.call("GET", "/api/v1/accounts/{acc}/slots/big");
    expect(after.body).toMatchObject({ version: 1, data: blob(240_000, "s") });
    const data = await a1.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1, accountData: blob(262_000, "d") } });
    expect(refusedByEnvironment(data)).toBe(true);
    expect((await a1.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({ version: 1, accountData: blob(200_000, "1") });

    // The count moved only by what was written: a refusal's usedBytes is the accounts' own total.
    const stored = (await storedOf(d, a1.accountId)).storedBytes + (await storedOf(d, a2.accountId)).storedBytes;
    expect(grown.body.error.details.usedBytes).toBe(stored);
    expect(data.body.error.details.usedBytes).toBe(stored);

    // Smaller always passes, and frees room: then the larger one fits.
    expect((await a2.call("POST", "/api/v1/accounts/{acc}/slots/big/sync", { body: { baseVersion: 1, data: blob(1000) } })).status).toBe(200);
    expect((await a1.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1, accountData: blob(262_000, "d") } })).status).toBe(200);

    // A deleted account's bytes come back once its cleanup erased it: a new account fits again.
    expect((await a1.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    const deadline = Date.now() + 20_000;
    let again = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "4") } });
    while (again.status === 409 && Date.now() < deadline) {
      await Bun.sleep(200);
      again = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "4") } });
    }
    expect(again.status).toBe(201);
  });

  test("30 concurrent creations from one address through two gateway copies: exactly as many as fit are opened", async () => {
    const t = await freshTenant(s.d);
    const body = (i: number) => ({ accountData: blob(50_000, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"[i]) }); // no character JSON escapes
    const create = (i: number) => call(i % 2 ? s.other : s.d, "POST", "/api/v1/accounts", { key: t.key, body: body(i) });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i)));
    const opened = answers.filter((a) => a.status === 201);
    expect(answers.filter((a) => a.status !== 201).every(refusedByEnvironment)).toBe(true);
    // Every account stores the same bytes: the budget holds exactly that many of them.
    const each = (await storedOf(s.d, opened[0]!.body.accountId)).storedBytes;
    expect(opened.length).toBe(Math.floor(budget / each));
    const one = await call(s.d, "POST", "/api/v1/accounts", { key: t.key, body: body(0) });
    expect(refusedByEnvironment(one)).toBe(true);
    expect(one.body.error.details.usedBytes).toBe(opened.length * each);
  });
});

describe("an environment's accounts counted before its count existed (embedded)", () => {
  test("its first write after the upgrade counts every account already counted", async () => {
    const dataDir = tempDir("legacy-env");
    const env = { SAVEPOINT_PLANS: plansFile, SAVEPOINT_DATA_DIR: dataDir };
    let d = await startEmbedded(env);
    let t: Awaited<ReturnType<typeof freshTenant>>;
    const ids: string[] = [];
    try {
      t = await freshTenant(d);
      for (const tag of ["1", "2"]) ids.push((await newAccount(d, t.key, { accountData: blob(200_000, tag) })).accountId);
    } finally {
      await d.stop();
    }
    // As a version without the environment's count left it: accounts counted, the environment not.
    const store = createSqliteStore(join(dataDir, "accounts.sqlite"));
    const envId = (await (await store.collection<AccountDoc>("accounts")).get(ids[0]!))!.envId;
    expect(await (await store.collection<AccountUsageDoc>("accountUsage")).delete({ _id: envId })).toBe(1);
    await store.close();

    d = await startEmbedded(env);
    try {
      const used = (await storedOf(d, ids[0]!)).storedBytes + (await storedOf(d, ids[1]!)).storedBytes;
      const third = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "3") } });
      expect(refusedByEnvironment(third)).toBe(true);
      expect(third.body.error.details.usedBytes).toBe(used);
    } finally {
      await d.stop();
    }
  });
});
