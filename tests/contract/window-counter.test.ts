import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { type HitDoc, hitIndexes, limitPerMinute, windowCounter } from "../../shared/limits/window-counter.ts";
import type { Store } from "../../shared/store/port.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";

const adapters = storeAdapters("seats");

for (const [name, open] of adapters) {
  describe(`window counter seats (${name})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    test("of 40 concurrent events with limit 30, over two counters, exactly 30 take a seat; a seat given back is taken again", async () => {
      const hits = await store.collection<HitDoc>("hits", hitIndexes);
      const copies = [windowCounter(hits, Date.now()), windowCounter(hits, Date.now())];
      const seats = await Promise.all(Array.from({ length: 40 }, (_, i) => copies[i % 2]!.take("ip:nat", 60, 30)));
      const taken = seats.filter((x) => x !== null);
      expect(taken.sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(await copies[0]!.take("ip:nat", 60, 30)).toBeNull();
      await copies[0]!.release("ip:nat", 60, 7);
      expect(await copies[1]!.take("ip:nat", 60, 30)).toBe(7);
      expect(await copies[1]!.count("ip:nat", 60)).toBe(30);
    });

    test("a per-minute limit: of 40 concurrent events with limit 30 at once exactly 30 pass, counted in one document", async () => {
      const hits = await store.collection<HitDoc>("limits", hitIndexes);
      const tenant = (limit: number) =>
        ({ envId: "env_x", settings: { rateLimits: { accountCreationsPerIpPerMinute: limit } } }) as unknown as Tenant;
      const what = { setting: "accountCreationsPerIpPerMinute", counted: "account creations" } as const;
      const now = Date.now();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, () => limitPerMinute(hits, now, tenant(30), "10.0.0.1", what)),
      );
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(30);
      const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: "rate_limited" });
      // However high the limit, an event costs one counter, not a document of its own to read back.
      await Promise.all(
        Array.from({ length: 20 }, () => limitPerMinute(hits, now, tenant(1_000_000), "10.0.0.2", what)),
      );
      expect(await hits.count({ scope: "env_x:ip:10.0.0.2" })).toBe(1);
    });
  });
}
