import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HitDoc, hitIndexes, windowCounter } from "../../shared/limits/window-counter.ts";
import type { Store } from "../../shared/store/port.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";

const adapters = storeAdapters("prune");

type Item = { _id: string; pruneDay?: string };

for (const [name, open] of adapters) {
  describe(`short-lived records are pruned by day (${name})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    test("every day before today goes, oldest first, however many; today, later days and undated records stay", async () => {
      const items = await store.collection<Item>("items", [{ name: "prune_day", fields: ["pruneDay"] }]);
      const days = ["2026-01-01", "2026-01-02", "2026-02-10", "2026-03-01", "2026-03-02"];
      for (const [i, day] of days.entries())
        for (let k = 0; k < 3; k++) await items.insert({ _id: `i${i}-${k}`, pruneDay: day });
      await items.insert({ _id: "undated" });
      expect(await deleteDaysBefore(items, "pruneDay", "2026-03-01")).toBe(9);
      expect((await items.find({})).map((d) => d.pruneDay ?? "none").sort()).toEqual([
        "2026-03-01",
        "2026-03-01",
        "2026-03-01",
        "2026-03-02",
        "2026-03-02",
        "2026-03-02",
        "none",
      ]);
      expect(await deleteDaysBefore(items, "pruneDay", "2026-03-01")).toBe(0);
    });

    test("counted events go once the day after their own has passed", async () => {
      const hits = await store.collection<HitDoc>("hits", hitIndexes);
      const lateEvening = Date.parse("2026-05-01T23:51:00.000Z");
      await windowCounter(hits, lateEvening).take("ip:a", 600, 10, true);
      expect((await hits.find({ scope: "ip:a" }))[0]!.pruneDay).toBe(dayAfter(new Date(lateEvening)));
      expect(await windowCounter(hits, Date.parse("2026-05-01T23:58:00.000Z")).take("ip:a", 600, 10, true)).toBe(2);
      expect(await windowCounter(hits, Date.parse("2026-05-02T12:00:00.000Z")).take("ip:b", 60, 10, true)).toBe(1);
      expect(await hits.count({ scope: "ip:a" })).toBe(2);
      // Two days on, recording anything prunes them.
      await windowCounter(hits, Date.parse("2026-05-03T12:00:00.000Z")).take("ip:b", 60, 10, true);
      expect(await hits.count({ scope: "ip:a" })).toBe(0);
    });
  });
}
