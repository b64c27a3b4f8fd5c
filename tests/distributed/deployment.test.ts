import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { deployment, startDistributed } from "../helpers/deployments.ts";
import { sized } from "../helpers/payloads.ts";

describe("distributed deployment", () => {
  test("the largest valid requests and replies pass over NATS at its default max_payload", async () => {
    const d = await deployment("distributed");
    const { key } = await newTenant(d);
    const body = { playerRef: "p".repeat(256), externalAccountRef: { provider: "p".repeat(64), subject: "s".repeat(256) }, accountData: sized(262144), slot: { slotId: "s".repeat(64), slotInfo: sized(16384), data: sized(262144) } };
    const acc = await newAccount(d, key, body);
    expect(acc.created.body.slot.data).toEqual(body.slot.data);
    const slotPath = `/api/v1/accounts/{acc}/slots/${body.slot.slotId}`;
    // A conflict reply carries the slot three times over: server state, serverSlot and clientSlot.
    const conflict = await acc.call("POST", `${slotPath}/sync`, { body: { baseVersion: 9, slotInfo: sized(16384), data: sized(262144) } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.clientSlot.data).toEqual(sized(262144));
    const accountConflict = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 9, accountData: sized(262144) } });
    expect(accountConflict.status).toBe(409);
    expect((await acc.call("POST", `${slotPath}/sync`, { body: { baseVersion: 1, slotInfo: sized(16384), data: sized(262144) } })).status).toBe(200);
    expect((await acc.call("GET", slotPath)).body.data).toEqual(sized(262144));
  });

  test("two accounts copies share one queue group, and data outlives a restart of every copy", async () => {
    const d = await startDistributed({ accountsCopies: 2 });
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: { v: 1 } } });
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } })).status).toBe(200);
      const accounts = d.procs.filter((_, i) => i === 1 || i === 2);
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
      d = await startDistributed({ accountsCopies: 1, env: { SAVEPOINT_BUS_TIMEOUT_MS: "500" } });
    });
    afterAll(() => d.stop());

    test("answers 504 service_timeout when the service does not reply in time", async () => {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key);
      const accounts = d.procs[1]!;
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
