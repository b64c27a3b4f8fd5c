import { beforeAll, expect, test } from "bun:test";
import { manualClock, memoryStorage, SavepointClient, SavepointError } from "../../sdk/src/index.ts";
import { call } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy } from "./helpers.ts";

// What JSON cannot carry exactly is refused before anything is written or sent (sdk/README.md, What JSON can carry).
let d: AnyServer;

class Coin {
  count = 1;
}
const cyclic = () => {
  const o: Record<string, unknown> = { count: 1 };
  o.self = o;
  return o;
};
const deep = (levels: number) => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};
const sparse = () => {
  const a = [1, 2];
  a[3] = 4;
  return a;
};

/** Bad values placed at `inventory[3].count` (level 4); `below` is where under that the refusal is (level 257 for depth). */
const bad: [string, () => unknown, string, (string | number)[]][] = [
  ["NaN", () => Number.NaN, "not_finite", []],
  ["Infinity", () => Number.POSITIVE_INFINITY, "not_finite", []],
  ["-Infinity", () => Number.NEGATIVE_INFINITY, "not_finite", []],
  ["undefined", () => undefined, "undefined", []],
  ["a function", () => () => 1, "function", []],
  ["a symbol", () => Symbol("s"), "symbol", []],
  ["a BigInt", () => 10n, "bigint", []],
  ["a cycle", cyclic, "cycle", ["self"]],
  ["a Date", () => new Date(0), "not_plain_object", []],
  ["a Map", () => new Map([["a", 1]]), "not_plain_object", []],
  ["a class instance", () => new Coin(), "not_plain_object", []],
  ["a lone surrogate", () => "\ud800x", "lone_surrogate", []],
  ["a lone surrogate in a key", () => ({ "\udc00": 1 }), "lone_surrogate", ["\udc00"]],
  ["a sparse array", sparse, "sparse_array", []],
  ["nesting over 256 levels", () => deep(260), "too_deep", Array(257 - 4).fill(0)],
];
const withBad = (v: unknown) => ({ inventory: [{ count: 1 }, { count: 2 }, { count: 3 }, { count: v }] });
const at = ["inventory", 3, "count"];

/** The error a call rejects with (or "resolved" when it did not reject). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => "resolved" as const,
    (e: unknown) => e,
  );
const shape = (e: unknown) =>
  e instanceof SavepointError ? { code: e.code, status: e.status, details: e.details } : e;

function client(key: string, storage = memoryStorage(), fetchCount = { n: 0 }) {
  const fetchFn = (url: string, init: RequestInit) => {
    fetchCount.n++;
    return fetch(url, init);
  };
  const options = { storage, clock: manualClock(), browserLifecycle: false, retry: { attempts: 1 }, fetch: fetchFn };
  return new SavepointClient({ baseUrl: d.base, runtimeKey: key, ...options });
}

forEachDeployment(
  "sdk: data JSON cannot carry exactly is refused with a typed error, and the queue is unharmed",
  ({ d: deployed }) => {
    beforeAll(() => {
      d = deployed;
    });
    test("save data, slotInfo and account data: each bad value is refused, naming its path; load, snapshots, storage and server keep the good save", async () => {
      const t = await tenantWithPolicy(d);
      const storage = memoryStorage();
      const c = client(t.key, storage);
      const accountId = await c.ensureAccount({ accountData: { gems: 1 } });
      const good = withBad(4);
      await c.save("main", good, { label: "ok" });
      await c.sync({ force: true });
      await c.idle();
      const session = (await c.store.getValue<{ token: string }>("session"))!.token;

      for (const [name, value, reason, below] of bad) {
        const path = [...at, ...below];
        expect([name, shape(await failure(c.save("main", withBad(value()))))]).toEqual([
          name,
          { code: "invalid_json", status: 0, details: { field: "data", path, reason } },
        ]);
        expect([name, shape(await failure(c.save("main", good, withBad(value()))))]).toEqual([
          name,
          { code: "invalid_json", status: 0, details: { field: "slotInfo", path, reason } },
        ]);
        expect([name, shape(await failure(c.saveAccountData(withBad(value()))))]).toEqual([
          name,
          { code: "invalid_json", status: 0, details: { field: "accountData", path, reason } },
        ]);
      }
      for (const notObject of [[1], null, "text", 3]) {
        expect(shape(await failure(c.save("main", notObject as never)))).toMatchObject({
          code: "invalid_json",
          details: { path: [], reason: "not_an_object" },
        });
      }

      expect(c.load("main")).toEqual(good);
      expect(c.slotInfo("main")).toEqual({ label: "ok" });
      expect(c.localSnapshots("main").map((s) => s.data)).toEqual([good]);
      expect(c.accountData()).toEqual({ gems: 1 });
      expect(c.status().pending).toEqual([]);
      // The device's storage holds the good save only: a fresh client on it reads the same.
      const again = client(t.key, storage);
      await again.start();
      expect(again.load("main")).toEqual(good);
      expect(again.localSnapshots("main").map((s) => s.seq)).toEqual([1]);
      again.close();
      // The server has version 1, unchanged.
      const slot = await call(d, "GET", `/api/v1/accounts/${accountId}/slots/main`, { key: t.key, session });
      expect({ version: slot.body.version, data: slot.body.data, slotInfo: slot.body.slotInfo }).toEqual({
        version: 1,
        data: good,
        slotInfo: { label: "ok" },
      });
      const account = await call(d, "GET", `/api/v1/accounts/${accountId}`, { key: t.key, session });
      expect({ version: account.body.version, accountData: account.body.accountData }).toEqual({
        version: 1,
        accountData: { gems: 1 },
      });
      c.close();
    }, 60_000);

    test("everything else the SDK sends: a bad body is refused before any request; undefined optional fields are still absent", async () => {
      const t = await tenantWithPolicy(d);
      const requests = { n: 0 };
      const c = client(t.key, memoryStorage(), requests);
      await c.ready();
      const before = requests.n;
      expect(shape(await failure(c.ensureAccount({ accountData: withBad(Number.NaN) })))).toEqual({
        code: "invalid_json",
        status: 0,
        details: { field: "body", path: ["accountData", ...at], reason: "not_finite" },
      });
      const refused = await failure(c.api.createAccount({ accountData: { big: 1n } as never }));
      expect(shape(refused)).toMatchObject({ code: "invalid_json", details: { path: ["accountData", "big"] } });
      expect(requests.n).toBe(before);
      expect(c.accountId).toBeUndefined();
      // An optional field left undefined is what TypeScript callers write: it is not sent, as before.
      const id = await c.ensureAccount({ deviceLabel: undefined, accountData: { gems: 2 } });
      expect(id).toMatch(/^acc_/);
      expect(c.accountData()).toEqual({ gems: 2 });
      c.close();
    }, 60_000);

    test("a resolver whose merge JSON cannot carry: the slot is refused (status().refused), nothing is sent, the local save stays", async () => {
      const t = await tenantWithPolicy(d);
      const a = client(t.key);
      await a.ensureAccount();
      await a.save("main", { n: 1 });
      await a.sync({ force: true });
      await a.idle();
      const session = (await a.store.getValue<{ accountId: string; token: string }>("session"))!;
      // Another device writes version 2; this one saves on version 1 and merges into NaN.
      const other = await call(d, "POST", `/api/v1/accounts/${session.accountId}/slots/main/sync`, {
        key: t.key,
        session: session.token,
        headers: { "idempotency-key": "json-refusal-other-device" },
        body: { baseVersion: 1, data: { n: 5 } },
      });
      expect(other.status).toBe(200);
      const b = new SavepointClient({ ...a.options, storage: a.store.storage, resolve: () => ({ n: Number.NaN }) });
      await b.start();
      await b.save("main", { n: 2 });
      await b.sync({ force: true });
      const s = await b.idle();
      expect(s.refused?.main).toMatchObject({
        code: "invalid_json",
        details: { field: "merged", path: ["n"], reason: "not_finite" },
      });
      expect(b.load("main")).toEqual({ n: 2 });
      const slot = await call(d, "GET", `/api/v1/accounts/${session.accountId}/slots/main`, {
        key: t.key,
        session: session.token,
      });
      expect({ version: slot.body.version, data: slot.body.data }).toEqual({ version: 2, data: { n: 5 } });
      a.close();
      b.close();
    }, 60_000);
  },
);
