import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defaultPlans } from "../../shared/contract/plans.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { deployment, startDistributed } from "../helpers/deployments.ts";
import { mongo, startNats, tempDir, trackChild, uniqueDb } from "../helpers/infra.ts";
import { sized } from "../helpers/payloads.ts";

describe("distributed deployment", () => {
  test("the largest valid requests and replies pass over NATS at its default max_payload", async () => {
    const d = await deployment("distributed");
    const { key } = await newTenant(d);
    const body = {
      playerRef: "p".repeat(256),
      externalAccountRef: { provider: "p".repeat(64), subject: "s".repeat(256) },
      accountData: sized(262144),
      slot: { slotId: "s".repeat(64), slotInfo: sized(16384), data: sized(262144) },
    };
    const acc = await newAccount(d, key, body);
    expect(acc.created.body.slot.data).toEqual(body.slot.data);
    const slotPath = `/api/v1/accounts/{acc}/slots/${body.slot.slotId}`;
    // A conflict reply carries the slot three times over: server state, serverSlot and clientSlot.
    const conflict = await acc.call("POST", `${slotPath}/sync`, {
      body: { baseVersion: 9, slotInfo: sized(16384), data: sized(262144) },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.clientSlot.data).toEqual(sized(262144));
    const accountConflict = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 9, accountData: sized(262144) },
    });
    expect(accountConflict.status).toBe(409);
    expect(
      (
        await acc.call("POST", `${slotPath}/sync`, {
          body: { baseVersion: 1, slotInfo: sized(16384), data: sized(262144) },
        })
      ).status,
    ).toBe(200);
    expect((await acc.call("GET", slotPath)).body.data).toEqual(sized(262144));
  });

  test("the largest account view (a full slot cap) and its 409 pass over NATS at its default max_payload", async () => {
    const d = await deployment("distributed");
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { accountData: sized(262144) });
    const cap = 32;
    for (let i = 0; i < cap; i++) {
      const slotId = String(i).padStart(64, "s");
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId, slotInfo: sized(16384), data: {} } }))
          .status,
      ).toBe(201);
    }
    const view = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(view.status).toBe(200);
    expect(view.body.slots).toHaveLength(cap);
    expect(view.body.slots[cap - 1].slotInfo).toEqual(sized(16384));
    // The service sends the view once; the gateway adds the server's and the client's copies.
    const conflict = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 9, accountData: { other: "x".repeat(262000) } },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.account.slots).toHaveLength(cap);
    expect(conflict.body.details.serverAccountData).toEqual(sized(262144));
    expect(conflict.body.details.clientAccountData).toEqual({ other: "x".repeat(262000) });
    expect(
      (await acc.call("POST", `/api/v1/accounts/{acc}/slots/${"0".padStart(64, "s")}/archive`)).body.slots,
    ).toHaveLength(cap - 1);
  });

  test("an accounts service whose plans allow a view larger than max_payload refuses to start, naming the setting", async () => {
    const plans = join(tempDir("plans"), "plans.json");
    await Bun.write(
      plans,
      JSON.stringify(
        Object.fromEntries(Object.entries(defaultPlans).map(([name, plan]) => [name, { ...plan, maxActiveSlots: 64 }])),
      ),
    );
    const natsServer = await startNats();
    try {
      const proc = Bun.spawn(
        [process.execPath, join(import.meta.dir, "..", "..", "services", "standalone.ts"), "accounts"],
        {
          env: {
            ...process.env,
            NATS_URL: natsServer.url,
            MONGODB_URL: (await mongo()).url,
            MONGODB_DB: uniqueDb("budget"),
            SAVEPOINT_PLANS: plans,
          },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      trackChild(proc);
      expect(await proc.exited).not.toBe(0);
      const stderr = await new Response(proc.stderr).text();
      expect(stderr).toContain("SAVEPOINT_PLANS");
      expect(stderr).toContain("max_payload of 1048576");
    } finally {
      natsServer.stop();
    }
  });

  test("two accounts copies share one queue group, and data outlives a restart of every copy", async () => {
    const d = await startDistributed();
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: { v: 1 } } });
      expect(
        (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } }))
          .status,
      ).toBe(200);
      const accounts = d.byName.accounts;
      for (const p of accounts) p.kill();
      await Promise.all(accounts.map((p) => p.exited));
      const down = await acc.call("GET", "/api/v1/accounts/{acc}/slots/s");
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe("service_unavailable");
      expect(down.headers.get("retry-after")).toBe("1");
      d.spawn("accounts");
      let back = down;
      for (let i = 0; i < 100 && back.status !== 200; i++) {
        await Bun.sleep(50);
        back = await acc.call("GET", "/api/v1/accounts/{acc}/slots/s");
      }
      expect(back.body).toMatchObject({ version: 2, data: { v: 2 } });
    } finally {
      await d.stop();
    }
  });

  describe("a hung service", () => {
    let d: Awaited<ReturnType<typeof startDistributed>>;
    beforeAll(async () => {
      d = await startDistributed({ copies: { accounts: 1 }, env: { SAVEPOINT_BUS_TIMEOUT_MS: "500" } });
    });
    afterAll(() => d.stop());

    test("answers 504 service_timeout when the service does not reply in time", async () => {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key);
      const accounts = d.byName.accounts[0]!;
      process.kill(accounts.pid, "SIGSTOP");
      try {
        const slow = await call(d, "POST", "/api/v1/accounts", { key });
        expect(slow.status).toBe(504);
        expect(slow.body.error.code).toBe("service_timeout");
      } finally {
        process.kill(accounts.pid, "SIGCONT");
      }
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
      expect((await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`)).status).toBe(200);
    });
  });
});
