import { expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";

type Account = Awaited<ReturnType<typeof newAccount>>;

// self_hosted keeps 4 restore points, so a version can fall out of the count; free keeps one every 30 minutes.
const plansFile = join(tempDir("player-history-plans"), "plans.json");
await Bun.write(
  plansFile,
  JSON.stringify({
    ...defaultPlans,
    self_hosted: { ...defaultPlans.self_hosted, snapshot: { everySeconds: 0, keptPerSlot: 4, retentionDays: 30 } },
  }),
);
const env = { SAVEPOINT_PLANS: plansFile };

const slotSync = (acc: Account, baseVersion: number, data: unknown, slotInfo?: unknown) =>
  acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
    body: { baseVersion, data, ...(slotInfo ? { slotInfo } : {}) },
  });
const versions = (body: { restorePoints: { version: number }[] }) => body.restorePoints.map((p) => p.version);
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

// The concurrent test sends a dozen of one account's requests at once: past the in-flight bound.
forEachDeployment(
  "player restore points",
  { env, tenant: { rateLimits: { accountConcurrentRequests: 100 } } },
  ({ d, tenant }) => {
    /** An account whose slot "main" went through versions 1..n, data {n}, slotInfo {lvl: n}. */
    async function withVersions(n: number, tenantKey = tenant.key) {
      const acc = await newAccount(d, tenantKey, { slot: { slotId: "main", slotInfo: { lvl: 1 }, data: { n: 1 } } });
      for (let v = 2; v <= n; v++) expect((await slotSync(acc, v - 1, { n: v }, { lvl: v })).status).toBe(200);
      return acc;
    }

    test("a player lists restore points, reads one, restores it, and another device's next sync gets the 409 with it", async () => {
      const acc = await withVersions(3);
      const { transferCode } = (await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      const moved = await call(d, "POST", "/api/v1/account-transfer-codes/consume", {
        key: tenant.key,
        body: { transferCode, deviceLabel: "tablet" },
      });
      const tablet = {
        ...acc,
        call: (m: string, p: string, o = {}) =>
          call(d, m, p.replace("{acc}", acc.accountId), {
            key: tenant.key,
            session: moved.body.accountSessionToken,
            ...o,
          }),
      };

      const listed = await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history");
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        accountId: acc.accountId,
        slotId: "main",
        restorePoints: [3, 2, 1].map((n) => ({
          version: n,
          createdAt: expect.any(String),
          sizeBytes: bytes({ n }),
          slotInfo: { lvl: n },
        })),
      });
      const one = await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history/1");
      expect(one.body).toEqual({
        slotId: "main",
        version: 1,
        createdAt: listed.body.restorePoints[2].createdAt,
        slotInfo: { lvl: 1 },
        data: { n: 1 },
      });

      const restored = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
        body: { version: 1, baseVersion: 3 },
      });
      expect(restored.status).toBe(200);
      expect(restored.body).toEqual({
        status: "accepted",
        version: 4,
        updatedAt: expect.any(String),
        historyRetained: true,
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 4,
        slotInfo: { lvl: 1 },
        data: { n: 1 },
      });

      const stale = await slotSync(tablet, 3, { n: 99 });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        status: "conflict",
        version: 4,
        slot: { version: 4, data: { n: 1 } },
        details: { serverSlot: { data: { n: 1 }, slotInfo: { lvl: 1 } } },
      });
      // The restore is undoable: the replaced version 3 is still a restore point.
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([4, 3, 2, 1]);
    });

    test("a restore from a stale base is 409 whose client side is the restored content, and changes nothing", async () => {
      const acc = await withVersions(3);
      const stale = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
        body: { version: 1, baseVersion: 2 },
      });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        status: "conflict",
        version: 3,
        slot: { version: 3, data: { n: 3 } },
        details: {
          reason: "base_version_mismatch",
          serverSlot: { slotInfo: { lvl: 3 }, data: { n: 3 } },
          clientSlot: { slotInfo: { lvl: 1 }, data: { n: 1 } },
        },
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 3,
        data: { n: 3 },
      });
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([3, 2, 1]);
    });

    test("a version pruned past the plan's count is 404 to read and to restore, and changes nothing", async () => {
      const acc = await withVersions(6); // keptPerSlot 4: versions 1 and 2 are gone
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([6, 5, 4, 3]);
      const read = await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history/2");
      expect([read.status, read.body.error.code]).toEqual([404, "not_found"]);
      const restore = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
        body: { version: 2, baseVersion: 6 },
      });
      expect([restore.status, restore.body.error.code]).toEqual([404, "not_found"]);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 6,
        data: { n: 6 },
      });
    });

    test("pages: newest first, limit and cursor; a foreign or bad cursor is 400", async () => {
      const acc = await withVersions(4);
      const first = await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history?limit=3");
      expect(versions(first.body)).toEqual([4, 3, 2]);
      const second = await acc.call(
        "GET",
        `/api/v1/accounts/{acc}/slots/main/history?limit=3&cursor=${first.body.next}`,
      );
      expect(versions(second.body)).toEqual([1]);
      expect(second.body.next).toBeUndefined();
      const other = await withVersions(4);
      const foreign = await other.call("GET", `/api/v1/accounts/{acc}/slots/main/history?cursor=${first.body.next}`);
      expect([foreign.status, foreign.body.error.code]).toEqual([400, "invalid_request"]);
      const ownData = await acc.call("GET", `/api/v1/accounts/{acc}/data/history?cursor=${first.body.next}`);
      expect([ownData.status, ownData.body.error.code]).toEqual([400, "invalid_request"]);
    });

    test("a restore keeps what it replaces on a plan with a snapshot interval, so it can be undone", async () => {
      const free = await newTenant(d, "free");
      const acc = await withVersions(3, free.key); // free: one restore point every 30 minutes, so only version 1 is kept
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([1]);
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", { body: { version: 1, baseVersion: 3 } }))
          .status,
      ).toBe(200);
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([4, 3, 1]);
      const undo = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
        body: { version: 3, baseVersion: 4 },
      });
      expect(undo.body).toMatchObject({ status: "accepted", version: 5 });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 5,
        data: { n: 3 },
        slotInfo: { lvl: 3 },
      });
    });

    test("account data: list, read, restore, and a stale restore's 409 carries the restored accountData", async () => {
      const acc = await newAccount(d, tenant.key, { accountData: { gold: 1 } });
      const sync = (baseVersion: number, gold: number) =>
        acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion, accountData: { gold } } });
      expect((await sync(1, 2)).status).toBe(200);
      const listed = await acc.call("GET", "/api/v1/accounts/{acc}/data/history");
      expect(listed.body).toEqual({
        accountId: acc.accountId,
        restorePoints: [2, 1].map((gold) => ({
          version: gold,
          createdAt: expect.any(String),
          sizeBytes: bytes({ gold }),
        })),
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/data/history/1")).body).toEqual({
        version: 1,
        createdAt: expect.any(String),
        accountData: { gold: 1 },
      });
      const stale = await acc.call("POST", "/api/v1/accounts/{acc}/data/restore", {
        body: { version: 1, baseVersion: 1 },
      });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        status: "conflict",
        version: 2,
        details: { serverAccountData: { gold: 2 }, clientAccountData: { gold: 1 } },
      });
      const restored = await acc.call("POST", "/api/v1/accounts/{acc}/data/restore", {
        body: { version: 1, baseVersion: 2 },
      });
      expect(restored.body).toMatchObject({ status: "accepted", version: 3, historyRetained: true });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({
        version: 3,
        accountData: { gold: 1 },
      });
      const missing = await acc.call("GET", "/api/v1/accounts/{acc}/data/history/9");
      expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    });

    test("an Idempotency-Key makes a retried restore answer as the first and write once", async () => {
      const acc = await withVersions(2);
      const o = {
        body: { version: 1, baseVersion: 2 },
        headers: { "idempotency-key": `restore-${crypto.randomUUID()}` },
      };
      const first = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", o);
      const again = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", o);
      expect(first.body).toMatchObject({ status: "accepted", version: 3 });
      expect(again.body).toEqual(first.body);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body.version).toBe(3);
    });

    test("12 concurrent restores and syncs from one base: exactly one is accepted, the others get the 409, nothing is lost", async () => {
      const acc = await withVersions(3);
      const writes = Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
              body: { version: 1 + (i % 3), baseVersion: 3 },
            })
          : slotSync(acc, 3, { n: 100 + i }),
      );
      const answers = await Promise.all(writes);
      expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(11).fill(409)]);
      const slot = (await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body;
      expect(slot.version).toBe(4);
      // Whichever won, version 3 (what it replaced) and the winner's version 4 are both restore points.
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([4, 3, 2, 1]);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history/4")).body.data).toEqual(slot.data);
    });

    test("an archived slot is 409 slot_archived to restore and 404 to list", async () => {
      const acc = await withVersions(2);
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/archive")).status).toBe(200);
      const restore = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", {
        body: { version: 1, baseVersion: 2 },
      });
      expect([restore.status, restore.body.error.code]).toEqual([409, "slot_archived"]);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).status).toBe(404);
    });

    test("another account's session can neither list, read nor restore (403), and nothing changes", async () => {
      const owner = await withVersions(2);
      const other = await newAccount(d, tenant.key);
      const as = (method: string, path: string, body?: unknown) =>
        call(d, method, path.replace("{acc}", owner.accountId), {
          key: tenant.key,
          session: other.session,
          ...(body ? { body } : {}),
        });
      const answers = [
        await as("GET", "/api/v1/accounts/{acc}/slots/main/history"),
        await as("GET", "/api/v1/accounts/{acc}/slots/main/history/1"),
        await as("POST", "/api/v1/accounts/{acc}/slots/main/restore", { version: 1, baseVersion: 2 }),
        await as("GET", "/api/v1/accounts/{acc}/data/history"),
        await as("GET", "/api/v1/accounts/{acc}/data/history/1"),
        await as("POST", "/api/v1/accounts/{acc}/data/restore", { version: 1, baseVersion: 1 }),
      ];
      expect(answers.map((a) => [a.status, a.body.error.code])).toEqual(Array(6).fill([403, "forbidden"]));
      expect((await owner.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 2,
        data: { n: 2 },
      });
      expect((await owner.call("GET", "/api/v1/accounts/{acc}")).body.version).toBe(1);
    });

    test("bad input to every new route is refused in the envelope and changes nothing", async () => {
      const acc = await withVersions(2);
      const bad: [string, string, unknown?][] = [
        ["GET", "/api/v1/accounts/{acc}/slots/main/history?limit=0"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history?limit=101"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history?limit=abc"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history?cursor=%00%01"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history/0"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history/1e1"],
        ["GET", "/api/v1/accounts/{acc}/slots/main/history/-1"],
        ["POST", "/api/v1/accounts/{acc}/slots/main/restore", { version: 1 }],
        ["POST", "/api/v1/accounts/{acc}/slots/main/restore", { version: 0, baseVersion: 2 }],
        ["POST", "/api/v1/accounts/{acc}/slots/main/restore", { version: "1", baseVersion: 2 }],
        ["POST", "/api/v1/accounts/{acc}/slots/main/restore", { version: 1, baseVersion: 2, data: {} }],
        ["POST", "/api/v1/accounts/{acc}/slots/main/restore", []],
        ["GET", "/api/v1/accounts/{acc}/data/history?limit=-5"],
        ["GET", "/api/v1/accounts/{acc}/data/history?cursor=bm9wZQ"],
        ["GET", "/api/v1/accounts/{acc}/data/history/x"],
        ["POST", "/api/v1/accounts/{acc}/data/restore", { version: 1.5, baseVersion: 1 }],
        ["POST", "/api/v1/accounts/{acc}/data/restore", { baseVersion: 1 }],
      ];
      for (const [method, path, body] of bad) {
        const res = await acc.call(method, path, body === undefined ? {} : { body });
        expect([method, path, res.status, res.body?.error?.code]).toEqual([method, path, 400, "invalid_request"]);
      }
      const raw = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/restore", { raw: "{not json" });
      expect([raw.status, raw.body.error.code]).toEqual([400, "invalid_request"]);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
        version: 2,
        data: { n: 2 },
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.version).toBe(1);
      expect(versions((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main/history")).body)).toEqual([2, 1]);
    });
  },
);
