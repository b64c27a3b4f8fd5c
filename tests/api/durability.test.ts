import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../shared/crypto.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, deployment, deploymentNames, startEmbedded } from "../helpers/deployments.ts";

async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await Bun.sleep(50);
    value = await read();
  }
  return value;
}

for (const name of deploymentNames) {
  describe(`deletion cleanup and history (${name})`, () => {
    test("after an account is deleted, the worker erases its slots and revokes its sessions", async () => {
      const d: Deployment = await deployment(name);
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "a", data: { x: 1 } } });
      await acc.call("DELETE", "/api/v1/accounts/{acc}");
      const view = await eventually(
        () => admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`),
        (v) => v.body.slots.length === 0 && v.body.sessions.every((s: { revokedAt?: string }) => s.revokedAt),
      );
      expect(view.body.account).toMatchObject({ status: "deleted", accountData: {} });
      expect(view.body.slots).toEqual([]);
      expect(view.body.sessions[0].revokedAt).toEqual(expect.any(String));
      // The revoked session of a deleted account still says why.
      expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(410);
    });

    test("on the free plan a sync inside the snapshot interval is not kept as history", async () => {
      const d: Deployment = await deployment(name);
      const { key } = await newTenant(d, "free");
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
      const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { n: 1 } } });
      expect(sync.body).toMatchObject({ status: "accepted", historyRetained: false });
    });
  });
}

describe("embedded durability", () => {
  test("an accepted write survives a restart of the process", async () => {
    const first = await startEmbedded();
    const { key } = await newTenant(first);
    const acc = await newAccount(first, key, { slot: { slotId: "s", data: { v: 1 } } });
    expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } })).status).toBe(200);
    await first.stop();

    const second = await startEmbedded({ SAVEPOINT_DATA_DIR: first.dataDir });
    try {
      const again = await newAccount(second, key);
      expect(again.accountId).not.toBe(acc.accountId);
      const read = await second.request(`/api/v1/accounts/${acc.accountId}/slots/s`, { headers: { authorization: `Bearer ${key}`, "x-service-account-session": acc.session } });
      expect(await read.json()).toMatchObject({ version: 2, data: { v: 2 } });
    } finally {
      await second.stop();
    }
  });

  test("cleanup left pending by a crash is finished after the restart", async () => {
    const first = await startEmbedded();
    const { key } = await newTenant(first);
    const acc = await newAccount(first, key, { slot: { slotId: "s", data: { v: 1 } } });
    await first.stop();
    // The state a crash between the tombstone write and the queued job leaves behind.
    const store = createSqliteStore(join(first.dataDir, "accounts.sqlite"));
    const accounts = await store.collection<{ _id: string; status: string; cleanupPending?: boolean }>("accounts");
    await accounts.update({ _id: acc.accountId }, { status: "deleted", cleanupPending: true });
    await store.close();

    const second = await startEmbedded({ SAVEPOINT_DATA_DIR: first.dataDir });
    try {
      const view = await eventually(() => admin(second, "GET", `/admin/v1/accounts/${acc.accountId}`), (v) => v.body.slots.length === 0);
      expect(view.body.slots).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  test("runtime keys and session tokens are stored only as hashes", async () => {
    const d = await startEmbedded();
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key);
      await d.stop();
      const bytes = readdirSync(d.dataDir).map((f) => readFileSync(join(d.dataDir, f)).toString("latin1")).join("\n");
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(acc.session);
      expect(bytes).toContain(sha256Hex(key));
      expect(bytes).toContain(sha256Hex(acc.session));
    } finally {
      await d.stop().catch(() => {});
    }
  });
});
