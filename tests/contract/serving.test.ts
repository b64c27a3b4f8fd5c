import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLocalBus } from "../../shared/bus/local.ts";
import { createNatsBus } from "../../shared/bus/nats.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { adminRoutes } from "../../shared/contract/admin-routes.ts";
import { defaultSyncPolicy } from "../../shared/contract/common.ts";
import { AppError } from "../../shared/contract/errors.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";
import { defaultProjectSettings } from "../../shared/contract/settings.ts";
import type { Tenant } from "../../shared/contract/tenant.ts";
import { tenantRefOf } from "../../shared/contract/tenant-ref.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { requestRoute } from "../../shared/serving/call.ts";
import { host } from "../../shared/serving/host.ts";
import { conflict, replayed } from "../../shared/serving/reply.ts";
import { serveRoute } from "../../shared/serving/serve.ts";
import { vouch } from "../../shared/serving/vouched.ts";
import { StoreUnavailableError } from "../../shared/store/port.ts";
import { nats } from "../helpers/infra.ts";

const log = createLogger({ test: "serving" });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as AppError,
  );

const entitlements = { paymentRequired: false, monthlyRequests: null, perMinute: null };
const tenant = {
  workspaceId: "wsp_t",
  projectId: "prj_t",
  environment: "stage",
  envId: "prj_t:stage",
  keyId: "key_t",
  plan: "free",
};
const good = {
  ...tenant,
  billingStatus: "active",
  entitlements,
  syncPolicy: defaultSyncPolicy,
  settings: defaultProjectSettings,
};
/** A getSlot message with tenant `t` in full. */
const message = (t: unknown, slotId: unknown) => ({
  tenant: t,
  session: { sessionId: "ses_t", accountId: "acc_t" },
  client: { ip: "10.0.0.1" },
  params: { accountId: "acc_t", slotId },
  query: {},
});

const adapters: [string, () => Promise<Bus>][] = [
  ["local", async () => createLocalBus(log)],
  ["nats", async () => createNatsBus({ url: (await nats()).url, name: "test", log })],
];

for (const [name, open] of adapters) {
  describe(`serving: ${name}`, () => {
    let bus: Bus;
    beforeAll(async () => {
      bus = await open();
    });
    afterAll(() => bus.close());

    test("a route's handler never sees a message its schemas refuse, in process as over NATS", async () => {
      const r = { ...contractRoutes.getSave, subject: `t.route.${crypto.randomUUID().slice(0, 8)}` };
      let ran = false;
      serveRoute(bus, "g", r, async () => {
        ran = true;
        return {};
      });
      await Bun.sleep(20);
      const err = await caught(
        bus.request(r.subject, { client: { ip: "10.0.0.1" }, params: { saveId: 7 }, query: {} }),
      );
      expect(err?.code).toBe("invalid_request");
      expect(ran).toBe(false);
    });

    test("a message vouched for in the sender's process is taken as it is there, and checked when it crossed NATS", async () => {
      const r = { ...contractRoutes.getSlot, subject: `t.vouched.${crypto.randomUUID().slice(0, 8)}` };
      const seen: unknown[] = [];
      serveRoute(bus, "g", r, async (msg) => {
        seen.push(msg.params.slotId);
        return {};
      });
      await Bun.sleep(20);
      // Refused by the schema (a slotId is a string): only the sender's own object in its process skips the check.
      const err = await caught(bus.request(r.subject, vouch(message(good, 7))));
      if (bus.inProcess) {
        expect(err).toBeUndefined();
        expect(seen).toEqual([7]);
      } else {
        expect(err?.code).toBe("invalid_request");
        expect(seen).toEqual([]);
      }
      // Not vouched for, the same message is refused in process too.
      expect((await caught(bus.request(r.subject, message(good, 8))))?.code).toBe("invalid_request");
      expect(seen).not.toContain(8);
    });

    test("a tenant sent in full is checked with the rest of every message, and another tenant on its own", async () => {
      const r = { ...contractRoutes.getSlot, subject: `t.tenant.${crypto.randomUUID().slice(0, 8)}` };
      const seen: unknown[] = [];
      serveRoute(bus, "g", r, async (msg) => {
        seen.push(msg.params.slotId);
        return {};
      });
      await Bun.sleep(20);
      await bus.request(r.subject, message(good, "a"));
      expect((await caught(bus.request(r.subject, message(good, 7))))?.code).toBe("invalid_request");
      expect((await caught(bus.request(r.subject, message({ ...good, plan: "gold" }, "b"))))?.code).toBe(
        "invalid_request",
      );
      await bus.request(r.subject, message(good, "c"));
      expect(seen).toEqual(["a", "c"]);
    });

    test("a tenant by a reference the service has not seen is tenant_unknown before the handler runs; sent once in full, the reference serves", async () => {
      const r = { ...contractRoutes.getSlot, subject: `t.ref.${crypto.randomUUID().slice(0, 8)}` };
      const seen: unknown[] = [];
      serveRoute(bus, "g", r, async (msg) => {
        seen.push([msg.params.slotId, msg.tenant.settings.sessionIdleDays]);
        return {};
      });
      await Bun.sleep(20);
      const settings = { ...defaultProjectSettings, sessionIdleDays: 33 };
      const keyId = `key_${crypto.randomUUID().slice(0, 8)}`;
      const tenant = {
        workspaceId: "wsp_r",
        projectId: "prj_r",
        environment: "stage",
        envId: "prj_r:stage",
        keyId,
        plan: "free",
      };
      const entitlements = { paymentRequired: false, monthlyRequests: null, perMinute: null };
      const good = { ...tenant, billingStatus: "active", entitlements, syncPolicy: defaultSyncPolicy, settings };
      const session = { sessionId: "ses_r", accountId: "acc_r" };
      const rest = (slotId: unknown) => ({
        session,
        client: { ip: "10.0.0.1" },
        params: { accountId: "acc_r", slotId },
        query: {},
      });
      const ref = tenantRefOf(good as Tenant);
      expect((await caught(bus.request(r.subject, { ...rest("a"), tenantRef: ref })))?.code).toBe("tenant_unknown");
      // A reference the sender made up never names what it sent: the service names the content itself.
      await bus.request(r.subject, { ...rest("b"), tenant: good, tenantRef: "key_r:made-up" });
      expect((await caught(bus.request(r.subject, { ...rest("c"), tenantRef: "key_r:made-up" })))?.code).toBe(
        "tenant_unknown",
      );
      await bus.request(r.subject, { ...rest("d"), tenantRef: ref });
      expect((await caught(bus.request(r.subject, { ...rest(7), tenantRef: ref })))?.code).toBe("invalid_request");
      expect((await caught(bus.request(r.subject, rest("e"))))?.code).toBe("invalid_request");
      expect(seen).toEqual([
        ["b", 33],
        ["d", 33],
      ]);
    });

    test("a verb's answer reaches the caller as one reply: accepted, replayed, conflict or error", async () => {
      const s = `t.reply.${crypto.randomUUID().slice(0, 8)}`;
      const answers: Record<string, () => unknown> = {
        acc_accepted: () => ({ status: "accepted", version: 2 }),
        acc_replayed: () => replayed({ status: "accepted", version: 2 }),
        acc_conflict: () => conflict({ status: "conflict", version: 3 }),
        acc_error: () => {
          throw new AppError("slot_archived", "archived", { slotId: "x" });
        },
      };
      const r = { ...adminRoutes.getAccount, subject: s };
      serveRoute(bus, "g", r, async (msg) => answers[msg.params.accountId]!());
      await Bun.sleep(20);
      const ask = (outcome: string) =>
        requestRoute(bus, s, { client: { ip: "10.0.0.1" }, params: { accountId: `acc_${outcome}` }, query: {} });
      expect(await ask("accepted")).toEqual({ kind: "accepted", value: { status: "accepted", version: 2 } });
      expect(await ask("replayed")).toEqual({ kind: "replayed", value: { status: "accepted", version: 2 } });
      expect(await ask("conflict")).toEqual({ kind: "conflict", value: { status: "conflict", version: 3 } });
      const failed = await ask("error");
      expect(failed.kind).toBe("error");
      if (failed.kind === "error")
        expect([failed.error.code, failed.error.details]).toEqual(["slot_archived", { slotId: "x" }]);
    });

    test("a store outage is service_unavailable to the caller, whichever adapter carries it", async () => {
      const s = `t.store.${crypto.randomUUID().slice(0, 8)}`;
      host(bus, "g", s, async () => {
        throw new StoreUnavailableError(new Error("secret database detail"));
      });
      await Bun.sleep(20);
      const err = await caught(bus.request(s, {}));
      expect(err?.code).toBe("service_unavailable");
      expect(JSON.stringify(err!.toJSON())).not.toContain("secret database detail");
    });
  });
}
