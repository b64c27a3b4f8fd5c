import { afterAll, beforeAll, expect, test } from "bun:test";
import { claimUsage } from "../../services/billing/claim-usage.ts";
import type { Deps } from "../../services/billing/deps.ts";
import { openRepo } from "../../services/billing/repo.ts";
import { createAdminFailures } from "../../services/gateway/admin-failures.ts";
import { createClaims } from "../../services/gateway/claims.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { fail } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { serveEndpoint } from "../../shared/serving/serve.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { capturingLogger } from "../helpers/kept.ts";

/** The gateway's limit on failed admin tokens per client IP, over billing's claims (two copies share one bus). */
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

const wrongToken = () => {
  throw fail.unauthorized();
};
const rightToken = () => {};
const outcome = (p: Promise<void>) =>
  p.then(
    () => "ok",
    (err) => err.code as string,
  );

test("two copies checking 40 wrong tokens at once from one address compare exactly 10; a right token is refused after", async () => {
  const now = () => 5 * 60_000 + 1_000;
  const copies = [
    createAdminFailures(createClaims(bus, capturingLogger([])), 10, now),
    createAdminFailures(createClaims(bus, capturingLogger([])), 10, now),
  ];
  const compared: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      outcome(
        copies[i % 2]!("203.0.113.5", () => {
          compared.push(i);
          return wrongToken();
        }),
      ),
    ),
  );
  expect([
    compared.length,
    results.filter((r) => r === "unauthorized").length,
    results.filter((r) => r === "rate_limited").length,
  ]).toEqual([10, 10, 30]);
  expect(await outcome(copies[0]!("203.0.113.5", rightToken))).toBe("rate_limited");
  expect(await outcome(copies[1]!("203.0.113.5", rightToken))).toBe("rate_limited");
  expect(await outcome(copies[1]!("203.0.113.6", rightToken))).toBe("ok");
});

test("right tokens use no try: 50 of them, then 10 wrong ones are still compared; the next minute starts afresh", async () => {
  let t = 7 * 60_000 + 1_000;
  const checkAdmin = createAdminFailures(createClaims(bus, capturingLogger([])), 10, () => t);
  for (let i = 0; i < 50; i++) expect(await outcome(checkAdmin("203.0.113.7", rightToken))).toBe("ok");
  const wrong = [];
  for (let i = 0; i < 11; i++) wrong.push(await outcome(checkAdmin("203.0.113.7", wrongToken)));
  expect(wrong).toEqual([...Array(10).fill("unauthorized"), "rate_limited"]);
  t += 60_000;
  expect(await outcome(checkAdmin("203.0.113.7", rightToken))).toBe("ok");
});

test("an IPv6 /64 is one client: 10 wrong tokens from 10 of its addresses refuse the 11th address, not another /64", async () => {
  const now = () => 9 * 60_000 + 1_000;
  const checkAdmin = createAdminFailures(createClaims(bus, capturingLogger([])), 10, now);
  for (let i = 1; i <= 10; i++)
    expect(await outcome(checkAdmin(`2001:db8:0:7::${i.toString(16)}`, wrongToken))).toBe("unauthorized");
  expect(await outcome(checkAdmin("2001:db8:0:7:ffff::1", rightToken))).toBe("rate_limited");
  expect(await outcome(checkAdmin("2001:db8:0:8::1", rightToken))).toBe("ok");
});
