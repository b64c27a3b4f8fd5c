import { expect, test } from "bun:test";
import { call, newAccount, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { sized } from "../helpers/payloads.ts";

forEachDeployment("bad input changes nothing", { tenant: true }, ({ d, tenant }) => {
  const expectInvalid = (a: { status: number; body: any }, path?: string) => {
    expect(a.status).toBe(400);
    expect(a.body.error.code).toBe("invalid_request");
    expect(Array.isArray(a.body.error.details.issues)).toBe(true);
    if (path) expect(a.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  };

  test("fields exactly at their byte limit are accepted; one byte over is 413 naming the field", async () => {
    expect(JSON.stringify(sized(100)).length).toBe(100);
    const atLimit = await call(d, "POST", "/api/v1/accounts", {
      key: tenant.key,
      body: { accountData: sized(262144), slot: { slotId: "s", slotInfo: sized(16384), data: sized(262144) } },
    });
    expect(atLimit.status).toBe(201);

    const cases: [string, unknown, string, number][] = [
      ["accountData", { accountData: sized(262145) }, "accountData", 262144],
      ["slot.slotInfo", { slot: { slotId: "s", slotInfo: sized(16385), data: {} } }, "slot.slotInfo", 16384],
      ["slot.data", { slot: { slotId: "s", data: sized(262145) } }, "slot.data", 262144],
    ];
    for (const [, body, field, limit] of cases) {
      const over = await call(d, "POST", "/api/v1/accounts", { key: tenant.key, body });
      expect(over.status).toBe(413);
      expect(over.body.error).toEqual({
        code: "payload_too_large",
        message: expect.any(String),
        details: { field, limitBytes: limit, actualBytes: limit + 1 },
      });
    }
  });

  test("slot create and sync enforce data and slotInfo limits and keep the old state", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { v: 1 } } });
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "t", data: sized(262145) } })).status,
    ).toBe(413);
    expect(
      (
        await acc.call("POST", "/api/v1/accounts/{acc}/slots", {
          body: { slotId: "t", data: {}, slotInfo: sized(16385) },
        })
      ).status,
    ).toBe(413);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: sized(262145) } }))
        .status,
    ).toBe(413);
    expect(
      (
        await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
          body: { baseVersion: 1, data: {}, slotInfo: sized(16385) },
        })
      ).status,
    ).toBe(413);
    expect(
      (
        await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
          body: { baseVersion: 1, accountData: sized(262145) },
        })
      ).status,
    ).toBe(413);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: sized(262144) } }))
        .status,
    ).toBe(200);
    const read = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(read.body.slots.map((s: { slotId: string }) => s.slotId)).toEqual(["s"]);
    expect(read.body.version).toBe(1);
  });

  test("a body over 1 MiB is 413 before it is parsed", async () => {
    const big = await call(d, "POST", "/api/v1/accounts", {
      key: tenant.key,
      raw: `{"accountData":{"s":"${"x".repeat(1_048_600)}"}}`,
    });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({
      code: "payload_too_large",
      details: { field: "body", limitBytes: 1048576 },
    });
  });

  test("wrong types, unknown keys, both or neither of accountData and patch are 400 with issues", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { keep: 1 }, slot: { slotId: "s", data: { keep: 1 } } });
    expectInvalid(
      await call(d, "POST", "/api/v1/accounts", { key: tenant.key, body: { accountData: [1, 2] } }),
      "accountData",
    );
    expectInvalid(await call(d, "POST", "/api/v1/accounts", { key: tenant.key, body: { surprise: true } }));
    expectInvalid(
      await call(d, "POST", "/api/v1/accounts", { key: tenant.key, body: { slot: { slotId: "bad id!", data: {} } } }),
      "slot.slotId",
    );
    expectInvalid(
      await call(d, "POST", "/api/v1/accounts", {
        key: tenant.key,
        body: { slot: { slotId: "x".repeat(65), data: {} } },
      }),
      "slot.slotId",
    );
    expectInvalid(await call(d, "POST", "/api/v1/accounts", { key: tenant.key, body: [] }));
    expectInvalid(await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1 } }));
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
        body: { baseVersion: 1, accountData: {}, accountDataPatch: {} },
      }),
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: "1", accountData: {} } }),
      "baseVersion",
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 0, accountData: {} } }),
      "baseVersion",
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1.5, data: {} } }),
      "baseVersion",
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: "text" } }),
      "data",
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: {}, extra: 1 } }),
    );
    expectInvalid(await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {}));
    expectInvalid(await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "t" } }), "data");
    const read = await acc.call("GET", "/api/v1/accounts/{acc}");
    expect(read.body).toMatchObject({ accountData: { keep: 1 }, version: 1 });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      data: { keep: 1 },
      version: 1,
    });
  });

  test("malformed JSON and a non-JSON content type are 400", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { keep: 1 } } });
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { raw: '{"baseVersion":1,"data":' }),
      "body",
    );
    expectInvalid(
      await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", {
        raw: "baseVersion=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      "body",
    );
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(1);
  });

  test("bad ids in the path are 400 naming the parameter", async () => {
    const acc = await newAccount(d, tenant.key);
    expectInvalid(
      await call(d, "GET", "/api/v1/accounts/not-an-account", { key: tenant.key, session: acc.session }),
      "path.accountId",
    );
    expectInvalid(await acc.call("GET", "/api/v1/accounts/{acc}/slots/bad%20id"), "path.slotId");
  });

  test("missing or wrong runtime key and session are 401; another account's session is 403", async () => {
    const mine = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { mine: true } } });
    const theirs = await newAccount(d, tenant.key);
    const unauthorized = async (o: { key?: string; session?: string }) => {
      const a = await call(d, "POST", `/api/v1/accounts/${mine.accountId}/slots/s/sync`, {
        ...o,
        body: { baseVersion: 1, data: { hijack: true } },
      });
      expect(a.status).toBe(401);
      expect(a.body.error.code).toBe("unauthorized");
    };
    await unauthorized({ session: mine.session });
    await unauthorized({ key: "spk_stage_wrong", session: mine.session });
    await unauthorized({ key: "not-a-key", session: mine.session });
    await unauthorized({ key: tenant.key });
    await unauthorized({ key: tenant.key, session: "sps_wrong" });
    const foreign = await call(d, "POST", `/api/v1/accounts/${mine.accountId}/slots/s/sync`, {
      key: tenant.key,
      session: theirs.session,
      body: { baseVersion: 1, data: { hijack: true } },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("forbidden");
    expect(
      (await call(d, "GET", `/api/v1/accounts/${mine.accountId}`, { key: tenant.key, session: theirs.session })).status,
    ).toBe(403);
    expect((await mine.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      data: { mine: true },
      version: 1,
    });
  });

  test("a session of another environment is 401 there, as if it did not exist", async () => {
    const acc = await newAccount(d, tenant.key);
    const other = await newTenant(d);
    const a = await call(d, "GET", `/api/v1/accounts/${acc.accountId}`, { key: other.key, session: acc.session });
    expect(a.status).toBe(401);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
  });
});
