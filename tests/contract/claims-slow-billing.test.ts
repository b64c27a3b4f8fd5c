import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { claimUsage } from "../../services/billing/claim-usage.ts";
import type { Deps } from "../../services/billing/deps.ts";
import { openRepo } from "../../services/billing/repo.ts";
import { createClaims } from "../../services/gateway/claims.ts";
import { createLimits } from "../../services/gateway/limits.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { internal } from "../../shared/contract/internal.ts";
import { defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { serveEndpoint } from "../../shared/serving/serve.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { capturingLogger } from "../helpers/kept.ts";

/**
 * docs/plans-and-limits.md: a request waits for billing's claims once at most (the three limits' claims at once,
 * each for the claim deadline at most); a claim that misses it makes the gateway copy count alone,
 * with no request waiting, until billing answers again; then claims resume, carrying what was admitted
 * alone. Billing here holds every answer until the test lets it go: a wedged (SIGSTOPped) service,
 * in process. The distributed deployment's real SIGSTOP is in tests/api/limits-slow-billing.test.ts.
 */
let store: Store;
let bus: Bus;
let deps: Deps;
/** The claims billing received, in order. */
const asked: { scope: string; window: string; want: number }[] = [];
let holding = false;
const gates: (() => void)[] = [];
/** Billing answers again: every held claim goes on, and later ones are answered at once. */
const release = () => {
  holding = false;
  for (const open of gates.splice(0)) open();
};

beforeAll(async () => {
  store = createSqliteStore(":memory:");
  bus = createLocalBus(capturingLogger([]));
  deps = { repo: await openRepo(store), now: () => new Date() } as Deps;
  serveEndpoint(bus, "billing", internal.claimUsage, async (input) => {
    asked.push({ scope: input.scope, window: input.window, want: input.want });
    if (holding) await new Promise<void>((open) => gates.push(open));
    return claimUsage(deps, input);
  });
});
afterEach(() => {
  release();
  asked.length = 0;
});
afterAll(async () => {
  await bus.close();
  await store.close();
});

const tenant = (envId: string): Tenant => ({
  workspaceId: "wsp_c",
  projectId: "prj_c",
  environment: "stage",
  envId,
  keyId: "key_c",
  plan: "starter",
  billingStatus: "active",
  entitlements: { paymentRequired: false, monthlyRequests: 1_000_000, perMinute: 600 },
  syncPolicy: defaultSyncPolicy,
  settings: defaultProjectSettings,
});
/** Turns of the event loop: enough for every claim a request would send to reach billing. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};
/** Billing's claims of a long deadline and bus timeout stay pending as long as billing holds them. */
const patient = { deadlineMs: 60_000, timeoutMs: 60_000 };

test("one request's three claims (month, minute, account) are sent at once, not one after the other", async () => {
  holding = true;
  const limits = createLimits(createClaims(bus, capturingLogger([]), patient));
  const admitted = limits.admit(tenant(`prj_${crypto.randomUUID()}:stage`), { sessionId: "ses_c", accountId: "acc_c" });
  await settle();
  // All three wait at billing together: the request's wait is one claim's, not the sum of three.
  expect(asked.map((a) => `${a.window.split(":")[0]}:${a.scope.split(":")[0]}`)).toEqual([
    "month:env",
    "minute:env",
    "minute:account",
  ]);
  release();
  expect(typeof (await admitted)).toBe("function");
});

test("billing holding every claim: 30 requests in a row all admitted, with the 3 claims of the first and no other", async () => {
  holding = true;
  const claims = createClaims(bus, capturingLogger([]), { deadlineMs: 20, timeoutMs: 60_000 });
  const limits = createLimits(claims);
  const t = tenant(`prj_${crypto.randomUUID()}:stage`);
  // Billing answers nothing during these: were any request waiting for it, this would never finish.
  for (let i = 0; i < 30; i++) (await limits.admit(t, { sessionId: "ses_c", accountId: "acc_w" }))();
  expect([asked.length, claims.claimsLate, claims.countingAlone]).toEqual([3, 3, true]);
  // A new account's first request waits no more either: billing is known not to answer.
  (await limits.admit(t, { sessionId: "ses_d", accountId: "acc_new" }))();
  expect(asked.length).toBe(3);
});

test("billing out of reach: one claim, then one at a time per retry, never one per request", async () => {
  const empty = createLocalBus(capturingLogger([]));
  const claims = createClaims(empty, capturingLogger([]), { retryMs: 60_000 });
  const units = [];
  for (let i = 0; i < 50; i++) units.push(await claims.take("account:gone", "minute:1", 100, 1));
  expect([units.every((u) => u === -1), claims.claimsSent, claims.claimsFailed]).toEqual([true, 1, 1]);
  // Alone, each copy still stops at the limit.
  for (let i = 0; i < 50; i++) await claims.take("account:gone", "minute:1", 100, 1);
  expect(await claims.take("account:gone", "minute:1", 100, 1)).toBeNull();
  await empty.close();
});

test("billing answering again: claims resume, the units admitted alone are claimed, and the window admits exactly its limit", async () => {
  holding = true;
  const claims = createClaims(bus, capturingLogger([]), { deadlineMs: 20, timeoutMs: 60_000 });
  const scope = `account:${crypto.randomUUID()}`;
  const alone = [];
  for (let i = 0; i < 5; i++) alone.push(await claims.take(scope, "minute:1", 40, 1));
  expect([alone, asked.length]).toEqual([[-1, -1, -1, -1, -1], 1]);
  release();
  // The held claim is answered now; its answer ends counting alone.
  while (claims.countingAlone) await Bun.sleep(5);
  let admitted = alone.length;
  while ((await claims.take(scope, "minute:1", 40, 1)) !== null) admitted++;
  expect(admitted).toBe(40);
  // Billing's total has the units admitted alone: a claim carried them.
  const stored = await deps.repo.usage.get(`${scope}|minute:1`);
  expect(Math.min(stored!.n, stored!.limit ?? stored!.n)).toBe(40);
  expect(asked.slice(1).reduce((n, a) => n + a.want, 0)).toBeGreaterThanOrEqual(5);
});
