import { expect, test } from "bun:test";
import { startAllInOne } from "../../services/all-in-one.ts";
import { readEnv } from "../../shared/process/env.ts";
import { call, newAccount } from "../helpers/api.ts";
import { adminToken } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";
import { capturingLogger } from "../helpers/kept.ts";

forEachDeployment("compatibility and lenient reading", { tenant: true }, ({ d, tenant }) => {
  test("X-Persistly-Account-Session works as the session header", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { v: 1 } } });
    const headers = { "x-persistly-account-session": acc.session };
    const read = await call(d, "GET", `/api/v1/accounts/${acc.accountId}/slots/s`, { key: tenant.key, headers });
    expect([read.status, read.body.data]).toEqual([200, { v: 1 }]);
    const synced = await call(d, "POST", `/api/v1/accounts/${acc.accountId}/slots/s/sync`, {
      key: tenant.key,
      headers: { "X-Persistly-Account-Session": acc.session },
      body: { baseVersion: 1, data: { v: 2 } },
    });
    expect(synced.status).toBe(200);
    const wrong = await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, {
      key: tenant.key,
      headers: { "x-persistly-account-session": "sps_wrong" },
    });
    expect(wrong.status).toBe(401);
  });

  test("contract and alias headers that differ are 400 naming the contract's header; equal ones are fine", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { v: 1 } } });
    const other = await newAccount(d, tenant.key);
    const path = `/api/v1/accounts/${acc.accountId}/slots/s/sync`;
    const both = await call(d, "POST", path, {
      key: tenant.key,
      session: acc.session,
      headers: { "x-persistly-account-session": other.session },
      body: { baseVersion: 1, data: { v: 9 } },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({
      code: "invalid_request",
      details: { issues: [{ path: "header.X-Service-Account-Session" }] },
    });
    const ids = await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, {
      key: tenant.key,
      session: acc.session,
      headers: { "x-service-account-id": acc.accountId, "x-persistly-account-id": other.accountId },
    });
    expect(ids.status).toBe(400);
    expect(ids.body.error.details.issues[0].path).toBe("header.X-Service-Account-ID");
    const same = await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, {
      key: tenant.key,
      session: acc.session,
      headers: {
        "x-persistly-account-session": acc.session,
        "x-persistly-sdk": "unity",
        "x-persistly-sdk-version": "2.1.0",
      },
    });
    expect(same.status).toBe(200);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(1);
  });

  test("route 12 answers the contract's SlotResponse and the Persistly SDK's account envelope at once", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "first", slotInfo: { n: 1 }, data: { v: 1 } } });
    const created = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
      body: { slotId: "second", slotInfo: { lvl: 2 }, data: { inv: [1, 2] } },
    });
    expect(created.status).toBe(201);
    const slot = {
      slotId: "second",
      slotInfo: { lvl: 2 },
      data: { inv: [1, 2] },
      version: 1,
      status: "active",
      updatedAt: created.body.updatedAt,
    };
    const policy = acc.created.body.syncPolicy;
    const account = (await acc.call("GET", "/api/v1/accounts/{acc}")).body;
    expect(created.body).toEqual({ ...slot, accountId: acc.accountId, account, slot, syncPolicy: policy });
    // Read the way that SDK's createAccountSlot reads it: the account view lists the new slot.
    const { accountId, account: view, slot: made, syncPolicy } = created.body;
    expect([accountId, view.slots.map((s: { slotId: string }) => s.slotId), made.data, syncPolicy]).toEqual([
      acc.accountId,
      ["first", "second"],
      { inv: [1, 2] },
      policy,
    ]);
    // A retry with the same Idempotency-Key gets the same answer.
    const idem = { "idempotency-key": `k-${crypto.randomUUID()}` };
    const first = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
      body: { slotId: "third", data: { t: 3 } },
      headers: idem,
    });
    const again = await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
      body: { slotId: "third", data: { t: 3 } },
      headers: idem,
    });
    expect([first.status, again.status, again.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"]);
    expect(again.body).toEqual(first.body);
    expect(first.body).toMatchObject({
      slotId: "third",
      data: { t: 3 },
      slot: { slotId: "third", data: { t: 3 } },
      account: { slots: [{}, {}, { slotId: "third" }] },
    });
  });

  test("unknown query keys such as a cache-buster are ignored", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { v: 1 } } });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}?_=123")).status).toBe(200);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s?_=1&nocache=true")).body.data).toEqual({ v: 1 });
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync?_=9", { body: { baseVersion: 1, data: { v: 2 } } }))
        .status,
    ).toBe(200);
  });
});

test("a client that hangs up mid-body is logged at debug, not error", async () => {
  const kept: string[] = [];
  const log = capturingLogger(kept);
  const env = readEnv({ SAVEPOINT_DATA_DIR: tempDir("hangup"), SAVEPOINT_ADMIN_TOKEN: adminToken });
  const { gateway, bootstrap, stops } = await startAllInOne(env, log);
  try {
    const hangUp = new AbortController();
    // The body stream fails the way a closed socket does, after the client aborted.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('{"accountData":'));
        hangUp.abort();
        controller.error(new Error("socket closed"));
      },
    });
    const request = new Request("http://savepoint.test/api/v1/accounts", {
      method: "POST",
      headers: { authorization: `Bearer ${bootstrap!.runtimeKey}`, "content-type": "application/json" },
      body,
      signal: hangUp.signal,
      duplex: "half",
    } as RequestInit);
    const answer = await gateway.handle(request);
    expect(answer.status).toBeLessThan(500);
    const lines = kept.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: "debug", msg: "client disconnected" }));
  } finally {
    for (const stop of [...stops].reverse()) await stop();
  }
});
