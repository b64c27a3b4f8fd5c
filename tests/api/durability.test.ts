import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, type Deployment, deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";

async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await Bun.sleep(50);
    value = await read();
  }
  return value;
}

forEachDeployment("deletion cleanup and history", ({ name }) => {
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
    const sync = await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
      body: { baseVersion: 1, data: { n: 1 } },
    });
    expect(sync.body).toMatchObject({ status: "accepted", historyRetained: false });
  });
});

describe("embedded durability", () => {
  test("an accepted write survives a restart of the process", async () => {
    const first = await startEmbedded();
    const { key } = await newTenant(first);
    const acc = await newAccount(first, key, { slot: { slotId: "s", data: { v: 1 } } });
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { v: 2 } } }))
        .status,
    ).toBe(200);
    await first.stop();

    const second = await startEmbedded({ SAVEPOINT_DATA_DIR: first.dataDir });
    try {
      const again = await newAccount(second, key);
      expect(again.accountId).not.toBe(acc.accountId);
      const read = await second.request(`/api/v1/accounts/${acc.accountId}/slots/s`, {
        headers: { authorization: `Bearer ${key}`, "x-service-account-session": acc.session },
      });
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
      const view = await eventually(
        () => admin(second, "GET", `/admin/v1/accounts/${acc.accountId}`),
        (v) => v.body.slots.length === 0,
      );
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
      const bytes = readdirSync(d.dataDir)
        .map((f) => readFileSync(join(d.dataDir, f)).toString("latin1"))
        .join("\n");
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(acc.session);
      expect(bytes).toContain(sha256Hex(key));
      expect(bytes).toContain(sha256Hex(acc.session));
    } finally {
      await d.stop().catch(() => {});
    }
  });
});

/**
 * Group commit answers a write only after the commit that holds it is on disk. So however the process
 * dies, every write a client saw accepted is there after a restart, at that version or a later one.
 */
test("embedded: kill -9 under load from 16 clients loses no acknowledged write", async () => {
  const dataDir = tempDir("kill9");
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const start = async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "services", "main.ts")], {
      env: {
        ...process.env,
        SAVEPOINT_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        SAVEPOINT_ADMIN_TOKEN: adminToken,
        LOG_LEVEL: "error",
      },
      stdout: "ignore",
      stderr: "ignore",
    });
    trackChild(proc);
    await waitForPort(port, 30_000, "savepoint");
    return proc;
  };
  const d: Deployment = {
    name: "embedded",
    request: (path, init) => fetch(`${base}${path}`, init),
    stop: async () => {},
  };
  const server = await start();
  const { key, projectId } = await newTenant(d);
  // Each client syncs as fast as it can: far past a device's 120 requests a minute.
  await admin(d, "PUT", `/admin/v1/projects/${projectId}/settings`, {
    rateLimits: { sessionRequestsPerMinute: 1_000_000 },
  });
  const accounts = await Promise.all(
    Array.from({ length: 16 }, () => newAccount(d, key, { slot: { slotId: "s", data: { n: 0 } } })),
  );
  const unexpected: string[] = [];
  const acked = accounts.map(() => ({ version: 1, n: 0 }));
  let accepted = 0;
  const clients = accounts.map(async (acc, i) => {
    for (let n = 1; ; n++) {
      const res = await acc
        .call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: acked[i]!.version, data: { n } } })
        .catch(() => undefined);
      if (!res) return; // the server is gone: this write was never acknowledged
      if (res.status !== 200) return void unexpected.push(`${res.status}: ${JSON.stringify(res.body)}`);
      acked[i] = { version: res.body.version, n };
      accepted++;
    }
  });
  await Bun.sleep(1_500);
  server.kill("SIGKILL");
  await Promise.all(clients);
  expect(unexpected).toEqual([]);
  expect(accepted).toBeGreaterThan(100);

  const again = await start();
  try {
    for (const [i, acc] of accounts.entries()) {
      const slot = (await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body;
      // Later than acknowledged is a write whose answer the kill cut off; earlier would be a loss.
      expect(slot.version).toBeGreaterThanOrEqual(acked[i]!.version);
      if (slot.version === acked[i]!.version) expect(slot.data).toEqual({ n: acked[i]!.n });
    }
  } finally {
    again.kill();
    await again.exited;
  }
}, 90_000);
