import { expect, test } from "bun:test";
import { createNatsBus } from "../../shared/bus/nats.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readinessSubject } from "../../shared/process/readiness.ts";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { type BusTap, tapLocalBus, tapNats } from "../helpers/bus-tap.ts";
import {
  type Deployment,
  type DistributedDeployment,
  startDistributed,
  startEmbedded,
} from "../helpers/deployments.ts";
import { type DeploymentName, forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * README, How it is built (the tenant travels by reference): the gateway names the tenant by a
 * reference to its content; a service that does not know it yet asks for it once, and the client never
 * sees that exchange.
 */

const subjects = ["accounts.slot.get", "accounts.slot.sync", "transfer.code.create"] as const;
type Setup = { d: Deployment; other: Deployment; tap: BusTap; dist?: DistributedDeployment };
const setups: Record<DeploymentName, () => Promise<Setup & { stop(): Promise<void> }>> = {
  embedded: async () => {
    const d = await startEmbedded();
    const tap = tapLocalBus(d.bus);
    return { d, other: d, tap, stop: () => tap.stop().then(() => d.stop()) };
  },
  distributed: async () => {
    const d = await startDistributed({ copies: { accounts: 1 } });
    const tap = await tapNats(d.natsUrl, subjects);
    return { d, other: d, tap, dist: d, stop: () => tap.stop().then(() => d.stop()) };
  },
};

const last = (tap: BusTap, subject: string) => tap.on(subject).at(-1)!;

forEachDeployment(
  "the tenant by reference",
  { start: setups, tenant: true, timeoutMs: 60_000 },
  ({ name, setup: s, tenant }) => {
    test("a sync and a GET carry a reference to the tenant, not its settings", async () => {
      const acc = await newAccount(s.d, tenant.key, { slot: { slotId: "s", data: { level: 3, coins: 120 } } });
      expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).status).toBe(200);
      expect(
        (
          await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
            body: { baseVersion: 1, data: { level: 4, coins: 95 } },
          })
        ).status,
      ).toBe(200);
      await Bun.sleep(20);
      const get = last(s.tap, "accounts.slot.get");
      const sync = last(s.tap, "accounts.slot.sync");
      console.log(`${name}: envelope bytes: GET ${get.bytes}, sync ${sync.bytes}`);
      for (const m of [get, sync]) {
        expect(m.data.tenant).toBeUndefined();
        expect(m.data.tenantRef).toEqual(expect.stringMatching(new RegExp(`^${tenant.keyId}:`)));
        expect(JSON.stringify(m.data)).not.toContain("settings");
      }
      expect(get.data.tenantRef).toBe(sync.data.tenantRef);
    });

    test("a project's settings changed by an operator apply to the next request, under a new reference", async () => {
      const acc = await newAccount(s.d, tenant.key);
      const codeTtl = async (seconds: number) => {
        expect(
          (
            await admin(s.d, "PUT", `/admin/v1/projects/${tenant.projectId}/settings`, {
              transferCodeTtlSeconds: seconds,
            })
          ).status,
        ).toBe(200);
        const before = s.tap.on("transfer.code.create").length;
        const code = await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { ttlSeconds: 1800 } });
        expect(code.status).toBe(201);
        await Bun.sleep(20);
        // The first send names the tenant; a service copy meeting the new reference gets it in full next.
        return { expires: code.body.expiresInSeconds, ref: s.tap.on("transfer.code.create")[before]!.data.tenantRef };
      };
      const first = await codeTtl(120);
      const second = await codeTtl(300);
      expect([first.expires, second.expires]).toEqual([120, 300]);
      expect(second.ref).toEqual(expect.stringMatching(new RegExp(`^${tenant.keyId}:`)));
      expect(second.ref).not.toBe(first.ref);
    });

    if (name === "distributed") {
      test("an accounts copy started after warm-up, its cache empty, serves the next write once, and the client never sees the exchange", async () => {
        const d = s.dist!;
        const t = await newTenant(d);
        const acc = await newAccount(d, t.key, { slot: { slotId: "s", data: { v: 1 } } });
        expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).status).toBe(200);
        for (const p of d.byName.accounts) p.kill();
        await Promise.all(d.byName.accounts.map((p) => p.exited));
        d.spawn("accounts");
        const probe = await createNatsBus({ url: d.natsUrl, name: "test-probe", log: createLogger({ test: "probe" }) });
        try {
          for (let i = 0; i < 200; i++) {
            const up = await probe.request(readinessSubject("accounts"), {}, { timeoutMs: 2_000 }).then(
              () => true,
              () => false,
            );
            if (up) break;
            await Bun.sleep(50);
          }
        } finally {
          await probe.close();
        }
        const before = s.tap.on("accounts.slot.sync").length;
        const body = { baseVersion: 1, data: { v: 2 } };
        const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
          body,
          headers: { "idempotency-key": "k-after-restart-0001" },
        });
        expect(sync.status).toBe(200);
        expect(sync.body.version).toBe(2);
        await Bun.sleep(50);
        const sent = s.tap.on("accounts.slot.sync").slice(before);
        expect(
          sent.map((m) => [typeof m.data.tenantRef, m.data.tenant === undefined ? "by reference" : "in full"]),
        ).toEqual([
          ["string", "by reference"],
          ["undefined", "in full"],
        ]);
        expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
          version: 2,
          data: { v: 2 },
        });
      });
    }
  },
);
