import { expect, test } from "bun:test";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

forEachDeployment("accounts over HTTP", { tenant: true }, ({ d, tenant }) => {
  test("create returns the envelope with a session, the first slot and the sync policy", async () => {
    const body = {
      playerRef: "p-1",
      externalAccountRef: { provider: "steam", subject: "765" },
      accountData: { coins: 5 },
      slot: { slotId: "main", slotInfo: { level: 1 }, data: { hp: 10 } },
    };
    const { created, accountId, session } = await newAccount(d, tenant.key, body);
    expect(created.status).toBe(201);
    expect(accountId).toMatch(/^acc_[A-Za-z0-9]+$/);
    expect(session).toMatch(/^sps_[A-Za-z0-9]{43}$/);
    expect(created.body.account).toEqual({
      accountId,
      accountData: { coins: 5 },
      version: 1,
      slots: [
        {
          slotId: "main",
          slotInfo: { level: 1 },
          version: 1,
          status: "active",
          updatedAt: created.body.slot.updatedAt,
        },
      ],
    });
    expect(created.body.slot).toMatchObject({ slotId: "main", data: { hp: 10 }, version: 1, status: "active" });
    expect(created.body.syncPolicy).toEqual({
      minRemoteSyncIntervalSeconds: 60,
      forceSyncCooldownSeconds: 10,
      syncOnAppBackground: true,
      syncOnAppForeground: true,
      syncOnReconnect: true,
      maxQueuedLocalSnapshots: 25,
    });
    expect(created.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("an empty body creates an empty account; each account gets its own session", async () => {
    const a = await newAccount(d, tenant.key);
    const b = await newAccount(d, tenant.key);
    expect(a.created.body.account).toEqual({ accountId: a.accountId, accountData: {}, slots: [], version: 1 });
    expect(a.created.body.slot).toBeUndefined();
    expect(a.session).not.toBe(b.session);
    const noBody = await call(d, "POST", "/api/v1/accounts", { key: tenant.key });
    expect(noBody.status).toBe(201);
  });

  test("read returns accountData and active slot summaries without data", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { a: 1 }, slot: { slotId: "s1", data: { big: "x" } } });
    const read = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(read.status).toBe(200);
    expect(read.body.accountData).toEqual({ a: 1 });
    expect(read.body.slots).toHaveLength(1);
    expect(read.body.slots[0].data).toBeUndefined();
  });

  test("full replace at the current version is accepted and bumps the version by one", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { a: 1, b: 2 } });
    const sync = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountData: { c: 3 } },
    });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: "accepted", version: 2, historyRetained: true });
    expect(Date.parse(sync.body.updatedAt)).not.toBeNaN();
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({ accountData: { c: 3 }, version: 2 });
  });

  test("a patch merges top-level keys and a null removes one", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { keep: 1, drop: 2, change: { deep: 1 } } });
    const sync = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountDataPatch: { drop: null, change: { other: 2 }, added: [1] } },
    });
    expect(sync.status).toBe(200);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.accountData).toEqual({
      keep: 1,
      change: { other: 2 },
      added: [1],
    });
  });

  test("a stale replace is 409 with the server state and the client's data, and changes nothing", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { v: "one" } });
    await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1, accountData: { v: "two" } } });
    const stale = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountData: { v: "stale" } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      status: "conflict",
      version: 2,
      account: { accountId: acc.accountId, accountData: { v: "two" }, version: 2 },
      details: { reason: "base_version_mismatch", serverAccountData: { v: "two" }, clientAccountData: { v: "stale" } },
    });
    expect(stale.body.details.clientAccountDataPatch).toBeUndefined();
    const stalePatch = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 5, accountDataPatch: { x: 1 } },
    });
    expect(stalePatch.status).toBe(409);
    expect(stalePatch.body.details).toEqual({
      reason: "base_version_mismatch",
      serverAccountData: { v: "two" },
      clientAccountDataPatch: { x: 1 },
    });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({
      accountData: { v: "two" },
      version: 2,
    });
  });

  test("a second sync inside the policy interval is accepted with a warning", async () => {
    const acc = await newAccount(d, tenant.key);
    const first = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountData: { n: 1 } },
    });
    expect(first.body.warnings).toBeUndefined();
    const second = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 2, accountData: { n: 2 } },
    });
    expect(second.status).toBe(200);
    expect(second.body.warnings).toEqual(["sync_interval_below_policy"]);
  });

  test("a patch whose merged result exceeds the limit is 413 and changes nothing", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { a: "x".repeat(200_000) } });
    const patch = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountDataPatch: { b: "y".repeat(100_000) } },
    });
    expect(patch.status).toBe(413);
    expect(patch.body.error).toMatchObject({
      code: "payload_too_large",
      details: { field: "accountData", limitBytes: 262144 },
    });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.version).toBe(1);
  });

  test("delete makes the account gone at once: its session answers 410 and it reports the slots", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "a", data: {} } });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "b", data: {} } });
    const del = await acc.call("DELETE", "/api/v1/accounts/{acc}");
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({
      accountId: acc.accountId,
      deletedSlotCount: 2,
      alreadyDeleted: false,
      cleanupQueued: true,
    });
    for (const [method, path] of [
      ["GET", "/api/v1/accounts/{acc}"],
      ["GET", "/api/v1/accounts/{acc}/slots"],
      ["DELETE", "/api/v1/accounts/{acc}"],
    ]) {
      const after = await acc.call(method!, path!);
      expect(after.status).toBe(410);
      expect(after.body.error.code).toBe("account_deleted");
    }
  });

  test("40 concurrent creations from one client (a NAT of players), limit 30: exactly 30 are admitted", async () => {
    const t = await newTenant(d);
    const client = { "x-forwarded-for": `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}` };
    await awayFromWindowEnd(60, 30);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => call(d, "POST", "/api/v1/accounts", { key: t.key, headers: client, body: {} })),
    );
    expect(answers.filter((x) => x.status === 201)).toHaveLength(30);
    const refused = answers.filter((x) => x.status === 429);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.body.error).toMatchObject({
      code: "rate_limited",
      details: {
        limit: 30,
        windowSeconds: 60,
        scope: "client_ip",
        setting: "project setting rateLimits.accountCreationsPerIpPerMinute",
      },
    });
  });
});
