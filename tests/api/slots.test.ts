import { expect, test } from "bun:test";
import { newAccount } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

// The contended-DELETE test sends dozens of one account's requests at once: past the in-flight bound.
forEachDeployment(
  "slots over HTTP",
  { tenant: { rateLimits: { accountConcurrentRequests: 100 } } },
  ({ d, tenant }) => {
    test("create, list, read: summaries without data, the slot with it", async () => {
      const acc = await newAccount(d, tenant.key);
      const created = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
        body: { slotId: "hero.1", slotInfo: { lvl: 3 }, data: { inv: [1, 2] } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        slotId: "hero.1",
        slotInfo: { lvl: 3 },
        data: { inv: [1, 2] },
        version: 1,
        status: "active",
      });
      const list = await acc.call("GET", "/api/v1/accounts/{acc}/slots");
      expect(list.body).toEqual({
        accountId: acc.accountId,
        slots: [
          { slotId: "hero.1", slotInfo: { lvl: 3 }, version: 1, status: "active", updatedAt: created.body.updatedAt },
        ],
      });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/hero.1")).body).toEqual(created.body.slot);
    });

    test("an id used by an active slot is 409 slot_already_exists and changes nothing", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", data: { keep: true } } });
      const dup = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
        body: { slotId: "main", data: { overwrite: true } },
      });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: "slot_already_exists", details: { slotId: "main" } });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body.data).toEqual({ keep: true });
    });

    test("sync at the current version is accepted; an omitted slotInfo is kept", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", slotInfo: { name: "A" }, data: { n: 1 } } });
      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
        body: { baseVersion: 1, data: { n: 2 } },
      });
      expect(sync.status).toBe(200);
      expect(sync.body).toMatchObject({ status: "accepted", version: 2, historyRetained: true });
      const read = await acc.call("GET", "/api/v1/accounts/{acc}/slots/s");
      expect(read.body).toMatchObject({
        slotInfo: { name: "A" },
        data: { n: 2 },
        version: 2,
        updatedAt: sync.body.updatedAt,
      });
    });

    test("a stale sync is 409 with the server slot and what the client sent, and changes nothing", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", slotInfo: { i: 1 }, data: { n: 1 } } });
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
        body: { baseVersion: 1, slotInfo: { i: 2 }, data: { n: 2 } },
      });
      const stale = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
        body: { baseVersion: 1, slotInfo: { i: 9 }, data: { n: 9 } },
      });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        status: "conflict",
        version: 2,
        slot: { slotId: "s", slotInfo: { i: 2 }, data: { n: 2 }, version: 2, status: "active" },
        details: {
          reason: "base_version_mismatch",
          serverSlot: { slotInfo: { i: 2 }, data: { n: 2 } },
          clientSlot: { slotInfo: { i: 9 }, data: { n: 9 } },
        },
      });
      expect(stale.body.updatedAt).toBe(stale.body.slot.updatedAt);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
        data: { n: 2 },
        version: 2,
      });
    });

    test("archive hides the slot, blocks sync with slot_archived, and frees its id", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "old", data: { v: "archived" } } });
      const archived = await acc.call("POST", "/api/v1/accounts/{acc}/slots/old/archive");
      expect(archived.status).toBe(200);
      expect(archived.body).toMatchObject({ accountId: acc.accountId, slots: [] });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/old")).status).toBe(404);
      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/old/sync", {
        body: { baseVersion: 1, data: {} },
      });
      expect(sync.status).toBe(409);
      expect(sync.body.error).toMatchObject({ code: "slot_archived", details: { slotId: "old" } });
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/old/archive")).body.error.code).toBe(
        "slot_archived",
      );
      const reused = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
        body: { slotId: "old", data: { v: "new" } },
      });
      expect(reused.status).toBe(201);
      expect(reused.body.version).toBe(1);
      expect(
        (await acc.call("GET", "/api/v1/accounts/{acc}/slots")).body.slots.map((s: { slotId: string }) => s.slotId),
      ).toEqual(["old"]);
    });

    test("delete: 200, then alreadyDeleted; sync after it is 410 slot_deleted; unknown ids are 404", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "gone", data: { x: 1 } } });
      const del = await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/gone");
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({
        accountId: acc.accountId,
        slotId: "gone",
        alreadyDeleted: false,
        cleanupQueued: true,
        account: { slots: [] },
      });
      const again = await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/gone");
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ alreadyDeleted: true, deletedAt: del.body.deletedAt });
      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/gone/sync", {
        body: { baseVersion: 1, data: {} },
      });
      expect(sync.status).toBe(410);
      expect(sync.body.error.code).toBe("slot_deleted");
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/gone")).status).toBe(404);
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/never")).status).toBe(404);
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/never/sync", { body: { baseVersion: 1, data: {} } }))
          .status,
      ).toBe(404);
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/never/archive")).status).toBe(404);
    });

    test("20 concurrent DELETEs with syncs and archives of slot ids of 6 generations: each DELETE 200, never 503", async () => {
      const acc = await newAccount(d, tenant.key);
      const ids = ["gen.a", "gen.b"];
      for (const slotId of ids) {
        for (let g = 0; g < 6; g++) {
          expect(
            (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId, data: { g } } })).status,
          ).toBe(201);
          if (g < 5)
            expect((await acc.call("POST", `/api/v1/accounts/{acc}/slots/${slotId}/archive`)).status).toBe(200);
        }
      }
      const deletes = ids.flatMap((slotId) =>
        Array.from({ length: 20 }, () => acc.call("DELETE", `/api/v1/accounts/{acc}/slots/${slotId}`)),
      );
      const others = ids.flatMap((slotId) => [
        ...Array.from({ length: 5 }, (_, i) =>
          acc.call("POST", `/api/v1/accounts/{acc}/slots/${slotId}/sync`, { body: { baseVersion: 1, data: { i } } }),
        ),
        ...Array.from({ length: 3 }, () => acc.call("POST", `/api/v1/accounts/{acc}/slots/${slotId}/archive`)),
      ]);
      const [deleted, rest] = await Promise.all([Promise.all(deletes), Promise.all(others)]);
      const unavailable = [...deleted, ...rest].filter((a) => a.status >= 500).length;
      console.log(`${deleted.length + rest.length} contended operations, 5xx answers: ${unavailable}`);
      expect(deleted.map((a) => a.status)).toEqual(deleted.map(() => 200));
      expect(rest.filter((a) => a.status >= 500)).toEqual([]);
      // Each generation is deleted by exactly one DELETE; the others find nothing left and say so.
      for (let i = 0; i < ids.length; i++) {
        const mine = deleted.slice(i * 20, i * 20 + 20);
        expect(mine.filter((a) => a.body.alreadyDeleted === false)).toHaveLength(6);
        expect(mine.filter((a) => a.body.alreadyDeleted === true)).toHaveLength(14);
        expect((await acc.call("GET", `/api/v1/accounts/{acc}/slots/${ids[i]}`)).status).toBe(404);
      }
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots")).body.slots).toEqual([]);
    });

    test("delete takes the active slot first, then the newest archived one with that id", async () => {
      const acc = await newAccount(d, tenant.key, { slot: { slotId: "x", data: { gen: 1 } } });
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/x/archive");
      await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "x", data: { gen: 2 } } });
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/x")).body.alreadyDeleted).toBe(false);
      // The archived generation is still there: sync says archived, and a second delete removes it.
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/x/sync", { body: { baseVersion: 1, data: {} } })).body
          .error.code,
      ).toBe("slot_archived");
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/x")).body.alreadyDeleted).toBe(false);
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}/slots/x")).body.alreadyDeleted).toBe(true);
    });
  },
);
