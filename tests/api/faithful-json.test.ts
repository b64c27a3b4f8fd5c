import { expect, test } from "bun:test";
import { call, newAccount } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/** `{"a":{"a":...{}...}}`, `depth` objects deep (the outer one is level 1). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

// Raw JSON text: a JS object literal cannot even hold an own `__proto__` key.
const odd = '{"__proto__":{"polluted":true},"constructor":{"name":"x"},"z":1,"a":[1,{"__proto__":2}]}';

forEachDeployment("free-form JSON is stored faithfully or refused", { tenant: true }, ({ d, tenant }) => {
  /** The raw response text, so key order and `__proto__` keys are compared as sent. */
  const rawCall = async (acc: { session: string }, method: string, path: string, body?: string) => {
    const res = await d.request(path, {
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        "x-service-account-session": acc.session,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body,
    });
    return { status: res.status, text: await res.text() };
  };

  test("__proto__ and constructor keys round-trip in every free-form field, in the order sent", async () => {
    const created = await d.request("/api/v1/accounts", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: `{"accountData":${odd},"slot":{"slotId":"s","slotInfo":${odd},"data":${odd}}}`,
    });
    expect(created.status).toBe(201);
    const envelope = await created.text();
    const acc = {
      accountId: JSON.parse(envelope).accountId as string,
      session: JSON.parse(envelope).accountSessionToken as string,
    };
    const base = `/api/v1/accounts/${acc.accountId}`;
    expect((await rawCall(acc, "GET", base)).text).toContain(`"accountData":${odd}`);
    const slot = await rawCall(acc, "GET", `${base}/slots/s`);
    expect(slot.text).toContain(`"slotInfo":${odd}`);
    expect(slot.text).toContain(`"data":${odd}`);

    expect((await rawCall(acc, "POST", `${base}/slots/s/sync`, `{"baseVersion":1,"data":${odd}}`)).status).toBe(200);
    const synced = await rawCall(acc, "GET", `${base}/slots/s`);
    expect(synced.text).toContain(`"slotInfo":${odd}`);
    expect(synced.text).toContain(`"data":${odd}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("a patch can set and remove __proto__ and constructor like any key", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { keep: 1, constructor: "c" } });
    const base = `/api/v1/accounts/${acc.accountId}`;
    const set = await rawCall(
      acc,
      "POST",
      `${base}/data/sync`,
      '{"baseVersion":1,"accountDataPatch":{"__proto__":{"p":1},"constructor":null}}',
    );
    expect(set.status).toBe(200);
    expect((await rawCall(acc, "GET", base)).text).toContain('"accountData":{"keep":1,"__proto__":{"p":1}}');
    const removed = await rawCall(
      acc,
      "POST",
      `${base}/data/sync`,
      '{"baseVersion":2,"accountDataPatch":{"__proto__":null,"constructor":[1]}}',
    );
    expect(removed.status).toBe(200);
    expect((await rawCall(acc, "GET", base)).text).toContain('"accountData":{"keep":1,"constructor":[1]}');
  });

  test("slot ids . and .. are refused: a client would send them as relative paths", async () => {
    const acc = await newAccount(d, tenant.key);
    for (const slotId of [".", ".."]) {
      const refused = await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId, data: {} } });
      expect([slotId, refused.status, refused.body.error.code]).toEqual([slotId, 400, "invalid_request"]);
    }
    expect((await acc.call("POST", "/api/v1/accounts/{acc}/slots", { body: { slotId: "...", data: {} } })).status).toBe(
      201,
    );
  });

  test("nesting: 256 levels are stored, 257 are 400, and a body 40,000 levels deep is 400, all changing nothing", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "s", data: { v: 1 } } });
    const base = `/api/v1/accounts/${acc.accountId}/slots/s`;
    const deep = await rawCall(acc, "POST", `${base}/sync`, `{"baseVersion":1,"data":${nestedText(256)}}`);
    expect(deep.status).toBe(200);
    expect((await rawCall(acc, "GET", base)).text).toContain(`"data":${nestedText(256)}`);

    for (const body of [
      `{"baseVersion":2,"data":${nestedText(257)}}`,
      `{"baseVersion":2,"slotInfo":{},"data":{"x":${"[".repeat(40_000)}${"]".repeat(40_000)}}}`,
    ]) {
      const refused = await rawCall(acc, "POST", `${base}/sync`, body);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text).error.code).toBe("invalid_request");
    }
    const refusedCreate = await rawCall(acc, "POST", "/api/v1/accounts", `{"accountData":${nestedText(257)}}`);
    expect(refusedCreate.status).toBe(400);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.version).toBe(2);
  });

  test("a number that overflows (1e309), a lone surrogate and bytes that are not UTF-8 are 400, never silently changed", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { v: 1 }, slot: { slotId: "s", data: { v: 1 } } });
    const base = `/api/v1/accounts/${acc.accountId}`;
    for (const [path, body] of [
      [`${base}/slots/s/sync`, '{"baseVersion":1,"data":{"big":1e309}}'],
      [`${base}/slots/s/sync`, '{"baseVersion":1,"data":{"v":1},"slotInfo":{"n":[-1e400]}}'],
      [`${base}/data/sync`, '{"baseVersion":1,"accountDataPatch":{"big":1e309}}'],
      // Spelled every other way a literal can overflow: a capital E with a sign and leading zeros, 309 digits.
      [`${base}/slots/s/sync`, '{"baseVersion":1,"data":{"big":[1.5E+0309]}}'],
      [`${base}/slots/s/sync`, `{"baseVersion":1,"data":{"big":-2${"0".repeat(308)}.5}}`],
    ]) {
      const refused = await rawCall(acc, "POST", path!, body);
      expect([path, refused.status, JSON.parse(refused.text).error.code]).toEqual([path, 400, "invalid_request"]);
    }
    // A lone surrogate is valid JSON but not Unicode: UTF-8 storage would turn it into U+FFFD.
    for (const body of ['{"baseVersion":1,"data":{"s":"p\\ud800"}}', '{"baseVersion":1,"data":{"\\udc00":1}}']) {
      const refused = await rawCall(acc, "POST", `${base}/slots/s/sync`, body);
      expect([body, refused.status]).toEqual([body, 400]);
    }
    expect((await rawCall(acc, "POST", "/api/v1/accounts", '{"playerRef":"p\\ud800"}')).status).toBe(400);
    const paired = await rawCall(
      acc,
      "POST",
      `${base}/slots/s/sync`,
      '{"baseVersion":1,"data":{"s":"\\ud83c\\udfae"}}',
    );
    expect(paired.status).toBe(200);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body.data).toEqual({ s: "🎮" });
    // "é" as Latin-1 (0xE9) inside a JSON string: not UTF-8.
    const bytes = new Uint8Array([...Buffer.from('{"baseVersion":1,"data":{"name":"caf'), 0xe9, ...Buffer.from('"}}')]);
    const invalid = await call(d, "POST", `${base}/slots/s/sync`, {
      key: tenant.key,
      session: acc.session,
      raw: bytes as unknown as string,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_request");
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/s")).body).toMatchObject({
      version: 2,
      data: { s: "🎮" },
    });
    expect((await acc.call("GET", "/api/v1/accounts/{acc}")).body).toMatchObject({ version: 1, accountData: { v: 1 } });
  });
});
