import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans } from "../../shared/plans.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startDistributed, startEmbedded, stripeTestSecret } from "../helpers/deployments.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { tempDir } from "../helpers/infra.ts";
import { checkoutCompleted, invoiceEvent, nowSeconds, sign, subscriptionEvent, uid } from "../helpers/stripe-events.ts";

/**
 * Plans and billing end to end, through the gateway: Stripe events change what a workspace may do,
 * and request counts are shared by gateway copies. A catalog file makes the limits small enough to
 * reach: `free` allows 12 requests a month; `starter` 5 a minute in stage (bursting to 10).
 */
const catalog = { ...defaultPlans, free: { ...defaultPlans.free, monthlyRequests: 12 }, starter: { ...defaultPlans.starter, perMinute: { prod: 3000, stage: 5 } } };

interface Setup {
  d: Deployment;
  /** The other gateway copy (the same gateway on the embedded deployment). */
  other: Deployment;
  stop(): Promise<void>;
}

async function embedded(plans: string): Promise<Setup> {
  const d = await startEmbedded({ SAVEPOINT_PLANS: plans });
  return { d, other: d, stop: () => d.stop() };
}

async function distributed(plans: string): Promise<Setup> {
  const d = await startDistributed({ copies: { gateway: 2 }, env: { SAVEPOINT_PLANS: plans } });
  return { d, other: { ...d, request: (path, init) => fetch(`${d.bases[1]}${path}`, init) }, stop: () => d.stop() };
}

/** How long a gateway copy may take to learn the other's counts (copies report every 500 ms). */
const countsShared = () => Bun.sleep(2_000);

for (const [name, setUp] of [["embedded", embedded], ["distributed", distributed]] as const) {
  describe(`plans and billing end to end (${name})`, () => {
    let s: Setup;
    beforeAll(async () => {
      const plans = join(tempDir("plans"), "plans.json");
      await Bun.write(plans, JSON.stringify(catalog));
      s = await setUp(plans);
    });
    afterAll(() => s.stop());

    const deliver = async (event: object) => {
      const payload = JSON.stringify(event);
      return call(s.d, "POST", "/webhooks/stripe", { raw: payload, headers: { "stripe-signature": await sign(payload, stripeTestSecret) } });
    };

    test("a free workspace's prod key gets 403 from the auth bridge; a Stripe subscription to pro lifts it", async () => {
      const t = await newTenant(s.d, "free", "prod");
      const exchange = () => call(s.d, "POST", "/api/v1/accounts/auth/session", { key: t.key, body: { provider: "firebase", token: "x.y.z" } });
      expect((await exchange()).body.error.code).toBe("auth_bridge_requires_paid_plan");

      const customer = `cus_${uid()}`;
      expect((await deliver(checkoutCompleted(customer, { client_reference_id: t.workspaceId }))).body).toEqual({ received: true });
      expect((await deliver(subscriptionEvent("created", { id: `sub_${uid()}`, customer, status: "active", price: "price_pro" }))).body).toEqual({ received: true });
      // The same request now gets as far as the provider settings.
      const after = await exchange();
      expect([after.status, after.body.error.code]).toEqual([409, "provider_not_configured"]);
    });

    test("past due for 8 days is 402 on every runtime route; invoice.paid lifts it on the next request", async () => {
      const t = await newTenant(s.d, "starter");
      const acc = await newAccount(s.d, t.key, { slot: { slotId: "s", data: { v: 1 } } });
      const customer = `cus_${uid()}`;
      const sub = `sub_${uid()}`;
      await deliver(checkoutCompleted(customer, { client_reference_id: t.workspaceId }));
      const eightDaysAgo = nowSeconds() - 8 * 24 * 3600;
      await deliver(subscriptionEvent("created", { id: sub, customer, status: "active", price: "price_starter" }, eightDaysAgo - 60));
      await deliver(invoiceEvent("invoice.payment_failed", customer, sub, eightDaysAgo));
      await deliver(subscriptionEvent("updated", { id: sub, customer, status: "past_due", price: "price_starter" }, eightDaysAgo));

      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } });
      expect(sync.status).toBe(402);
      expect(sync.body.error).toEqual({ code: "payment_required", message: expect.any(String), details: { plan: "starter", billingStatus: "past_due" } });
      expect((await call(s.other, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(402);
      expect((await admin(s.d, "GET", `/admin/v1/accounts/${acc.accountId}`)).body.slots[0].version).toBe(1); // data kept, unchanged

      await deliver(invoiceEvent("invoice.paid", customer, sub));
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } })).status).toBe(200);
    });

    test("past due for less than 7 days still serves", async () => {
      const t = await newTenant(s.d, "starter");
      expect((await admin(s.d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { billingStatus: "past_due" })).status).toBe(200);
      expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      expect((await admin(s.d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { billingStatus: "unpaid" })).status).toBe(200);
      expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(402);
    });

    test("the month's quota: 402 monthly_quota_exceeded past it, counted across gateway copies", async () => {
      const t = await newTenant(s.d, "free");
      for (let i = 0; i < 12; i++) expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      await countsShared();
      const over = await call(s.other, "GET", "/api/v1/runtime-config", { key: t.key });
      expect(over.status).toBe(402);
      expect(over.body.error).toEqual({ code: "monthly_quota_exceeded", message: expect.any(String), details: { planTier: "free", used: 12, limit: 12 } });
      // Each environment has its own quota.
      const prod = await admin(s.d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, {});
      expect((await call(s.other, "GET", "/api/v1/runtime-config", { key: prod.body.runtimeKey })).status).toBe(200);
    });

    test("the minute's limit: 429 with Retry-After and RateLimit headers past the burst, counted across gateway copies", async () => {
      const t = await newTenant(s.d, "starter");
      await awayFromWindowEnd(60);
      for (let i = 0; i < 10; i++) expect((await call(i < 5 ? s.d : s.other, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      await countsShared();
      const limited = await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: "rate_limited", details: { limit: 5, windowSeconds: 60 } });
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get("ratelimit-limit")).toBe("5");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      expect(limited.headers.get("ratelimit-reset")).toBe(String(retryAfter));
    });

    test("each session is limited to its project's requests a minute, counted across gateway copies", async () => {
      const t = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: { sessionRequestsPerMinute: 4 } });
      const acc = await newAccount(s.d, t.key);
      const other = await newAccount(s.d, t.key);
      await awayFromWindowEnd(60);
      for (let i = 0; i < 4; i++) {
        const via = i % 2 === 0 ? s.d : s.other;
        expect((await call(via, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: acc.session })).status).toBe(200);
      }
      await countsShared();
      const limited = await acc.call("GET", "/api/v1/accounts/{acc}");
      expect([limited.status, limited.body.error.code, limited.body.error.details.limit]).toEqual([429, "rate_limited", 4]);
      expect((await other.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    });

    test("each client IP may create its project's accounts a minute, counted across gateway copies", async () => {
      const t = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { rateLimits: { accountCreationsPerIpPerMinute: 3 } });
      await awayFromWindowEnd(60);
      const client = { "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}` };
      const create = (via: Deployment) => call(via, "POST", "/api/v1/accounts", { key: t.key, body: {}, headers: client });
      expect([(await create(s.d)).status, (await create(s.other)).status, (await create(s.d)).status]).toEqual([201, 201, 201]);
      const limited = await create(s.other);
      expect([limited.status, limited.body.error.code, limited.body.error.details.limit]).toEqual([429, "rate_limited", 3]);
      expect((await call(s.other, "POST", "/api/v1/accounts", { key: t.key, body: {}, headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(201);
    });
  });
}
