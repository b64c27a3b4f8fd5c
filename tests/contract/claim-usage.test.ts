import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { claimUsage } from "../../services/billing/claim-usage.ts";
import type { Deps } from "../../services/billing/deps.ts";
import { openRepo } from "../../services/billing/repo.ts";
import type { Store } from "../../shared/store/port.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";

/** docs/plans-and-limits.md: the units billing grants in a window never pass its limit, however many claims race. */
for (const [name, open] of storeAdapters("claims")) {
  describe(`usage claims (${name})`, () => {
    let store: Store;
    let deps: Deps;
    beforeAll(async () => {
      store = await open();
      // Only the repo and the clock are used by a claim.
      deps = { repo: await openRepo(store), now: () => new Date() } as Deps;
    });
    afterAll(() => store.close());
    const claim = (scope: string, window: string, want: number, limit: number, less?: string) =>
      claimUsage(deps, { scope, window, want, limit, less, keepDays: 1 });

    test("60 concurrent claims of 1 to 4 units on a limit of 50: exactly 50 granted, in disjoint ranges", async () => {
      const scope = `account:${crypto.randomUUID()}`;
      const grants = await Promise.all(Array.from({ length: 60 }, (_, i) => claim(scope, "minute:1", 1 + (i % 4), 50)));
      expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(50);
      const units = grants
        .flatMap((g) => Array.from({ length: g.granted }, (_, k) => g.from + k))
        .sort((a, b) => a - b);
      expect(units).toEqual(Array.from({ length: 50 }, (_, k) => k));
      expect((await claim(scope, "minute:1", 3, 50)).granted).toBe(0);
      // A higher limit grants again only past what was claimed (claims past the old limit are lost).
      const raised = await claim(scope, "minute:1", 0, 50);
      expect((await claim(scope, "minute:1", 5, raised.total + 2)).granted).toBe(2);
    });

    test("a minute's limit is lowered by what the previous minute was granted, not by its refused claims", async () => {
      const scope = `env:${crypto.randomUUID()}`;
      expect((await claim(scope, "minute:1", 8, 10)).granted).toBe(8);
      expect((await claim(scope, "minute:1", 8, 10)).granted).toBe(2);
      const next = await claim(scope, "minute:2", 8, 30, "minute:1");
      expect([next.lowered, next.granted]).toEqual([10, 8]);
      const grants = await Promise.all(Array.from({ length: 10 }, () => claim(scope, "minute:2", 3, 30, "minute:1")));
      expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(12);
    });
  });
}
