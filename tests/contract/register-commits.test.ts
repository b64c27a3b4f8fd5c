import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createAccount } from "../../services/accounts/create-account.ts";
import type { Deps } from "../../services/accounts/deps.ts";
import { openRepo } from "../../services/accounts/repo.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import type { Store } from "../../shared/store/port.ts";
import { commitsOf, createSqliteStore } from "../../shared/store/sqlite.ts";
import { tempDir } from "../helpers/infra.ts";

// Registration on the embedded deployment's store: how many commits (each an fsync under
// synchronous=FULL) an account costs. Counts, not time: the speed is bench row R1.

let store: Store;
let deps: Deps;
const tenant = (limit: number) => {
  const rateLimits = { ...defaultProjectSettings.rateLimits, accountCreationsPerIpPerMinute: limit };
  return {
    envId: "prj_c:stage",
    plan: "self_hosted",
    syncPolicy: {},
    settings: { ...defaultProjectSettings, rateLimits },
  } as unknown as Tenant;
};
const register = (limit: number, ip: string, body: object = {}) =>
  createAccount(deps, { tenant: tenant(limit), client: { ip }, body } as unknown as Parameters<
    typeof createAccount
  >[1]);

beforeAll(async () => {
  store = createSqliteStore(join(tempDir("register-commits"), "accounts.sqlite"));
  const log = { info() {}, warn() {}, error() {}, debug() {} };
  deps = { repo: await openRepo(store), plans: defaultPlans, now: () => new Date(), log } as unknown as Deps;
  // The day's first counted event also prunes the counters of days past: not part of a registration.
  await register(1_000, "10.9.9.9");
});
afterAll(() => store.close());

test("a registration is one commit: the per-IP count, the account, its snapshot, first slot and session together", async () => {
  const before = commitsOf(store);
  for (let i = 0; i < 5; i++)
    await register(1_000, `10.0.0.${i}`, i % 2 ? { slot: { slotId: "main", data: { hp: 1 } } } : {});
  expect(commitsOf(store) - before).toBe(5);
});

test("16 concurrent registrations from one client with limit 10 share one commit, and exactly 10 are created", async () => {
  const before = commitsOf(store);
  const accountsBefore = await deps.repo.accounts.count({ envId: "prj_c:stage" });
  const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => register(10, "10.1.1.1")));
  expect(commitsOf(store) - before).toBe(1);
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(10);
  expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(
    Array(6).fill("rate_limited"),
  );
  expect(await deps.repo.accounts.count({ envId: "prj_c:stage" })).toBe(accountsBefore + 10);
});
