import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AccountDoc } from "../../services/accounts/repo.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { type Deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

type Account = Awaited<ReturnType<typeof newAccount>>;

/** Small budgets, so a test fills them in a few dozen requests. */
const budget = 1_048_576;
const plansFile = join(tempDir("plans"), "plans.json");
const storage = { bytesPerAccount: budget, bytesPerEnvironmentSaves: budget };
await Bun.write(
  plansFile,
  JSON.stringify({
    ...defaultPlans,
    self_hosted: { ...defaultPlans.self_hosted, storage },
    // Every sync a snapshot and 3 kept: trims by count and evictions by budget meet.
    starter: { ...defaultPlans.starter, snapshot: { everySeconds: 0, keptPerSlot: 3, retentionDays: 7 }, storage },
  }),
);
const env = { SAVEPOINT_PLANS: plansFile };

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
/** A value whose JSON is exactly `n` bytes long; `tag` makes values of one size differ. */
const blob = (n: number, tag = "x") => ({ s: tag + "x".repeat(n - 9) });
const slotSync = (acc: Account, slotId: string, baseVersion: number, data: unknown) =>
  acc.call("POST", `/api/v1/accounts/{acc}/slots/${slotId}/sync`, { body: { baseVersion, data } });
const slotHistory = async (d: Deployment, acc: Account, slotId: string) =>
  (await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}/slots/${slotId}/history`)).body.snapshots as {
    version: number;
    sizeBytes: number;
  }[];

/** What the account stores, counted through the API: current states and every listed restore point. */
async function recount(d: Deployment, acc: Account, slotIds: string[]) {
  const account = (await acc.call("GET", "/api/v1/accounts/{acc}")).body;
  let current = bytes(account.accountData);
  let history = (
    (await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}/history`)).body.snapshots as { sizeBytes: number }[]
  ).reduce((n, s) => n + s.sizeBytes, 0);
  for (const slotId of slotIds) {
    const slot = (await acc.call("GET", `/api/v1/accounts/{acc}/slots/${slotId}`)).body;
    current += bytes(slot.slotInfo) + bytes(slot.data);
    history += (await slotHistory(d, acc, slotId)).reduce((n, s) => n + s.sizeBytes, 0);
  }
  return { current, history, total: current + history };
}

const storageOf = async (d: Deployment, acc: Account) =>
  (await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`)).body.storage;

/** An account of a new `starter` tenant (3 restore points kept) with 8 slots, `<prefix>0` to `<prefix>7`. */
async function starterSlots(d: Deployment, prefix: string) {
  const t = await newTenant(d, "starter");
  await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
    rateLimits: { sessionRequestsPerMinute: 100_000 },
  });
  const acc = await newAccount(d, t.key);
  const ids = Array.from({ length: 8 }, (_, i) => `${prefix}${i}`);
  for (const id of ids)
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: id, data: { id } } })).status,
    ).toBe(201);
  return { acc, ids };
}

/** `rounds` rounds of every slot synced at once, slot i of round r `size(i, r)` bytes; every one accepted. */
async function syncRounds(acc: Account, ids: string[], rounds: number, size: (i: number, round: number) => number) {
  for (let round = 1; round <= rounds; round++) {
    const answers = await Promise.all(ids.map((id, i) => slotSync(acc, id, round, blob(size(i, round), `${round}`))));
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
  }
}

/** The account's counts, as the admin view shows them, equal a recount through the API; the recount. */
async function countedExactly(d: Deployment, acc: Account, ids: string[]) {
  const counted = await recount(d, acc, ids);
  expect(await storageOf(d, acc)).toMatchObject({
    storedBytes: counted.total,
    currentStateBytes: counted.current,
    historyBytes: counted.history,
  });
  return counted;
}

forEachDeployment(
  "storage budgets",
  { env, tenant: { rateLimits: { sessionRequestsPerMinute: 100_000 } }, timeoutMs: 120_000 },
  ({ name, d, tenant }) => {
    test("history fills the budget: the oldest restore points go, the newest and the current state stay", async () => {
      const acc = await newAccount(d, tenant.key);
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "a", data: blob(100_000, "0") } }))
          .status,
      ).toBe(201);
      let version = 1;
      for (let i = 1; i <= 20; i++) {
        const synced = await slotSync(acc, "a", version, blob(100_000, String.fromCharCode(65 + i)));
        expect(synced.status).toBe(200);
        version = synced.body.version;
      }
      expect(version).toBe(21);
      const slot = (await acc.call("GET", "/api/v1/accounts/{acc}/slots/a")).body;
      expect(slot.version).toBe(21);
      expect(slot.data).toEqual(blob(100_000, String.fromCharCode(85)));
      const kept = (await slotHistory(d, acc, "a")).map((s) => s.version);
      console.log(
        `[${name}] 21 writes of 100 kB into a ${budget}-byte budget keep restore points ${kept.at(-1)}..${kept[0]}`,
      );
      // The newest ones stay, contiguous; the oldest went.
      expect(kept[0]).toBe(21);
      expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 21 - i));
      expect(kept.length).toBeGreaterThanOrEqual(5);
      expect(kept).not.toContain(1);
      const counted = await recount(d, acc, ["a"]);
      expect(counted.total).toBeLessThanOrEqual(budget);
      const storage = await storageOf(d, acc);
      expect(storage).toMatchObject({
        storedBytes: counted.total,
        currentStateBytes: counted.current,
        historyBytes: counted.history,
        budgetBytes: budget,
      });
    });

    test("a write whose current state alone does not fit is refused with storage_quota_exceeded and changes nothing", async () => {
      const acc = await newAccount(d, tenant.key);
      const ids = ["s0", "s1", "s2", "s3", "s4"];
      for (const [i, slotId] of ids.entries())
        expect(
          (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId, data: blob(200_000, String(i)) } }))
            .status,
        ).toBe(201);
      const before = await recount(d, acc, ids);
      expect(before.total).toBeLessThanOrEqual(budget);

      const created = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
        body: { slotId: "s5", data: blob(200_000, "5") },
      });
      expect(created.status).toBe(409);
      expect(created.body.error).toEqual({
        code: "storage_quota_exceeded",
        message: expect.any(String),
        details: {
          scope: "account",
          budgetBytes: budget,
          usedBytes: before.total,
          currentStateBytes: before.current,
          historyBytes: before.history,
          requiredBytes: before.current + bytes({}) + bytes(blob(200_000)),
        },
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s5")).status).toBe(404);

      // A sync growing one slot past what the budget holds for current states.
      const grown = await slotSync(acc, "s0", 1, blob(262_144, "g"));
      expect(grown.status).toBe(409);
      expect(grown.body.error.code).toBe("storage_quota_exceeded");
      expect(grown.body.error.details.scope).toBe("account");
      const s0 = (await acc.call("GET", "/api/v1/accounts/{acc}/slots/s0")).body;
      expect(s0.version).toBe(1);
      expect(s0.data).toEqual(blob(200_000, "0"));
      expect(await recount(d, acc, ids)).toEqual(before);
      expect((await storageOf(d, acc)).storedBytes).toBe(before.total);
      // A smaller state still syncs.
      expect((await slotSync(acc, "s0", 1, blob(1000))).status).toBe(200);
    });

    test("identical consecutive syncs store one snapshot", async () => {
      const acc = await newAccount(d, tenant.key);
      const a = { level: 3, inventory: ["sword"] };
      const b = { level: 4, inventory: ["sword"] };
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "m", data: a } })).status).toBe(
        201,
      );
      const retained: boolean[] = [];
      for (const [base, data] of [
        [1, a],
        [2, a],
        [3, b],
        [4, b],
        [5, b],
      ] as const) {
        const synced = await slotSync(acc, "m", base, data);
        expect(synced.status).toBe(200);
        retained.push(synced.body.historyRetained);
      }
      expect(retained).toEqual([false, false, true, false, false]);
      expect((await slotHistory(d, acc, "m")).map((s) => s.version)).toEqual([4, 1]);
      const data = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
        body: { baseVersion: 1, accountData: {} },
      });
      expect(data.body.historyRetained).toBe(false);
      expect(
        (await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}/history`)).body.snapshots.map(
          (s: { version: number }) => s.version,
        ),
      ).toEqual([1]);
    });

    test("concurrent syncs of 8 slots of one account are counted exactly, and the admin view's bytes equal a recount", async () => {
      const acc = await newAccount(d, tenant.key);
      const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
      for (const id of ids)
        expect(
          (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: id, data: { id } } })).status,
        ).toBe(201);
      for (let round = 1; round <= 4; round++) {
        const answers = await Promise.all(
          ids.map((id, i) => slotSync(acc, id, round, blob(1000 + 997 * i * round, String(round)))),
        );
        expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
      }
      const counted = await recount(d, acc, ids);
      const storage = await storageOf(d, acc);
      expect(storage).toMatchObject({
        storedBytes: counted.total,
        currentStateBytes: counted.current,
        historyBytes: counted.history,
      });
      // Deleting a slot gives its bytes back once its history is erased.
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/c7")).status).toBe(200);
      const after = await recount(d, acc, ids.slice(0, 7));
      const deadline = Date.now() + 15_000;
      while ((await storageOf(d, acc)).storedBytes !== after.total && Date.now() < deadline) await Bun.sleep(100);
      expect((await storageOf(d, acc)).storedBytes).toBe(after.total);
    });

    test("at the budget, concurrent syncs whose trims and evictions race are still counted exactly", async () => {
      const { acc, ids } = await starterSlots(d, "r");
      await syncRounds(acc, ids, 6, (i) => 50_000 + 1000 * i);
      expect((await countedExactly(d, acc, ids)).total).toBeLessThanOrEqual(budget);
      // Each slot keeps its newest restore point at least.
      for (const id of ids) expect((await slotHistory(d, acc, id))[0]?.version).toBe(7);
    });

    test("well within the budget, concurrent syncs that each trim a restore point are counted exactly", async () => {
      // 3 restore points kept: from the fourth sync of a slot on, each trims one.
      const { acc, ids } = await starterSlots(d, "w");
      // Sizes that grow past the account's reservations and shrink again, so no trim frees what its point adds.
      await syncRounds(
        acc,
        ids,
        8,
        (i, round) => 200 + 503 * ((i * 7 + round * 5) % 11) + (round % 3 === 0 ? 4_000 : 0),
      );
      expect((await countedExactly(d, acc, ids)).total).toBeLessThan(budget / 2);
      for (const id of ids) expect((await slotHistory(d, acc, id)).map((s) => s.version)).toEqual([9, 8, 7]);
    });

    test("saves: over the environment's budget a new or larger save is refused, and nothing changes", async () => {
      const t = await newTenant(d);
      const sync = (saveId: string, baseVersion: number, state: unknown) =>
        call(d, "POST", `/api/v1/saves/${saveId}/sync`, {
          key: t.key,
          body: { baseVersion, externalUserId: "u1", state },
        });
      for (let i = 0; i < 4; i++) expect((await sync(`save-${i}`, 0, blob(240_000, String(i)))).status).toBe(200);
      expect((await sync("save-4", 0, blob(80_000, "4"))).status).toBe(200);
      const used = 4 * (bytes({}) + bytes(blob(240_000))) + bytes({}) + bytes(blob(80_000));
      const over = await sync("save-5", 0, blob(10_000, "5"));
      expect(over.status).toBe(409);
      expect(over.body.error).toEqual({
        code: "storage_quota_exceeded",
        message: expect.any(String),
        details: {
          scope: "environment",
          budgetBytes: budget,
          usedBytes: used,
          currentStateBytes: used,
          historyBytes: 0,
          requiredBytes: used + bytes({}) + bytes(blob(10_000)),
        },
      });
      expect((await call(d, "GET", "/api/v1/saves/save-5", { key: t.key })).status).toBe(404);
      const larger = await sync("save-0", 1, blob(262_144, "L"));
      expect(larger.status).toBe(409);
      expect(larger.body.error.details.scope).toBe("environment");
      expect((await call(d, "GET", "/api/v1/saves/save-0", { key: t.key })).body.save).toMatchObject({
        version: 1,
        state: blob(240_000, "0"),
      });
      // Smaller is always fine, and frees room for a new one.
      expect((await sync("save-0", 1, { small: true })).status).toBe(200);
      expect((await sync("save-5", 0, blob(10_000, "5"))).status).toBe(200);
    });

    test("saves: creations per client IP are limited like account creations; updates are not", async () => {
      const t = await newTenant(d);
      expect(
        (
          await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
            rateLimits: { saveCreationsPerIpPerMinute: 3 },
          })
        ).status,
      ).toBe(200);
      await awayFromWindowEnd(60, 20);
      const create = (saveId: string) =>
        call(d, "POST", `/api/v1/saves/${saveId}/sync`, {
          key: t.key,
          body: { baseVersion: 0, externalUserId: "u", state: {} },
        });
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await create(`ip-${i}`));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers[3]!.body.error).toMatchObject({ code: "rate_limited", details: { limit: 3, windowSeconds: 60 } });
      expect((await call(d, "GET", "/api/v1/saves/ip-3", { key: t.key })).status).toBe(404);
      const update = await call(d, "POST", "/api/v1/saves/ip-0/sync", {
        key: t.key,
        body: { baseVersion: 1, state: { n: 1 } },
      });
      expect(update.status).toBe(200);
    });
  },
);

describe("storage budgets: an account stored before counts (embedded)", () => {
  test("its first write after the upgrade counts everything it stores, history included", async () => {
    const dataDir = tempDir("legacy");
    let d = await startEmbedded({ ...env, SAVEPOINT_DATA_DIR: dataDir });
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key);
    try {
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "old", data: blob(5000, "a") } }))
          .status,
      ).toBe(201);
      expect((await slotSync(acc, "old", 1, blob(7000, "b"))).status).toBe(200);
    } finally {
      await d.stop();
    }
    // As a version without counts left it: no storedBytes.
    const store = createSqliteStore(join(dataDir, "accounts.sqlite"));
    const accounts = await store.collection<AccountDoc>("accounts");
    await accounts.update({ _id: acc.accountId }, { storedBytes: null as unknown as number });
    await store.close();

    d = await startEmbedded({ ...env, SAVEPOINT_DATA_DIR: dataDir });
    const again = {
      ...acc,
      call: (method: string, path: string, o = {}) =>
        call(d, method, path.replace("{acc}", acc.accountId), { key, session: acc.session, ...o }),
    };
    try {
      expect((await slotSync(again, "old", 2, blob(9000, "c"))).status).toBe(200);
      const counted = await recount(d, again, ["old"]);
      expect(await storageOf(d, again)).toMatchObject({ storedBytes: counted.total, historyBytes: counted.history });
    } finally {
      await d.stop();
    }
  });
});
