import { beforeAll, expect, test } from "bun:test";
import {
  type ConflictEvent,
  type JsonObject,
  mergeRules,
  type Resolution,
  SavepointApi,
  systemClock,
} from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, switchableNetwork, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

/** The server's view of an account, read with the raw API and the given session. */
const serverView = (key: string, accountId: string, token: string) =>
  new SavepointApi({
    baseUrl: d.base,
    runtimeKey: key,
    clock: systemClock,
    retry: { attempts: 1 },
    session: () => ({ accountId, token }),
  });

/** Records the slot and account-data writes the SDK sent, in order, whether or not they arrived. */
function observed(inner: (url: string, init: RequestInit) => Promise<Response>) {
  const writes: { slot: boolean; key: string; body: any }[] = [];
  const fetchFn = (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    const key = (init.headers as Record<string, string>)["idempotency-key"]!;
    const write = init.method === "POST" && /\/(slots|slots\/[^/]+\/sync|data\/sync)$/.test(path);
    if (write) writes.push({ slot: path.includes("/slots"), key, body: JSON.parse(String(init.body)) });
    return inner(url, init);
  };
  return { writes, fetch: fetchFn };
}

forEachDeployment("sdk: offline, then online", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  for (const replay of ["latest", "all"] as const) {
    test(`saves made offline are all on the server afterwards, in order, versions counted (replay ${replay})`, async () => {
      const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 30 });
      const net = switchableNetwork();
      const seen = observed(net.fetch);
      const { client, clock } = testClient(d, t.key, { fetch: seen.fetch, replay });
      const accountId = await client.ensureAccount();
      net.state.online = false;
      const log: number[] = [];
      for (let i = 1; i <= 5; i++) {
        log.push(i);
        await client.save("main", { log: [...log] }, { label: `save ${i}` });
        await client.saveAccountData({ coins: i * 10 });
        await clock.advance(1000);
      }
      await clock.advance(30_000);
      await client.settled();
      expect(client.status()).toMatchObject({
        state: "offline",
        pending: expect.arrayContaining(["main", "accountData"]),
      });
      expect(client.load("main")).toEqual({ log: [1, 2, 3, 4, 5] });

      net.state.online = true;
      await client.reconnected();
      await client.settled();
      expect(client.status()).toMatchObject({ state: "idle", pending: [] });
      const api = serverView(t.key, accountId, (await client.store.getValue<{ token: string }>("session"))!.token);
      const slot = await api.getSlot("main");
      const account = await api.getAccount();
      expect(slot.data).toEqual({ log: [1, 2, 3, 4, 5] });
      expect(slot.slotInfo).toEqual({ label: "save 5" });
      expect(account.accountData).toEqual({ coins: 50 });
      const sent = seen.writes.filter((w) => w.slot).map((w) => w.body.data.log.length);
      // The write begun before the network went away is retried with its own key (it may have arrived).
      const accountWrites = seen.writes.filter((w) => !w.slot);
      const distinct = [...new Map(accountWrites.map((w) => [w.key, w.body.accountData.coins])).values()];
      for (const w of accountWrites)
        expect(w.body.accountData.coins).toBe(accountWrites.find((x) => x.key === w.key)!.body.accountData.coins);
      if (replay === "latest") {
        // Saves between two syncs coalesce: one write carries the newest.
        expect(new Set(sent)).toEqual(new Set([sent[0]!]));
        expect(distinct).toEqual([10, 50]);
        expect(slot.version).toBe(1);
        expect(account.version).toBe(3);
      } else {
        // Each queued save is its own version, in the order saved.
        expect([...new Set(sent)]).toEqual([1, 2, 3, 4, 5]);
        expect(distinct).toEqual([10, 20, 30, 40, 50]);
        expect(slot.version).toBe(5);
        expect(account.version).toBe(6);
        const history = await admin(d, "GET", `/admin/v1/accounts/${accountId}/slots/main/history`);
        expect(history.body.snapshots.map((s: { version: number }) => s.version).sort()).toEqual([1, 2, 3, 4, 5]);
      }
    });
  }
});

/** Two devices of one account (the second attached with a transfer code), both synced to the same state. */
type DeviceOptions = { maxConflictRetries?: number; fetchB?: (url: string, init: RequestInit) => Promise<Response> };
async function twoDevices(initial: JsonObject, resolve: Resolution, options: DeviceOptions = {}) {
  const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1 });
  const a = testClient(d, t.key);
  const b = testClient(d, t.key, {
    resolve,
    ...(options.fetchB ? { fetch: options.fetchB } : {}),
    maxConflictRetries: options.maxConflictRetries ?? 3,
  });
  await a.client.ensureAccount();
  await a.client.save("main", initial);
  await a.client.sync({ force: true });
  const code = await a.client.account.createTransferCode();
  await b.client.start();
  expect(await b.client.account.attachTransferCode(code.transferCode, () => true)).toBe(true);
  expect(b.client.load("main")).toEqual(initial);
  const conflicts: ConflictEvent[] = [];
  b.client.on("conflict", (c) => conflicts.push(c));
  const session = (await a.client.store.getValue<{ accountId: string; token: string }>("session"))!;
  return { t, a, b, conflicts, api: serverView(t.key, session.accountId, session.token) };
}

/** A then B change the same slot from the same base; B's write conflicts and is resolved. */
async function race(initial: JsonObject, fromA: JsonObject, fromB: JsonObject, resolve: Resolution) {
  const s = await twoDevices(initial, resolve);
  await s.a.clock.advance(60_000);
  await s.a.client.save("main", fromA);
  await s.a.client.sync({ force: true });
  await s.b.clock.advance(5_000);
  await s.b.client.save("main", fromB);
  await s.b.client.sync({ force: true });
  const server = await s.api.getSlot("main");
  return { ...s, server };
}

forEachDeployment("sdk: two devices racing on one slot", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  const base = { coins: 100, highScore: 300, unlocks: ["sword"], settings: { music: true }, name: "Ada" };
  const fromA = { coins: 150, highScore: 500, unlocks: ["sword", "shield"], settings: { music: false }, name: "Ada" };
  const fromB = {
    coins: 80,
    highScore: 700,
    unlocks: ["sword", "bow"],
    settings: { music: true, sfx: false },
    name: "Ada B",
  };

  test('resolve "server": the server state stays, the device takes it, an event carries both sides', async () => {
    const r = await race(base, fromA, fromB, "server");
    expect(r.server).toMatchObject({ version: 2, data: fromA });
    expect(r.b.client.load("main")).toEqual(fromA);
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0]).toMatchObject({
      target: "main",
      base,
      server: fromA,
      local: fromB,
      merged: fromA,
      serverVersion: 2,
      attempt: 1,
    });
  });

  test("resolve \"local\": the device's save is written on the server's version", async () => {
    const r = await race(base, fromA, fromB, "local");
    expect(r.server).toMatchObject({ version: 3, data: fromB });
    expect(r.conflicts[0]).toMatchObject({ server: fromA, local: fromB, merged: fromB });
  });

  test("a custom resolver gets (base, server, local) and its result is written", async () => {
    const r = await race(base, fromA, fromB, (b, s, l) => ({
      ...l,
      coins: (s.coins as number) + (l.coins as number) - (b.coins as number),
      from: "custom",
    }));
    expect(r.server).toMatchObject({ version: 3, data: { ...fromB, coins: 130, from: "custom" } });
  });

  test("merge rules per path: max, union, latest, sum, and a three-way default; no progress lost", async () => {
    const rules = mergeRules({ coins: "sum", highScore: "max", unlocks: "union", settings: "latest" });
    const r = await race({ ...base, level: 1 }, { ...fromA, level: 4 }, { ...fromB, level: 1 }, rules);
    // coins: 100 + (150-100) + (80-100); highScore: the larger; unlocks: both sides'; settings: B saved later;
    // level changed only on A, name only on B: each kept.
    const merged = {
      coins: 130,
      highScore: 700,
      unlocks: ["sword", "shield", "bow"],
      settings: { music: true, sfx: false },
      name: "Ada B",
      level: 4,
    };
    expect(r.server.data).toEqual(merged);
    expect(r.server.version).toBe(3);
    expect(r.b.client.load("main")).toEqual(r.server.data);
  });

  test("a merge that conflicts again is merged again on the newer state, a bounded number of times", async () => {
    let races = 0;
    let raceA: (() => Promise<void>) | undefined;
    const fetchB = async (url: string, init: RequestInit) => {
      // Another device writes just before each of B's slot syncs reaches the server, twice.
      if (raceA && races < 2 && init.method === "POST" && url.endsWith("/slots/main/sync")) {
        races++;
        await raceA();
      }
      return fetch(url, init);
    };
    const s = await twoDevices({ coins: 0 }, mergeRules({ coins: "sum" }), { fetchB });
    let aCoins = 0;
    raceA = async () => {
      await s.a.clock.advance(60_000);
      aCoins += 10;
      await s.a.client.save("main", { coins: aCoins });
      await s.a.client.sync({ force: true });
      await s.a.clock.advance(60_000);
    };
    await s.b.client.save("main", { coins: 5 });
    await s.b.client.sync({ force: true });
    const server = await s.api.getSlot("main");
    expect(server.data).toEqual({ coins: 25 });
    expect(s.conflicts.map((c) => c.attempt)).toEqual([1, 2]);

    // With no merges allowed beyond the first, the same race ends in a typed conflict error, nothing lost locally.
    races = 0;
    const bounded = await twoDevices({ coins: 0 }, mergeRules({ coins: "sum" }), { fetchB, maxConflictRetries: 0 });
    const errors: string[] = [];
    bounded.b.client.on("error", (e) => errors.push(e.error.code));
    raceA = async () => {
      await bounded.a.clock.advance(60_000);
      await bounded.a.client.save("main", { coins: 100 + races });
      await bounded.a.client.sync({ force: true });
      await bounded.a.clock.advance(60_000);
    };
    await bounded.b.client.save("main", { coins: 5 });
    await bounded.b.client.sync({ force: true });
    expect(errors).toEqual(["conflict"]);
    expect(bounded.b.client.status()).toMatchObject({ state: "conflict", pending: ["main"] });
    expect(bounded.b.client.load("main")).toEqual({ coins: 106 });
  });
});
