import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AccountUsageDoc } from "../../services/accounts/environment-budget.ts";
import type { AccountDoc } from "../../services/accounts/repo.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

/**
 * docs/plans-and-limits.md#storage-budgets: the accounts of one environment together store at most the plan's
 * `bytesPerEnvironmentAccounts`, however many accounts one address opens, counted exactly through two
 * gateway copies and two accounts copies. `growth` has a 1 MiB one here, and records a restore point
 * only at creation (once a day), so each account's bytes are known.
 */
const budget = 1_048_576;
const plansFile = join(tempDir("plans-env-accounts"), "plans.json");
const storage = { bytesPerAccount: budget, bytesPerEnvironmentSaves: budget, bytesPerEnvironmentAccounts: budget };
const growth = {
  ...defaultPlans.growth,
  snapshot: { everySeconds: 86_400, keptPerSlot: 10, retentionDays: 7 },
  storage,
};
await Bun.write(plansFile, JSON.stringify({ ...defaultPlans, growth }));

/** A value whose JSON is exactly `n` bytes long; `tag` makes values of one size differ. */
const blob = (n: number, tag = "x") => ({ s: tag + "x".repeat(n - 9) });
const storedOf = async (d: Deployment, accountId: string) =>
  (await admin(d, "GET", `/admin/v1/accounts/${accountId}`)).body.storage as {
    storedBytes: number;
    currentStateBytes: number;
  };

async function freshTenant(d: Deployment) {
  const t = await newTenant(d, "growth");
  const limits = { accountCreationsPerIpPerMinute: 1000, sessionRequestsPerMinute: 100_000 };
  expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: limits })).status).toBe(
    200,
  );
  return t;
}

/** What an account reserves ahead at a time under this budget (environment-budget.ts, chunkOf). */
const chunk = budget / 1024;

/** The reservations as the store holds them: the environment's count and each account's own. */
async function reservations(d: Deployment, accountIds: string[]) {
  const x = d as Deployment & { dataDir?: string; mongoUrl?: string; db?: string };
  const store: Store = x.dataDir
    ? createSqliteStore(join(x.dataDir, "accounts.sqlite"))
    : await createMongoStore(x.mongoUrl!, x.db!);
  try {
    const accounts = await store.collection<AccountDoc>("accounts");
    const docs = await Promise.all(accountIds.map(async (id) => (await accounts.get(id))!));
    const env = await (await store.collection<AccountUsageDoc>("accountUsage")).get(docs[0]!.envId);
    return { env: env?.reservedBytes, own: docs.map((a) => a.envReserved!), stored: docs.map((a) => a.storedBytes!) };
  } finally {
    await store.close();
  }
}

const refusedByEnvironment = (a: Answer) =>
  a.status === 409 &&
  a.body.error?.code === "storage_quota_exceeded" &&
  a.body.error.details?.scope === "environment_accounts";

const suite = { env: { SAVEPOINT_PLANS: plansFile }, distributed: { copies: { gateway: 2 } }, timeoutMs: 120_000 };

forEachDeployment("an environment's accounts share one storage budget", suite, ({ setup: s }) => {
  test("past it a new account or a larger state is refused with the documented 409 and changes nothing; a smaller one passes", async () => {
    const { d } = s;
    const t = await freshTenant(d);
    const a1 = await newAccount(d, t.key, { accountData: blob(200_000, "1") });
    const a2 = await newAccount(d, t.key, { accountData: blob(200_000, "2") });
    const [s1, s2] = [await storedOf(d, a1.accountId), await storedOf(d, a2.accountId)];
    // Each reserved its bytes and a chunk ahead: the environment counts reservations.
    const held = await reservations(d, [a1.accountId, a2.accountId]);
    expect(held.own).toEqual([s1.storedBytes + chunk, s2.storedBytes + chunk]);
    const used = held.own[0]! + held.own[1]!;
    expect(held.env).toBe(used);

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
        currentStateBytes: used,
        historyBytes: 0,
        requiredBytes: used + s1.storedBytes,
      },
    });

    // A slot whose restore point does not fit is kept without one; a larger state past the budget is refused.
    const slot = await a2.call("POST", "/api/v1/accounts/{acc}/slots", {
      body: { slotId: "big", data: blob(240_000, "s") },
    });
    expect(slot.status).toBe(201);
    expect((await admin(d, "GET", `/admin/v1/accounts/${a2.accountId}/slots/big/history`)).body.snapshots).toEqual([]);
    const grown = await a2.call("POST", "/api/v1/accounts/{acc}/slots/big/sync", {
      body: { baseVersion: 1, data: blob(262_000, "g") },
    });
    expect(grown.status).toBe(409);
    expect(grown.body.error).toMatchObject({
      code: "storage_quota_exceeded",
      details: { scope: "environment_accounts", budgetBytes: budget },
    });
    const after = await a2.call("GET", "/api/v1/accounts/{acc}/slots/big");
    expect(after.body).toMatchObject({ version: 1, data: blob(240_000, "s") });
    const data = await a1.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountData: blob(262_000, "d") },
    });
    expect(refusedByEnvironment(data)).toBe(true);
    expect((await a1.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({
      version: 1,
      accountData: blob(200_000, "1"),
    });

    // The count moved only by what was written: a refusal's usedBytes is the accounts' reservations.
    const full = await reservations(d, [a1.accountId, a2.accountId]);
    expect(full.env).toBe(full.own[0]! + full.own[1]!);
    expect(grown.body.error.details.usedBytes).toBe(full.env);
    expect(data.body.error.details.usedBytes).toBe(full.env);

    // Smaller always passes, and frees room: the account keeps one 64 KiB spare, gives back the rest; then the larger one fits.
    expect(
      (await a2.call("POST", "/api/v1/accounts/{acc}/slots/big/sync", { body: { baseVersion: 1, data: blob(1000) } }))
        .status,
    ).toBe(200);
    const shrunk = await reservations(d, [a2.accountId, a1.accountId]);
    expect(shrunk.own[0]! - shrunk.stored[0]!).toBe(65_536);
    expect(shrunk.env).toBe(shrunk.own[0]! + shrunk.own[1]!);
    expect(
      (
        await a1.call("POST", "/api/v1/accounts/{acc}/data/sync", {
          body: { baseVersion: 1, accountData: blob(262_000, "d") },
        })
      ).status,
    ).toBe(200);

    // A deleted account's bytes come back once its cleanup erased it: a new account fits again.
    expect((await a1.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    const deadline = Date.now() + 20_000;
    let again = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "4") } });
    while (again.status === 409 && Date.now() < deadline) {
      await Bun.sleep(200);
      again = await call(d, "POST", "/api/v1/accounts", { key: t.key, body: { accountData: blob(200_000, "4") } });
    }
    expect(again.status).toBe(201);
    // All the deleted account held reserved went back: the count is the two live accounts' reservations.
    const after2 = await reservations(d, [a1.accountId, a2.accountId, again.body.accountId]);
    expect(after2.own[0]).toBe(0);
    expect(after2.env).toBe(after2.own[1]! + after2.own[2]!);
  });

  test("many small growths of an account cost one reservation from its environment per chunk", async () => {
    const { d } = s;
    const t = await freshTenant(d);
    const a = await newAccount(d, t.key, { accountData: blob(1000, "a") });
    const seen: { env: number; own: number; stored: number }[] = [];
    for (let v = 1; v <= 26; v++) {
      if (v > 1) {
        const grown = await a.call("POST", "/api/v1/accounts/{acc}/data/sync", {
          body: { baseVersion: v - 1, accountData: blob(1000 + 100 * (v - 1), "a") },
        });
        expect(grown.status).toBe(200);
      }
      const r = await reservations(d, [a.accountId]);
      seen.push({ env: r.env!, own: r.own[0]!, stored: r.stored[0]! });
    }
    // 2,500 bytes of growth past the first chunk's 1,024 spare: two more chunks, each reserved once.
    const steps = seen
      .slice(1)
      .map((r, i) => r.own - seen[i]!.own)
      .filter((n) => n !== 0);
    expect(steps).toEqual([chunk, chunk]);
    for (const r of seen) {
      expect(r.env).toBe(r.own);
      expect(r.own).toBeGreaterThanOrEqual(r.stored);
    }
    expect(seen[25]!.stored - seen[0]!.stored).toBe(2500);
  });

  test("30 concurrent creations from one address through two gateway copies: exactly as many as fit are opened", async () => {
    const t = await freshTenant(s.d);
    const body = (i: number) => ({ accountData: blob(50_000, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"[i]) }); // no character JSON escapes
    const create = (i: number) =>
      call(i % 2 ? s.other : s.d, "POST", "/api/v1/accounts", { key: t.key, body: body(i) });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i)));
    const opened = answers.filter((a) => a.status === 201);
    expect(answers.filter((a) => a.status !== 201).every(refusedByEnvironment)).toBe(true);
    // Every account stores the same bytes: the budget holds exactly that many of them.
    const each = (await storedOf(s.d, opened[0]!.body.accountId)).storedBytes;
    expect(opened.length).toBe(Math.floor(budget / each));
    const one = await call(s.d, "POST", "/api/v1/accounts", { key: t.key, body: body(0) });
    expect(refusedByEnvironment(one)).toBe(true);
    // Each reserved its bytes and one chunk ahead (room was left for that): the count is their sum.
    expect(one.body.error.details.usedBytes).toBe(opened.length * (each + chunk));
    expect((await reservations(s.d, [opened[0]!.body.accountId])).env).toBe(opened.length * (each + chunk));
  });
});

describe("an environment's accounts counted before reservations (embedded)", () => {
  // Before the environment's count existed (no document), or as the first count left it (stored bytes, no reservations).
  const what = "with %s, its first write after the upgrade counts every account; each reserves at its first growth";
  test.each(["no count", "a count of stored bytes"])(what, async (was) => {
    const dataDir = tempDir("legacy-env");
    const env = { SAVEPOINT_PLANS: plansFile, SAVEPOINT_DATA_DIR: dataDir };
    let d = await startEmbedded(env);
    let t: Awaited<ReturnType<typeof freshTenant>>;
    const sessions: string[] = [];
    const ids: string[] = [];
    try {
      t = await freshTenant(d);
      for (const tag of ["1", "2"]) {
        const a = await newAccount(d, t.key, { accountData: blob(200_000, tag) });
        ids.push(a.accountId);
        sessions.push(a.session);
      }
    } finally {
      await d.stop();
    }
    // As an earlier version left it: accounts counted, none reserved.
    const store = createSqliteStore(join(dataDir, "accounts.sqlite"));
    const accounts = await store.collection<AccountDoc>("accounts");
    const envId = (await accounts.get(ids[0]!))!.envId;
    for (const id of ids)
      expect(
        await accounts.update({ _id: id }, { envReserved: null } as unknown as Partial<AccountDoc>),
      ).not.toBeNull();
    const usage = await store.collection<AccountUsageDoc & { storedBytes?: number }>("accountUsage");
    if (was === "no count") expect(await usage.delete({ _id: envId })).toBe(1);
    else
      expect(
        await usage.update({ _id: envId }, {
          reservedBytes: null,
          storedBytes: 1,
        } as unknown as Partial<AccountUsageDoc>),
      ).not.toBeNull();
    await store.close();

    d = await startEmbedded(env);
    try {
      const stored = [(await storedOf(d, ids[0]!)).storedBytes, (await storedOf(d, ids[1]!)).storedBytes];
      const used = stored[0]! + stored[1]!;
      const third = await call(d, "POST", "/api/v1/accounts", {
        key: t.key,
        body: { accountData: blob(200_000, "3") },
      });
      expect(refusedByEnvironment(third)).toBe(true);
      expect(third.body.error.details.usedBytes).toBe(used);
      // The first account's first growth records what it held (its stored bytes), then reserves a chunk past it.
      const grown = await call(d, "POST", `/api/v1/accounts/${ids[0]}/data/sync`, {
        key: t.key,
        session: sessions[0],
        body: { baseVersion: 1, accountData: blob(200_100, "1") },
      });
      expect(grown.status).toBe(200);
      const r = await reservations(d, ids);
      expect(r.stored[0]).toBe(stored[0]! + 100);
      expect(r.own[0]).toBe(stored[0]! + chunk);
      expect(r.own[1] ?? null).toBeNull(); // not written since: not recorded yet
      expect(r.env).toBe(used + chunk);
    } finally {
      await d.stop();
    }
  });
});
