import { expect, test } from "bun:test";
import { newAccount } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const nested = (depth: number): unknown =>
  depth === 0 ? { leaf: "🍄" } : { [`level${depth}`]: nested(depth - 1), list: [[depth]] };

/** Payloads that break naive BSON storage: dotted and `$` keys, nested arrays, unicode, depth, empties. */
const awkward = {
  "a.b.c": 1,
  $set: { $inc: "not an operator" },
  "": "empty key",
  nested: [[1, [2, [3]]], [], [{}]],
  unicode: "Grüße — 日本語 — emoji 🎮 — \u0000 nul",
  deep: nested(40),
  empty: {},
  numbers: [0, -1.5, 1e21, 9007199254740991],
  flags: [true, false, null],
};

forEachDeployment("payload round trip", { tenant: true }, ({ d, tenant }) => {
  test("accountData, slotInfo and data come back exactly as sent", async () => {
    const acc = await newAccount(d, tenant.key, {
      accountData: awkward,
      slot: { slotId: "p", slotInfo: awkward, data: awkward },
    });
    expect(acc.created.body.account.accountData).toEqual(awkward);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.accountData).toEqual(awkward);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/p")).body).toMatchObject({
      slotInfo: awkward,
      data: awkward,
    });
    const synced = { ...awkward, round: 2 };
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/p/sync", { body: { baseVersion: 1, data: synced } });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/p")).body.data).toEqual(synced);
    await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountDataPatch: { "x.y": { $z: [[]] } } },
    });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body.accountData).toEqual({
      ...awkward,
      "x.y": { $z: [[]] },
    });
  });

  test("empty objects round trip", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: {}, slot: { slotId: "e", slotInfo: {}, data: {} } });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/e")).body).toMatchObject({ slotInfo: {}, data: {} });
  });
});
