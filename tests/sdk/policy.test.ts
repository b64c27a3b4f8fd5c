import { beforeAll, expect, test } from "bun:test";
import { SavepointApi, systemClock } from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, switchableNetwork, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

/** Counts what the SDK asks the server, by method and path, and whether it asked with keepalive. */
function counted(inner: (url: string, init: RequestInit) => Promise<Response> = fetch) {
  const calls: { method: string; path: string; keepalive: boolean; status?: number }[] = [];
  const fetchFn = async (url: string, init: RequestInit) => {
    const call = {
      method: init.method ?? "GET",
      path: new URL(url).pathname,
      keepalive: init.keepalive === true,
    } as (typeof calls)[number];
    calls.push(call);
    const res = await inner(url, init);
    call.status = res.status;
    return res;
  };
  const writes = () => calls.filter((c) => c.method === "POST" && /\/(slots|sync)$/.test(c.path));
  return { calls, writes, fetch: fetchFn };
}

/** A client with its account, on a tenant with `policy`; `server()` reads a slot back with its session. */
async function setup(policy: Record<string, unknown>, options: Parameters<typeof testClient>[2] = {}) {
  const t = await tenantWithPolicy(d, policy);
  const net = switchableNetwork();
  const c = counted(net.fetch);
  const { client, clock } = testClient(d, t.key, { fetch: c.fetch, ...options });
  const accountId = await client.ensureAccount();
  const token = (await client.store.getValue<{ token: string }>("session"))!.token;
  const api = new SavepointApi({
    baseUrl: d.base,
    runtimeKey: t.key,
    clock: systemClock,
    retry: { attempts: 1 },
    session: () => ({ accountId, token }),
  });
  const version = async (slotId = "main") => (await api.getSlot(slotId).catch(() => ({ version: 0 }))).version;
  const tick = async (ms: number) => {
    await clock.advance(ms);
    await client.settled();
  };
  return { t, net, client, clock, api, version, tick, counted: c, accountId };
}

// Each sync-policy flag honoured (README, Policy flags), with a clock the test moves.
forEachDeployment("sdk: the server's sync policy", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("the policy comes from route 2 and is cached with its ETag", async () => {
    const s = await setup({ minRemoteSyncIntervalSeconds: 42, maxQueuedLocalSnapshots: 7 });
    expect(s.client.config.policy).toMatchObject({ minRemoteSyncIntervalSeconds: 42, maxQueuedLocalSnapshots: 7 });
    await admin(d, "POST", `/admin/v1/projects/${s.t.projectId}/environments/stage/game-config`, {
      data: { boss: "dragon" },
    });
    await s.client.config.refresh();
    expect(s.client.config.gameConfig).toMatchObject({ version: 1, data: { boss: "dragon" } });
    await s.client.config.refresh();
    await s.client.config.refresh();
    const asked = s.counted.calls.filter((c) => c.path === "/api/v1/runtime-config");
    // At start, after the publish, then with gameConfigVersion 1 twice: the second has the same body and ETag, so 304.
    expect(asked.map((c) => c.status)).toEqual([200, 200, 200, 304]);
    expect(s.client.config.gameConfig).toMatchObject({ version: 1, data: { boss: "dragon" } });
  });

  test("minRemoteSyncIntervalSeconds: no remote sync more often; saves in between coalesce", async () => {
    const s = await setup({ minRemoteSyncIntervalSeconds: 30 });
    await s.client.save("main", { n: 1 });
    await s.tick(0);
    expect(await s.version()).toBe(1);
    for (let n = 2; n <= 6; n++) {
      await s.client.save("main", { n });
      await s.tick(5_000);
    }
    // 25 s after the first sync: nothing sent yet.
    expect(s.counted.writes()).toHaveLength(1);
    expect(await s.version()).toBe(1);
    await s.tick(5_000);
    expect(s.counted.writes()).toHaveLength(2);
    expect(await s.version()).toBe(2);
    expect((await s.api.getSlot("main")).data).toEqual({ n: 6 });
  });

  test("forceSyncCooldownSeconds: a forced sync inside the cooldown is deferred to its end, or refused", async () => {
    const s = await setup({ minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 20 });
    await s.client.save("main", { n: 1 });
    expect(await s.client.sync({ force: true })).toEqual({
      status: "synced",
      targets: { main: { status: "synced", version: 1 } },
    });
    await s.client.save("main", { n: 2 });
    await s.tick(5_000);
    const deferred = await s.client.sync({ force: true });
    const retryAt = s.clock.now() + 15_000;
    expect(deferred).toEqual({ status: "deferred", retryAt, targets: { main: { status: "deferred", retryAt } } });
    await s.tick(14_000);
    expect(await s.version()).toBe(1);
    await s.tick(1_000);
    expect(await s.version()).toBe(2);

    const r = await setup(
      { minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 20 },
      { onCooldown: "refuse" },
    );
    await r.client.save("main", { n: 1 });
    await r.client.sync({ force: true });
    await r.client.save("main", { n: 2 });
    expect((await r.client.sync({ force: true })).status).toBe("refused");
    await r.tick(60_000);
    expect(await r.version()).toBe(1);
    expect((await r.client.sync({ force: true })).status).toBe("synced");
    expect(await r.version()).toBe(2);
  });

  for (const on of [true, false]) {
    test(`syncOnAppBackground ${on}: background() ${on ? "flushes at once, with keepalive" : "sends nothing"}`, async () => {
      const s = await setup({ minRemoteSyncIntervalSeconds: 3600, syncOnAppBackground: on });
      await s.client.save("main", { n: 1 });
      await s.tick(0);
      await s.client.save("main", { n: 2 });
      await s.client.background();
      expect(await s.version()).toBe(on ? 2 : 1);
      expect(s.counted.writes().map((w) => w.keepalive)).toEqual(on ? [false, true] : [false]);
    });

    test(`syncOnAppForeground ${on}: foreground() ${on ? "pulls what another device wrote, then pushes" : "does nothing"}`, async () => {
      const s = await setup({ minRemoteSyncIntervalSeconds: 3600, syncOnAppForeground: on });
      await s.client.save("main", { n: 1 });
      await s.tick(0);
      expect((await s.api.syncSlot("main", { baseVersion: 1, data: { n: "other device" } })).status).toBe("accepted");
      await s.client.foreground();
      expect(s.client.load("main")).toEqual(on ? { n: "other device" } : { n: 1 });
    });

    const retried = on ? "is retried with backoff, and on the online event" : "waits for the next save or forced sync";
    test(`syncOnReconnect ${on}: a failed sync ${retried}`, async () => {
      const s = await setup(
        { minRemoteSyncIntervalSeconds: 1, syncOnReconnect: on },
        { reconnectBackoff: { baseMs: 1_000, maxMs: 8_000 } },
      );
      s.net.state.online = false;
      await s.client.save("main", { n: 1 });
      await s.tick(0);
      expect(s.client.status().state).toBe("offline");
      const tried = s.counted.writes().length;
      await s.tick(60_000);
      expect(s.counted.writes().length > tried).toBe(on);
      s.net.state.online = true;
      await s.tick(60_000);
      expect(await s.version()).toBe(on ? 1 : 0);
      await s.client.reconnected();
      expect(await s.version()).toBe(on ? 1 : 0);
      if (!on) {
        await s.client.save("main", { n: 2 });
        await s.tick(0);
        // The write begun offline goes first with its key, then the newest save.
        expect(await s.version()).toBe(2);
        expect((await s.api.getSlot("main")).data).toEqual({ n: 2 });
      }
    });
  }

  test("syncOnReconnect with the network known to be gone: no retry timer, the network's return pushes", async () => {
    const s = await setup({ minRemoteSyncIntervalSeconds: 1 }, { reconnectBackoff: { baseMs: 1_000, maxMs: 8_000 } });
    s.net.state.online = false;
    s.client.disconnected();
    await s.client.save("main", { n: 1 });
    await s.tick(0);
    expect(s.client.status().state).toBe("offline");
    const tried = s.counted.writes().length;
    expect(tried).toBeGreaterThan(0); // a save still tries: the platform may be wrong
    await s.tick(60_000);
    expect(s.counted.writes().length).toBe(tried);
    expect(s.client.status().state).toBe("offline");
    s.net.state.online = true;
    await s.client.reconnected();
    expect(await s.version()).toBe(1);
    expect(s.client.status().state).toBe("idle");
  });

  test("maxQueuedLocalSnapshots: a ring of the newest local saves per slot, which doubles as local undo", async () => {
    const s = await setup({ minRemoteSyncIntervalSeconds: 3600, maxQueuedLocalSnapshots: 3 });
    for (let n = 1; n <= 5; n++) await s.client.save("main", { n });
    expect(s.client.localSnapshots("main").map((x) => x.data)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    await s.client.undo("main");
    expect(s.client.load("main")).toEqual({ n: 4 });
    expect(s.client.localSnapshots("main").map((x) => x.data)).toEqual([{ n: 4 }, { n: 5 }, { n: 4 }]);
    await s.tick(0);
    expect((await s.api.getSlot("main")).data).toEqual({ n: 4 });
  });
});
