import { expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { type Deployment, stripeTestSecret } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";
import { checkoutCompleted, invoiceEvent, nowSeconds, sign, subscriptionEvent, uid } from "../helpers/stripe-events.ts";

/**
 * Plans and billing end to end, through the gateway: Stripe events change what a workspace may do,
 * and request counts are shared by gateway copies. A catalog file makes the limits small enough to
 * reach: `free` allows 12 requests a month; `starter` 5 a minute in stage (bursting to 10).
 */
const catalog = {
  ...defaultPlans,
  free: { ...defaultPlans.free, monthlyRequests: 12 },
  starter: { ...defaultPlans.starter, perMinute: { prod: 3000, stage: 5 } },
};
const plans = join(tempDir("plans"), "plans.json");
await Bun.write(plans, JSON.stringify(catalog));

/**
 * A request whose JSON body is sent only when `finish` is called: until then it is in flight, past
 * the gateway's admission, waiting for its body.
 */
function heldRequest(d: Deployment, path: string, key: string, session: string) {
  let rest!: (text: string) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(" "));
      rest = (text) => {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      };
    },
  });
  const headers = {
    authorization: `Bearer ${key}`,
    "x-service-account-session": session,
    "content-type": "application/json",
  };
  const answer = d.request(path, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  let settled = false;
  void answer.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    /** Answered before its body was sent: refused (a probe took the place first), so it holds nothing. */
    get settled() {
      return settled;
    },
    async finish(text: string) {
      rest(text);
      const res = await answer;
      return { status: res.status, body: await res.json() };
    },
  };
}

/** How long a gateway copy may take to learn the other's counts (copies report every 500 ms). */
const countsShared = () => Bun.sleep(2_000);

forEachDeployment(
  "plans and billing end to end",
  { env: { SAVEPOINT_PLANS: plans }, distributed: { copies: { gateway: 2 } } },
  ({ setup: s }) => {
    const deliver = async (event: object) => {
      const payload = JSON.stringify(event);
      return call(s.d, "POST", "/webhooks/stripe", {
        raw: payload,
        headers: { "stripe-signature": await sign(payload, stripeTestSecret) },
      });
    };

    test("a free workspace's prod key gets 403 from the auth bridge; a Stripe subscription to pro lifts it", async () => {
      const t = await newTenant(s.d, "free", "prod");
      const exchange = () =>
        call(s.d, "POST", "/api/v1/accounts/auth/session", {
          key: t.key,
          body: { provider: "firebase", token: "x.y.z" },
        });
      expect((await exchange()).body.error.code).toBe("auth_bridge_requires_paid_plan");

      const customer = `cus_${uid()}`;
      expect((await deliver(checkoutCompleted(customer, { client_reference_id: t.workspaceId }))).body).toEqual({
        received: true,
      });
      expect(
        (
          await deliver(
            subscriptionEvent("created", { id: `sub_${uid()}`, customer, status: "active", price: "price_pro" }),
          )
        ).body,
      ).toEqual({ received: true });
      // The same request now gets as far as the provider settings.
      const after = await exchange();
      expect([after.status, after.body.error.code]).toEqual([409, "provider_not_configured"]);
    });

    /** The workspace as the admin API shows it (a PATCH that changes nothing answers the view). */
    const workspace = async (workspaceId: string) =>
      (await admin(s.d, "PATCH", `/admin/v1/workspaces/${workspaceId}`, {})).body;
    const withWorkspace = (e: ReturnType<typeof subscriptionEvent>, workspaceId: string) => {
      Object.assign(e.data.object, { metadata: { workspaceId } });
      return e;
    };

    test("a subscription made through Stripe's API names its workspace in metadata: the workspace gets its plan, invoices apply", async () => {
      const t = await newTenant(s.d, "free", "prod");
      const exchange = () =>
        call(s.d, "POST", "/api/v1/accounts/auth/session", {
          key: t.key,
          body: { provider: "firebase", token: "x.y.z" },
        });
      expect((await exchange()).body.error.code).toBe("auth_bridge_requires_paid_plan");
      const customer = `cus_${uid()}`;
      const sub = `sub_${uid()}`;
      const at = nowSeconds() - 60;
      const created = withWorkspace(
        subscriptionEvent("created", { id: sub, customer, status: "active", price: "price_growth" }, at),
        t.workspaceId,
      );
      expect((await deliver(created)).body).toEqual({ received: true });
      expect(await workspace(t.workspaceId)).toMatchObject({
        plan: "growth",
        billingStatus: "active",
        stripeCustomerId: customer,
      });
      expect((await exchange()).body.error.code).toBe("provider_not_configured");
      // The customer is linked now: its invoices apply without any checkout.
      await deliver(invoiceEvent("invoice.payment_failed", customer, sub, at + 10));
      expect(await workspace(t.workspaceId)).toMatchObject({ plan: "growth", billingStatus: "past_due" });
    });

    test("a starter and a newer pro subscription: deleting the starter leaves pro/active; a stale same-second updated never revives a deleted one", async () => {
      const t = await newTenant(s.d, "free");
      const customer = `cus_${uid()}`;
      await deliver(checkoutCompleted(customer, { client_reference_id: t.workspaceId }));
      const at = nowSeconds() - 100;
      const starter = { id: `sub_${uid()}`, customer, price: "price_starter" };
      const pro = { id: `sub_${uid()}`, customer, price: "price_pro" };
      await deliver(subscriptionEvent("created", { ...starter, status: "active" }, at));
      await deliver(subscriptionEvent("created", { ...pro, status: "active" }, at + 10));
      await deliver(subscriptionEvent("deleted", { ...starter, status: "canceled" }, at + 20));
      expect(await workspace(t.workspaceId)).toMatchObject({ plan: "pro", billingStatus: "active" });

      await deliver(subscriptionEvent("deleted", { ...pro, status: "canceled" }, at + 30));
      expect((await deliver(subscriptionEvent("updated", { ...pro, status: "active" }, at + 30))).body).toEqual({
        received: true,
      });
      expect(await workspace(t.workspaceId)).toMatchObject({ plan: "free", billingStatus: "canceled" });
    });

    test("past due for 8 days is 402 on every runtime route; invoice.paid lifts it on the next request", async () => {
      const t = await newTenant(s.d, "starter");
      const acc = await newAccount(s.d, t.key, { slot: { slotId: "s", data: { v: 1 } } });
      const customer = `cus_${uid()}`;
      const sub = `sub_${uid()}`;
      await deliver(checkoutCompleted(customer, { client_reference_id: t.workspaceId }));
      const eightDaysAgo = nowSeconds() - 8 * 24 * 3600;
      await deliver(
        subscriptionEvent(
          "created",
          { id: sub, customer, status: "active", price: "price_starter" },
          eightDaysAgo - 60,
        ),
      );
      await deliver(invoiceEvent("invoice.payment_failed", customer, sub, eightDaysAgo));
      await deliver(
        subscriptionEvent("updated", { id: sub, customer, status: "past_due", price: "price_starter" }, eightDaysAgo),
      );

      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
        body: { baseVersion: 1, data: { v: 2 } },
      });
      expect(sync.status).toBe(402);
      expect(sync.body.error).toEqual({
        code: "payment_required",
        message: expect.any(String),
        details: {
          plan: "starter",
          billingStatus: "past_due",
          scope: "environment",
          setting: expect.stringContaining("billingStatus"),
        },
      });
      expect((await call(s.other, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(402);
      expect((await admin(s.d, "GET", `/admin/v1/accounts/${acc.accountId}`)).body.slots[0].version).toBe(1); // data kept, unchanged

      await deliver(invoiceEvent("invoice.paid", customer, sub));
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } }))
          .status,
      ).toBe(200);
    });

    test("past due for less than 7 days still serves", async () => {
      const t = await newTenant(s.d, "starter");
      expect(
        (await admin(s.d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { billingStatus: "past_due" })).status,
      ).toBe(200);
      expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      expect(
        (await admin(s.d, "PATCH", `/admin/v1/workspaces/${t.workspaceId}`, { billingStatus: "unpaid" })).status,
      ).toBe(200);
      expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(402);
    });

    test("the month's quota: 402 monthly_quota_exceeded past it, counted across gateway copies", async () => {
      const t = await newTenant(s.d, "free");
      for (let i = 0; i < 12; i++)
        expect((await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      await countsShared();
      const over = await call(s.other, "GET", "/api/v1/runtime-config", { key: t.key });
      expect(over.status).toBe(402);
      expect(over.body.error).toEqual({
        code: "monthly_quota_exceeded",
        message: expect.any(String),
        details: {
          planTier: "free",
          used: 12,
          limit: 12,
          scope: "environment",
          setting: "SAVEPOINT_PLANS: monthlyRequests",
        },
      });
      expect(over.body.error.message).toContain("free plan");
      // Each environment has its own quota.
      const prod = await admin(s.d, "POST", `/admin/v1/projects/${t.projectId}/environments/prod/runtime-keys`, {});
      expect((await call(s.other, "GET", "/api/v1/runtime-config", { key: prod.body.runtimeKey })).status).toBe(200);
    });

    test("the minute's limit: 429 with Retry-After and RateLimit headers past the burst, counted across gateway copies", async () => {
      const t = await newTenant(s.d, "starter");
      await awayFromWindowEnd(60);
      for (let i = 0; i < 10; i++)
        expect((await call(i < 5 ? s.d : s.other, "GET", "/api/v1/runtime-config", { key: t.key })).status).toBe(200);
      await countsShared();
      const limited = await call(s.d, "GET", "/api/v1/runtime-config", { key: t.key });
      expect(limited.status).toBe(429);
      // It says which limit, whose, on which plan, and what changes it.
      expect(limited.body.error).toMatchObject({
        code: "rate_limited",
        details: {
          limit: 5,
          windowSeconds: 60,
          scope: "environment",
          planTier: "starter",
          setting: expect.stringContaining("SAVEPOINT_PLANS"),
        },
      });
      expect(limited.body.error.message).toMatch(/this environment may make 5 requests a minute on the starter plan/);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get("ratelimit-limit")).toBe("5");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      expect(limited.headers.get("ratelimit-reset")).toBe(String(retryAfter));
    });

    test("each account is limited to its project's requests a minute across its sessions, counted across gateway copies", async () => {
      const t = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
        rateLimits: { sessionRequestsPerMinute: 4 },
      });
      const acc = await newAccount(s.d, t.key);
      const other = await newAccount(s.d, t.key);
      await awayFromWindowEnd(60);
      // A second device of the same account: its session must not bring a fresh allowance.
      const code = await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: {} });
      const consumed = await call(s.other, "POST", "/api/v1/account-transfer-codes/consume", {
        key: t.key,
        body: { transferCode: code.body.transferCode },
      });
      expect([code.status, consumed.status, consumed.body.accountId]).toEqual([201, 200, acc.accountId]);
      const sessions = [acc.session, consumed.body.accountSessionToken as string];
      const read = (i: number, via: Deployment) =>
        call(via, "GET", `/api/v1/accounts/${acc.accountId}`, { key: t.key, session: sessions[i % 2] });
      for (let i = 1; i < 4; i++) expect((await read(i, i % 2 === 0 ? s.d : s.other)).status).toBe(200);
      await countsShared();
      for (const [i, via] of [
        [0, s.d],
        [1, s.other],
      ] as const) {
        const limited = await read(i, via);
        expect([limited.status, limited.body.error?.code, limited.body.error?.details]).toEqual([
          429,
          "rate_limited",
          {
            scope: "account",
            setting: "project setting rateLimits.sessionRequestsPerMinute",
            limit: 4,
            windowSeconds: 60,
            retryAfter: expect.any(Number),
          },
        ]);
        expect(limited.headers.get("ratelimit-limit")).toBe("4");
      }
      expect((await other.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    });

    test("an account has 8 requests in flight in a gateway copy at most: 200 more are 429 at once, counted in no quota; others are served", async () => {
      const t = await newTenant(s.d);
      const settings = (perMinute: number) =>
        admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
          rateLimits: { sessionRequestsPerMinute: perMinute },
        });
      await settings(1_000);
      const acc = await newAccount(s.d, t.key);
      const other = await newAccount(s.d, t.key);
      await awayFromWindowEnd(60);
      // Eight syncs whose bodies are still on their way hold the account's eight places.
      const hold = () => heldRequest(s.d, `/api/v1/accounts/${acc.accountId}/data/sync`, t.key, acc.session);
      const held = Array.from({ length: 8 }, hold);
      let counted = 0;
      let probe = await acc.call("GET", "/api/v1/accounts/{acc}");
      // Until the held syncs have taken their places (up to 10 s on a loaded machine). A probe in flight
      // takes a place too: a held sync that arrived meanwhile was refused, so another one replaces it.
      for (let i = 0; probe.status === 200 && i < 500; i++, counted++) {
        await Bun.sleep(20);
        for (const [k, h] of held.entries()) {
          if (!h.settled) continue;
          held[k] = hold();
        }
        probe = await acc.call("GET", "/api/v1/accounts/{acc}");
      }
      expect(probe.status).toBe(429);

      const burst = Array.from({ length: 200 }, () => acc.call("GET", "/api/v1/accounts/{acc}"));
      const during = await other.call("GET", "/api/v1/accounts/{acc}");
      const answers = await Promise.all(burst);
      const refused = answers.filter((a) => a.status === 429);
      expect(`refused ${refused.length} of 200`).toBe("refused 200 of 200");
      expect(refused[0]!.body.error).toEqual({
        code: "rate_limited",
        message: expect.any(String),
        details: {
          scope: "account",
          setting: "project setting rateLimits.accountConcurrentRequests",
          limit: 8,
          windowSeconds: 1,
          retryAfter: 1,
        },
      });
      expect([refused[0]!.headers.get("retry-after"), refused[0]!.headers.get("ratelimit-limit")]).toEqual(["1", "8"]);
      expect(during.status).toBe(200);

      // Answered, the syncs give their places back (one wins, the others conflict).
      const syncs = await Promise.all(
        held.map((h) => h.finish(JSON.stringify({ baseVersion: 1, accountDataPatch: { n: 1 } }))),
      );
      expect(syncs.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
      counted += 8 + 1;
      // None of the 429s was counted: the minute's count holds the answered requests alone.
      await settings(counted + 2);
      expect([
        (await acc.call("GET", "/api/v1/accounts/{acc}")).status,
        (await acc.call("GET", "/api/v1/accounts/{acc}")).status,
      ]).toEqual([200, 200]);
      const over = await acc.call("GET", "/api/v1/accounts/{acc}");
      expect([over.status, over.body.error?.details]).toEqual([
        429,
        {
          scope: "account",
          setting: "project setting rateLimits.sessionRequestsPerMinute",
          limit: counted + 2,
          windowSeconds: 60,
          retryAfter: expect.any(Number),
        },
      ]);
    });

    test("each client IP may create its project's accounts a minute, counted across gateway copies", async () => {
      const t = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, {
        rateLimits: { accountCreationsPerIpPerMinute: 3 },
      });
      await awayFromWindowEnd(60);
      const client = { "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250)}` };
      const create = (via: Deployment) =>
        call(via, "POST", "/api/v1/accounts", { key: t.key, body: {}, headers: client });
      expect([(await create(s.d)).status, (await create(s.other)).status, (await create(s.d)).status]).toEqual([
        201, 201, 201,
      ]);
      const limited = await create(s.other);
      expect([limited.status, limited.body.error.code, limited.body.error.details.limit]).toEqual([
        429,
        "rate_limited",
        3,
      ]);
      expect(
        (
          await call(s.other, "POST", "/api/v1/accounts", {
            key: t.key,
            body: {},
            headers: { "x-forwarded-for": "203.0.113.9" },
          })
        ).status,
      ).toBe(201);
    });
  },
);
