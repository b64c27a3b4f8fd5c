import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { z } from "zod";
import type { Deps } from "../../services/billing/deps.ts";
import { service as billing } from "../../services/billing/service.ts";
import { statusOf } from "../../services/gateway/errors.ts";
import { createLocalBus } from "../../shared/bus/local.ts";
import type { Bus } from "../../shared/bus/port.ts";
import type { Workspace } from "../../shared/contract/admin.ts";
import { fail, isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";
import type { Logger } from "../../shared/observe/log.ts";
import { type Env, readEnv } from "../../shared/process/env.ts";
import { contextFor } from "../../shared/process/service-module.ts";
import { callEndpoint, callRoute } from "../../shared/serving/call.ts";
import { serveEndpoint } from "../../shared/serving/serve.ts";
import type { Store } from "../../shared/store/port.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { capturingLogger } from "../helpers/kept.ts";
import { storeAdapters } from "../helpers/store-adapters.ts";
import {
  checkoutCompleted,
  event,
  invoiceEvent,
  iso,
  nowSeconds,
  type StripeEventJson,
  sign as signEvent,
  subscriptionEvent,
  uid,
} from "../helpers/stripe-events.ts";

/** The billing service on `bus` and `store`, as the registry starts it. */
const runBilling = (bus: Bus, store: Store, env: Env, log: Logger, now: () => Date = () => new Date()): Promise<Deps> =>
  billing.start(contextFor(billing.name, { bus, store, env, plans: defaultPlans, log, now }));

/**
 * The billing service driven over an in-process bus with a real store (SQLite, then MongoDB), a fake
 * config service that records what it is asked, and events signed here with the stripe library.
 */
const secret = `whsec_test_${crypto.randomUUID().replaceAll("-", "")}`;
const pricePlans = "price_starter=starter, price_pro=pro";
type Billing = z.infer<typeof internal.setWorkspaceBilling.request>;

interface Harness {
  bus: Bus;
  deps: Deps;
  store: Store;
  /** Every setWorkspaceBilling request config received, in order. */
  calls: Billing[];
  workspaces: Map<string, Workspace>;
  lines: string[];
}

/** A fake config: applies billing to the workspaces it knows, not_found for any other. */
function serveFakeConfig(bus: Bus, calls: Billing[], workspaces: Map<string, Workspace>) {
  serveEndpoint(bus, "config", internal.setWorkspaceBilling, async (input) => {
    calls.push(input);
    const ws = workspaces.get(input.workspaceId);
    if (!ws) throw fail.notFound("Workspace");
    if (input.plan) ws.plan = input.plan;
    if (input.billingStatus) ws.billingStatus = input.billingStatus;
    if (input.pastDueSince === null) delete ws.pastDueSince;
    else if (input.pastDueSince) ws.pastDueSince = input.pastDueSince;
    if (input.stripeCustomerId) ws.stripeCustomerId = input.stripeCustomerId;
    return ws;
  });
}

async function startHarness(
  store: Store,
  env: Record<string, string> = { STRIPE_WEBHOOK_SECRET: secret },
  now?: () => Date,
): Promise<Harness> {
  const lines: string[] = [];
  const log = capturingLogger(lines);
  const bus = createLocalBus(log);
  const calls: Billing[] = [];
  const workspaces = new Map<string, Workspace>();
  serveFakeConfig(bus, calls, workspaces);
  const deps = await runBilling(bus, store, readEnv({ STRIPE_PRICE_PLANS: pricePlans, ...env }), log, now);
  return { bus, deps, store, calls, workspaces, lines };
}

const sign = (payload: string, o: { timestamp?: number; secret?: string } = {}) =>
  signEvent(payload, o.secret ?? secret, o.timestamp);

interface Answer {
  status: number;
  body: any;
}

const newIp = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;

/** Sends a delivery over the bus as the gateway would, with the status the gateway would answer; from a new client IP unless given. */
async function post(h: Harness, payload: string, signature: string | undefined, ip = newIp()): Promise<Answer> {
  const msg = {
    tenant: undefined,
    session: undefined,
    client: { ip },
    params: {},
    query: {},
    body: { payload, signature },
  };
  try {
    return { status: 200, body: await callRoute(h.bus, contractRoutes.stripeWebhook.subject!, msg) };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return { status: statusOf[err.code], body: { error: err.toJSON() } };
  }
}

/** Delivers an event signed with the test secret. */
async function deliver(h: Harness, e: StripeEventJson): Promise<Answer> {
  const payload = JSON.stringify(e, null, 2);
  return post(h, payload, await sign(payload));
}

/** A workspace config knows, with a fresh Stripe customer and subscription id for it. */
function newWorkspace(h: Harness) {
  const workspaceId = `wsp_${uid()}`;
  h.workspaces.set(workspaceId, {
    workspaceId,
    name: "test",
    plan: "free",
    billingStatus: "active",
    createdAt: new Date().toISOString(),
  });
  return { workspaceId, customer: `cus_${uid()}`, sub: `sub_${uid()}`, ws: () => h.workspaces.get(workspaceId)! };
}

/** A workspace whose customer a checkout has linked. */
async function linkedWorkspace(h: Harness) {
  const w = newWorkspace(h);
  expect(await deliver(h, checkoutCompleted(w.customer, { client_reference_id: w.workspaceId }))).toEqual({
    status: 200,
    body: { received: true },
  });
  return w;
}

const callsFor = (h: Harness, workspaceId: string) => h.calls.filter((c) => c.workspaceId === workspaceId);
const ok = { status: 200, body: { received: true } };

const adapters = storeAdapters("billing");

for (const [name, open] of adapters) {
  describe(`stripe webhook (${name})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(await open());
    });
    afterAll(async () => {
      await h.bus.close();
      await h.store.close();
    });

    test("checkout.session.completed links the customer through client_reference_id", async () => {
      const w = newWorkspace(h);
      expect(
        await deliver(
          h,
          checkoutCompleted(w.customer, { client_reference_id: w.workspaceId, metadata: { workspaceId: "wsp_other" } }),
        ),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId)).toEqual([{ workspaceId: w.workspaceId, stripeCustomerId: w.customer }]);
      expect((await h.deps.repo.customers.get(w.customer))?.workspaceId).toBe(w.workspaceId);
    });

    test("checkout.session.completed links through metadata.workspaceId when client_reference_id is not a workspace", async () => {
      const w = newWorkspace(h);
      expect(
        await deliver(
          h,
          checkoutCompleted(w.customer, { client_reference_id: "user_42", metadata: { workspaceId: w.workspaceId } }),
        ),
      ).toEqual(ok);
      expect(w.ws().stripeCustomerId).toBe(w.customer);
      // The link is what later events of the customer reach the workspace through.
      expect(
        await deliver(
          h,
          subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_starter" }),
        ),
      ).toEqual(ok);
      expect(w.ws().plan).toBe("starter");
    });

    test("objects and metadata with keys such as constructor or __proto__ are read like any other", async () => {
      const w = newWorkspace(h);
      const checkout = checkoutCompleted(w.customer, {
        client_reference_id: null,
        metadata: JSON.parse(`{"constructor":"x","__proto__":{"a":1},"workspaceId":"${w.workspaceId}"}`),
      });
      Object.assign(checkout.data.object, JSON.parse('{"constructor":null}'));
      expect(await deliver(h, checkout)).toEqual(ok);
      expect(w.ws().stripeCustomerId).toBe(w.customer);
    });

    test("subscription created, updated and deleted set the plan from the price and the status; deleted falls back to free", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds();
      const s = { id: w.sub, customer: w.customer, price: "price_starter" };
      expect(await deliver(h, subscriptionEvent("created", { ...s, status: "trialing" }, t))).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "starter",
        billingStatus: "trialing",
        pastDueSince: null,
      });
      expect(
        await deliver(h, subscriptionEvent("updated", { ...s, status: "active", price: "price_pro" }, t + 1)),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "pro",
        billingStatus: "active",
        pastDueSince: null,
      });
      expect(
        await deliver(h, subscriptionEvent("deleted", { ...s, status: "canceled", price: "price_pro" }, t + 2)),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "free",
        billingStatus: "canceled",
        pastDueSince: null,
      });
      expect(w.ws()).toMatchObject({ plan: "free", billingStatus: "canceled" });
    });

    test("a subscription whose price buys no configured plan keeps the plan and still sets the status", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds();
      await deliver(
        h,
        subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" }, t),
      );
      expect(
        await deliver(
          h,
          subscriptionEvent(
            "updated",
            { id: w.sub, customer: w.customer, status: "past_due", price: "price_unknown" },
            t + 1,
          ),
        ),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "pro",
        billingStatus: "past_due",
        pastDueSince: iso(t + 1),
      });
    });

    test("past_due sets pastDueSince once, to the event's time; active clears it", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds() - 1_000;
      const s = { id: w.sub, customer: w.customer, price: "price_starter" };
      await deliver(h, subscriptionEvent("created", { ...s, status: "active" }, t));
      await deliver(h, subscriptionEvent("updated", { ...s, status: "past_due" }, t + 10));
      expect(w.ws()).toMatchObject({ billingStatus: "past_due", pastDueSince: iso(t + 10) });
      await deliver(h, subscriptionEvent("updated", { ...s, status: "past_due" }, t + 20));
      await deliver(h, subscriptionEvent("updated", { ...s, status: "unpaid" }, t + 30));
      expect(w.ws()).toMatchObject({ billingStatus: "unpaid", pastDueSince: iso(t + 10) });
      await deliver(h, subscriptionEvent("updated", { ...s, status: "active" }, t + 40));
      expect(callsFor(h, w.workspaceId).at(-1)).toMatchObject({ billingStatus: "active", pastDueSince: null });
      expect(w.ws().pastDueSince).toBeUndefined();
    });

    test("invoice.payment_failed makes the workspace past due from its time, unless already; invoice.paid settles it", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds() - 1_000;
      await deliver(
        h,
        subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" }, t),
      );
      expect(await deliver(h, invoiceEvent("invoice.payment_failed", w.customer, w.sub, t + 10))).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "pro",
        billingStatus: "past_due",
        pastDueSince: iso(t + 10),
      });
      // A second failed attempt days later: still past due since the first.
      expect(await deliver(h, invoiceEvent("invoice.payment_failed", w.customer, w.sub, t + 20, true))).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toMatchObject({ billingStatus: "past_due", pastDueSince: iso(t + 10) });
      expect(await deliver(h, invoiceEvent("invoice.paid", w.customer, w.sub, t + 30))).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "pro",
        billingStatus: "active",
        pastDueSince: null,
      });
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
      expect(w.ws().pastDueSince).toBeUndefined();
    });

    test("an invoice of no subscription applies to its customer's workspace", async () => {
      const w = await linkedWorkspace(h);
      expect(await deliver(h, invoiceEvent("invoice.payment_failed", w.customer, null))).toEqual(ok);
      expect(w.ws()).toMatchObject({ billingStatus: "past_due" });
      expect(await deliver(h, invoiceEvent("invoice.paid", w.customer, null))).toEqual(ok);
      expect(w.ws()).toMatchObject({ billingStatus: "active" });
    });

    test("the same event delivered 3 times applies once and answers 200 each time", async () => {
      const w = await linkedWorkspace(h);
      const e = subscriptionEvent("created", {
        id: w.sub,
        customer: w.customer,
        status: "active",
        price: "price_starter",
      });
      for (let i = 0; i < 3; i++) expect(await deliver(h, e)).toEqual(ok);
      expect(callsFor(h, w.workspaceId).filter((c) => c.plan)).toHaveLength(1);
      // Delivered 3 times at once, too.
      const e2 = invoiceEvent("invoice.payment_failed", w.customer, w.sub);
      expect(await Promise.all([deliver(h, e2), deliver(h, e2), deliver(h, e2)])).toEqual([ok, ok, ok]);
      expect(callsFor(h, w.workspaceId).filter((c) => c.billingStatus === "past_due")).toHaveLength(1);
      expect((await h.deps.repo.events.get(e2.id))?.state).toBe("applied");
    });

    test("subscription.updated delivered before subscription.created: the older created never rolls it back", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds();
      const before = callsFor(h, w.workspaceId).length;
      expect(
        await deliver(
          h,
          subscriptionEvent(
            "updated",
            { id: w.sub, customer: w.customer, status: "active", price: "price_pro" },
            t + 5,
          ),
        ),
      ).toEqual(ok);
      expect(
        await deliver(
          h,
          subscriptionEvent(
            "created",
            { id: w.sub, customer: w.customer, status: "incomplete", price: "price_starter" },
            t,
          ),
        ),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId).slice(before)).toEqual([
        { workspaceId: w.workspaceId, plan: "pro", billingStatus: "active", pastDueSince: null },
      ]);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
    });

    test("an old subscription.updated or invoice after a newer update changes nothing", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds();
      const s = { id: w.sub, customer: w.customer };
      await deliver(h, subscriptionEvent("updated", { ...s, status: "active", price: "price_pro" }, t + 60));
      const before = callsFor(h, w.workspaceId).length;
      expect(
        await deliver(h, subscriptionEvent("updated", { ...s, status: "past_due", price: "price_starter" }, t + 30)),
      ).toEqual(ok);
      expect(await deliver(h, invoiceEvent("invoice.payment_failed", w.customer, w.sub, t + 50))).toEqual(ok);
      expect(
        await deliver(h, subscriptionEvent("deleted", { ...s, status: "canceled", price: "price_pro" }, t + 59)),
      ).toEqual(ok);
      expect(callsFor(h, w.workspaceId).length).toBe(before);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
      expect(w.ws().pastDueSince).toBeUndefined();
    });

    test("events of a customer no checkout linked yet answer 200 and are applied when the checkout arrives", async () => {
      const w = newWorkspace(h);
      const t = nowSeconds();
      expect(
        await deliver(
          h,
          subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" }, t),
        ),
      ).toEqual(ok);
      expect(await deliver(h, invoiceEvent("invoice.paid", w.customer, w.sub, t))).toEqual(ok);
      expect(callsFor(h, w.workspaceId)).toEqual([]);
      expect(h.lines.some((l) => l.includes("not linked") && l.includes(w.customer))).toBe(true);
      expect(await deliver(h, checkoutCompleted(w.customer, { client_reference_id: w.workspaceId }))).toEqual(ok);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active", stripeCustomerId: w.customer });
    });

    test("a subscription whose metadata names the workspace links its customer and applies; later invoices apply too", async () => {
      const w = newWorkspace(h);
      const t = nowSeconds() - 100;
      const created = subscriptionEvent(
        "created",
        { id: w.sub, customer: w.customer, status: "active", price: "price_pro" },
        t,
      );
      Object.assign(created.data.object, { metadata: { workspaceId: w.workspaceId } });
      expect(await deliver(h, created)).toEqual(ok);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active", stripeCustomerId: w.customer });
      expect(h.lines.some((l) => l.includes("not linked") && l.includes(w.customer))).toBe(false);
      expect(await deliver(h, invoiceEvent("invoice.payment_failed", w.customer, w.sub, t + 10))).toEqual(ok);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "past_due", pastDueSince: iso(t + 10) });
      // A newer checkout links the customer elsewhere; an older subscription event does not take it back.
      const other = newWorkspace(h);
      await deliver(h, checkoutCompleted(w.customer, { client_reference_id: other.workspaceId }));
      const stale = subscriptionEvent(
        "updated",
        { id: w.sub, customer: w.customer, status: "active", price: "price_pro" },
        t + 5,
      );
      Object.assign(stale.data.object, { metadata: { workspaceId: w.workspaceId } });
      expect(await deliver(h, stale)).toEqual(ok);
      expect((await h.deps.repo.customers.get(w.customer))?.workspaceId).toBe(other.workspaceId);
    });

    test("a customer's workspace follows its best live subscription: deleting an old starter leaves the newer pro", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds() - 100;
      const starter = { id: `sub_${uid()}`, customer: w.customer, price: "price_starter" };
      const pro = { id: `sub_${uid()}`, customer: w.customer, price: "price_pro" };
      await deliver(h, subscriptionEvent("created", { ...starter, status: "active" }, t));
      await deliver(h, subscriptionEvent("created", { ...pro, status: "active" }, t + 10));
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
      // The old starter is updated, then deleted: neither is the workspace's plan any more.
      expect(await deliver(h, subscriptionEvent("updated", { ...starter, status: "active" }, t + 20))).toEqual(ok);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
      expect(await deliver(h, subscriptionEvent("deleted", { ...starter, status: "canceled" }, t + 30))).toEqual(ok);
      expect(callsFor(h, w.workspaceId).at(-1)).toEqual({
        workspaceId: w.workspaceId,
        plan: "pro",
        billingStatus: "active",
        pastDueSince: null,
      });
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
      // With the pro deleted too, nothing is live: free, canceled.
      await deliver(h, subscriptionEvent("deleted", { ...pro, status: "canceled" }, t + 40));
      expect(w.ws()).toMatchObject({ plan: "free", billingStatus: "canceled" });
    });

    test("events of three subscriptions of one customer delivered at once: the workspace ends on the best live one", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds() - 100;
      const subs = ["price_starter", "price_pro", "price_starter"].map((price) => ({
        id: `sub_${uid()}`,
        customer: w.customer,
        price,
      }));
      await Promise.all([
        ...subs.map((s, i) => deliver(h, subscriptionEvent("created", { ...s, status: "active" }, t + i))),
        deliver(h, subscriptionEvent("deleted", { ...subs[0]!, status: "canceled" }, t + 10)),
        deliver(h, invoiceEvent("invoice.payment_failed", w.customer, subs[2]!.id, t + 10)),
      ]);
      expect(w.ws()).toMatchObject({ plan: "pro", billingStatus: "active" });
    });

    test("a deleted subscription never comes back: a same-second stale updated, later invoices and a repeat leave it canceled", async () => {
      const w = await linkedWorkspace(h);
      const t = nowSeconds() - 100;
      const s = { id: w.sub, customer: w.customer, price: "price_pro" };
      await deliver(h, subscriptionEvent("created", { ...s, status: "active" }, t));
      await deliver(h, subscriptionEvent("deleted", { ...s, status: "canceled" }, t + 10));
      expect(await deliver(h, subscriptionEvent("updated", { ...s, status: "active" }, t + 10))).toEqual(ok);
      expect(await deliver(h, invoiceEvent("invoice.paid", w.customer, w.sub, t + 20))).toEqual(ok);
      expect(await deliver(h, subscriptionEvent("updated", { ...s, status: "active" }, t + 30))).toEqual(ok);
      expect(w.ws()).toMatchObject({ plan: "free", billingStatus: "canceled" });
      expect(await h.deps.repo.states.get(w.sub)).toMatchObject({ status: "canceled", deleted: true });
    });

    test("a checkout naming a workspace config does not know answers 200, logs a warning and links nothing", async () => {
      const customer = `cus_${uid()}`;
      const unknown = `wsp_${uid()}`;
      expect(await deliver(h, checkoutCompleted(customer, { client_reference_id: unknown }))).toEqual(ok);
      expect(h.lines.some((l) => l.includes("unknown workspace") && l.includes(unknown))).toBe(true);
      expect(await h.deps.repo.customers.get(customer)).toBeNull();
      expect(
        await deliver(
          h,
          subscriptionEvent("created", { id: `sub_${uid()}`, customer, status: "active", price: "price_pro" }),
        ),
      ).toEqual(ok);
      expect(await deliver(h, checkoutCompleted(`cus_${uid()}`, { metadata: {} }))).toEqual(ok);
    });

    test("bad, stale, future or missing signatures, a body changed after signing and a non-JSON body: 400, nothing applied", async () => {
      const w = await linkedWorkspace(h);
      const e = subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" });
      const payload = JSON.stringify(e);
      const changed = payload.replace("price_pro", "price_starter");
      const notJson = `{"id": "${e.id}", "type": `;
      const refused = [
        await post(h, payload, await sign(payload, { secret: "whsec_someone_else" })),
        await post(h, payload, await sign(payload, { timestamp: nowSeconds() - 301 })),
        await post(h, payload, await sign(payload, { timestamp: nowSeconds() + 400 })),
        await post(h, payload, undefined),
        await post(h, payload, ""),
        await post(h, payload, "t=123,v1=deadbeef"),
        await post(h, changed, await sign(payload)),
        await post(h, notJson, await sign(notJson)),
        await post(h, "", await sign("")),
      ];
      for (const answer of refused)
        expect(answer).toEqual({
          status: 400,
          body: { error: { code: "invalid_signature", message: expect.any(String) } },
        });
      expect(callsFor(h, w.workspaceId).filter((c) => c.plan)).toEqual([]);
      expect(await h.deps.repo.events.get(e.id)).toBeNull();
      // Within the tolerance the same event is still good, and applies.
      expect(await post(h, payload, await sign(payload, { timestamp: nowSeconds() - 240 }))).toEqual(ok);
      expect(w.ws().plan).toBe("pro");
    });

    test("of two t= in the header the library's (the last) is checked: a last one 400 s ahead is refused", async () => {
      const w = await linkedWorkspace(h);
      const payload = JSON.stringify(
        subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" }),
      );
      const ahead = await sign(payload, { timestamp: nowSeconds() + 400 });
      expect(await post(h, payload, `t=${nowSeconds()},${ahead}`)).toEqual({
        status: 400,
        body: { error: { code: "invalid_signature", message: expect.any(String) } },
      });
      expect(w.ws().plan).toBe("free");
      // The other way round the library verifies the last t=, which is now: a good signature.
      const current = await sign(payload);
      expect(await post(h, payload, `t=${nowSeconds() + 400},${current}`)).toEqual(ok);
      expect(w.ws().plan).toBe("pro");
    });

    test("forged posts: the 11th from one IP in a minute, across copies, is 429 (scope client_ip), logged once a minute with a count; signed events apply", async () => {
      let clock = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
      const own = await startHarness(await open(), undefined, () => clock);
      // A second billing copy on the same store: the forged posts are counted across both.
      const copy = await startHarness(own.store, undefined, () => clock);
      try {
        const w = await linkedWorkspace(own);
        const payload = JSON.stringify(
          subscriptionEvent("created", { id: w.sub, customer: w.customer, status: "active", price: "price_pro" }),
        );
        const forged = await sign(payload, { secret: "whsec_forger" });
        const attacker = newIp();
        const answers = [];
        for (let i = 0; i < 12; i++) answers.push(await post(i % 2 ? copy : own, payload, forged, attacker));
        expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(400));
        for (const limited of answers.slice(10)) {
          expect(limited).toEqual({
            status: 429,
            body: {
              error: {
                code: "rate_limited",
                message: expect.any(String),
                details: { scope: "client_ip", setting: "fixed", limit: 10, windowSeconds: 60, retryAfter: 59 },
              },
            },
          });
        }
        // A correctly signed event applies, from another IP and from the attacker's own (it may share a proxy with Stripe).
        expect(await post(own, payload, await sign(payload), newIp())).toEqual(ok);
        expect(w.ws().plan).toBe("pro");
        const upgrade = JSON.stringify(
          subscriptionEvent(
            "updated",
            { id: w.sub, customer: w.customer, status: "active", price: "price_starter" },
            nowSeconds() + 1,
          ),
        );
        expect(await post(own, upgrade, await sign(upgrade), attacker)).toEqual(ok);
        expect(w.ws().plan).toBe("starter");

        const warnings = () =>
          [...own.lines, ...copy.lines]
            .map((l) => JSON.parse(l))
            .filter((l) => l.msg.startsWith("stripe webhook refused") && l.clientIp === attacker);
        expect(warnings()).toHaveLength(1);
        clock = new Date(clock.getTime() + 60_000);
        expect((await post(own, payload, forged, attacker)).status).toBe(400);
        expect((await post(own, payload, forged, attacker)).status).toBe(400);
        expect(warnings()).toHaveLength(2);
        // Counting stops at the limit: refusals past it cost the forger's target no write.
        expect(warnings()[1]).toMatchObject({ level: "warn", refusedLastMinute: 10 });
      } finally {
        await copy.bus.close();
        await own.bus.close();
        await own.store.close();
      }
    });

    test("an event type the service does not handle: 200 received false, nothing stored", async () => {
      for (const type of ["customer.created", "payment_intent.succeeded", "constructor", "__proto__"]) {
        const e = event(type, { id: `x_${uid()}`, object: "thing" });
        expect(await deliver(h, e)).toEqual({ status: 200, body: { received: false } });
        expect(await h.deps.repo.events.get(e.id)).toBeNull();
      }
    });

    test("a signed body that is not a Stripe event is 400", async () => {
      for (const payload of [
        "null",
        "[]",
        '{"id":"evt_1"}',
        JSON.stringify({ ...event("invoice.paid", {}), data: null }),
      ]) {
        expect((await post(h, payload, await sign(payload))).status).toBe(400);
      }
    });

    test("without STRIPE_WEBHOOK_SECRET the webhook answers 503 webhook_not_configured, saying what to set", async () => {
      const bare = await startHarness(await open(), {});
      try {
        const e = event("invoice.paid", { id: `in_${uid()}`, customer: "cus_x" });
        const answer = await deliver(bare, e);
        expect(answer.status).toBe(503);
        expect(answer.body.error.code).toBe("webhook_not_configured");
        expect(answer.body.error.message).toContain("STRIPE_WEBHOOK_SECRET");
        expect(await bare.deps.repo.events.get(e.id)).toBeNull();
      } finally {
        await bare.bus.close();
        await bare.store.close();
      }
    });

    test("a store that is down answers 500, so that Stripe retries", async () => {
      const down = await startHarness(await open());
      await down.store.close();
      try {
        const answer = await deliver(
          down,
          subscriptionEvent("created", {
            id: `sub_${uid()}`,
            customer: `cus_${uid()}`,
            status: "active",
            price: "price_pro",
          }),
        );
        expect(answer.status).toBe(500);
        expect(answer.body.error.code).toBe("internal_error");
        expect(down.calls).toEqual([]);
      } finally {
        await down.bus.close();
      }
    });

    test("no log line carries the signature header or the secret", async () => {
      const e = event("invoice.paid", { id: `in_${uid()}`, customer: `cus_${uid()}` });
      const payload = JSON.stringify(e);
      const signature = await sign(payload);
      await post(h, payload, signature);
      await post(h, payload.replace("invoice", "invoicf"), signature);
      const v1 = signature.split("v1=")[1]!;
      const all = h.lines.join("\n");
      expect(h.lines.length).toBeGreaterThan(10);
      if (process.env.SHOW_BILLING_LOG) console.log(all);
      expect(all).not.toContain(v1);
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice("whsec_".length));
    });
  });

  describe(`usage reports (${name})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(await open());
    });
    afterAll(async () => {
      await h.bus.close();
      await h.store.close();
    });
    const report = (counts: { scope: string; window: string; n: number }[]) =>
      callEndpoint(h.bus, internal.reportUsage, { counts: counts.map((c) => ({ ...c, keepDays: 1 })) });

    test("counts add up to shared totals per scope and window; 0 only reads; a pair named twice is summed", async () => {
      const env = `env:${uid()}`;
      expect(await report([{ scope: env, window: "2030-01", n: 0 }])).toEqual({
        totals: [{ scope: env, window: "2030-01", n: 0 }],
      });
      expect(await h.deps.repo.usage.get(`${env}|2030-01`)).toBeNull();
      expect(
        await report([
          { scope: env, window: "2030-01", n: 5 },
          { scope: env, window: "2030-01T10:00", n: 2 },
        ]),
      ).toEqual({
        totals: [
          { scope: env, window: "2030-01", n: 5 },
          { scope: env, window: "2030-01T10:00", n: 2 },
        ],
      });
      expect(
        await report([
          { scope: env, window: "2030-01", n: 3 },
          { scope: env, window: "2030-01", n: 4 },
        ]),
      ).toEqual({ totals: [{ scope: env, window: "2030-01", n: 12 }] });
      expect(await report([{ scope: env, window: "2030-01", n: 0 }])).toEqual({
        totals: [{ scope: env, window: "2030-01", n: 12 }],
      });
      // Kept for keepDays (1 here) and a day of margin after the day it was first counted, then pruned.
      const stored = { _id: `${env}|2030-01`, scope: env, window: "2030-01", n: 12, pruneDay: dayAfter(new Date(), 2) };
      expect(await h.deps.repo.usage.get(`${env}|2030-01`)).toEqual(stored);
      expect(await deleteDaysBefore(h.deps.repo.usage, "pruneDay", dayAfter(new Date(), 2))).toBe(0);
      expect(await h.deps.repo.usage.get(`${env}|2030-01`)).toEqual(stored);
      await deleteDaysBefore(h.deps.repo.usage, "pruneDay", dayAfter(new Date(), 3));
      expect(await h.deps.repo.usage.get(`${env}|2030-01`)).toBeNull();
    });

    test("20 gateways reporting at once: every count is kept", async () => {
      const scope = `workspace:${uid()}`;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          report([
            { scope, window: "m", n: i + 1 },
            { scope: `${scope}-b`, window: "m", n: 1 },
          ]),
        ),
      );
      expect(
        await report([
          { scope, window: "m", n: 0 },
          { scope: `${scope}-b`, window: "m", n: 0 },
        ]),
      ).toEqual({
        totals: [
          { scope, window: "m", n: 210 },
          { scope: `${scope}-b`, window: "m", n: 20 },
        ],
      });
      // Each copy learnt a distinct running total: the increments did not overlap.
      expect(new Set(answers.map((a) => a.totals[1]!.n)).size).toBe(20);
    });
  });
}

test("a bad STRIPE_PRICE_PLANS stops start-up, naming the variable", async () => {
  const store = createSqliteStore(":memory:");
  const bus = createLocalBus(capturingLogger([]));
  for (const value of ["price_a=gold", "price_a", "price_a=starter=pro", "=starter", "price_a=starter,price_a=pro"]) {
    await expect(runBilling(bus, store, readEnv({ STRIPE_PRICE_PLANS: value }), capturingLogger([]))).rejects.toThrow(
      /^STRIPE_PRICE_PLANS: /,
    );
  }
  await expect(
    runBilling(
      bus,
      store,
      readEnv({ STRIPE_PRICE_PLANS: " price_a=starter , price_b=self_hosted," }),
      capturingLogger([]),
    ),
  ).resolves.toBeDefined();
  await bus.close();
  await store.close();
});
