import { afterAll, beforeAll, expect, test } from "bun:test";
import { claimUsage } from "../../services/billing/claim-usage.ts";
import type { Deps } from "../../services/billing/deps.ts";
import { openRepo } from "../../services/billing/repo.ts";
import { createClaims } from "../../services/gateway/claims.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { internal } from "../../shared/contract/internal.ts";
import { serveEndpoint } from "../../shared/serving/serve.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { capturingLogger } from "../helpers/kept.ts";

/**
 * docs/plans-and-limits.md: gateway copies admit only from blocks claimed from billing, so together they admit at
 * most the limit, while a counter far from its limit costs no round trip per request.
 */
let store: Store;
let bus: Bus;
beforeAll(async () => {
  store = createSqliteStore(":memory:");
  bus = createLocalBus(capturingLogger([]));
  const deps = { repo: await openRepo(store), now: () => new Date() } as Deps;
  serveEndpoint(bus, "billing", internal.claimUsage, (input) => claimUsage(deps, input));
});
afterAll(async () => {
  await bus.close();
  await store.close();
});
const copies = () => [createClaims(bus, capturingLogger([])), createClaims(bus, capturingLogger([]))];

test("300 concurrent requests through two copies on a limit of 100: exactly 100 admitted", async () => {
  const [a, b] = copies();
  const units = await Promise.all(
    Array.from({ length: 300 }, (_, i) => (i % 2 ? a! : b!).take("account:x", "minute:1", 100, 1)),
  );
  expect(units.filter((u) => u !== null).sort((x, y) => x! - y!)).toEqual(Array.from({ length: 100 }, (_, k) => k));
});

test("1,000 requests of a session alternating two copies, limit 2,000 a minute: a handful of claims, not one per request", async () => {
  const [a, b] = copies();
  for (let i = 0; i < 1_000; i++)
    expect(await (i % 2 ? a! : b!).take("account:y", "minute:1", 2_000, 1)).not.toBeNull();
  // Blocks of 250 (an eighth of the limit): two per copy.
  expect(a!.claimsSent + b!.claimsSent).toBe(4);
});

test("concurrent requests in one copy share one pending claim; a lowered limit applies to units already held", async () => {
  const [a] = copies();
  const units = await Promise.all(Array.from({ length: 50 }, () => a!.take("account:z", "minute:1", 800, 1)));
  expect([units.every((u) => u !== null), a!.claimsSent]).toEqual([true, 1]);
  expect(await a!.take("account:z", "minute:1", 50, 1)).toBeNull();
});
