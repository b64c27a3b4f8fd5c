import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Deps } from "../../services/billing/deps.ts";
import { openRepo } from "../../services/billing/repo.ts";
import { reportUsage } from "../../services/billing/usage.ts";
import { createAdminFailures } from "../../services/gateway/admin-failures.ts";
import { createUsage } from "../../services/gateway/usage.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import { fail } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { serveEndpoint } from "../../shared/serving/serve.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { capturingLogger } from "../helpers/kept.ts";

/** The gateway's count of failed admin tokens per client IP holds only the minute it counts. */
let store: Store;
let bus: Bus;
beforeAll(async () => {
  store = createSqliteStore(":memory:");
  bus = createLocalBus(capturingLogger([]));
  const deps = { repo: await openRepo(store), now: () => new Date() } as Deps;
  serveEndpoint(bus, "billing", internal.reportUsage, (input) => reportUsage(deps, input));
});
afterAll(async () => {
  await bus.close();
  await store.close();
});

test("failures from 50 addresses in one minute are forgotten once that minute has ended", async () => {
  const usage = createUsage(bus, capturingLogger([]), 60_000);
  let now = 0;
  const checkAdmin = createAdminFailures(usage, 10, () => now);
  const wrongToken = () => {
    throw fail.unauthorized();
  };
  for (let i = 0; i < 50; i++) await expect(checkAdmin(`10.0.0.${i}`, wrongToken)).rejects.toMatchObject({ code: "unauthorized" });
  await usage.flush();
  expect(usage.size).toBe(50);
  now = 2 * 60_000;
  await expect(checkAdmin("10.0.1.1", wrongToken)).rejects.toMatchObject({ code: "unauthorized" });
  expect(usage.size).toBe(1);
  await usage.stop();
});
