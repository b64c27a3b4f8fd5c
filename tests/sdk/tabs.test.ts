import { afterAll, beforeAll, expect, test } from "bun:test";
import { memoryStorage, SavepointClient, type StorageAdapter, systemClock } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tenantWithPolicy } from "./helpers.ts";

/** Web Locks as browsers grant them: one holder per name, the others queued in order (`ifAvailable`: no wait). */
function fakeLocks() {
  const held = new Set<string>();
  const queues = new Map<string, (() => void)[]>();
  return {
    async request(name: string, options: { ifAvailable?: boolean }, run: (lock: unknown) => Promise<void> | undefined) {
      if (held.has(name)) {
        if (options.ifAvailable) return run(null);
        await new Promise<void>((r) => queues.set(name, [...(queues.get(name) ?? []), r]));
      }
      held.add(name);
      try {
        return await run({ name });
      } finally {
        const next = queues.get(name)?.shift();
        if (next) next();
        else held.delete(name);
      }
    },
  };
}

const nav = globalThis.navigator as unknown as Record<string, unknown>;
beforeAll(() => void Object.defineProperty(nav, "locks", { value: fakeLocks(), configurable: true }));
afterAll(() => void delete nav.locks);

/** Two tabs' views of one origin's storage: the same entries, and `shared` so their clients take turns. */
const sharedStorage = (map: Map<string, string>, onSet?: (key: string) => void): StorageAdapter => {
  const inner = memoryStorage(map);
  return {
    ...inner,
    shared: "test-origin",
    set: async (k, v) => {
      await inner.set(k, v);
      onSet?.(k);
    },
  };
};

// The turns two tabs take (sdk/README.md, Several tabs), in one process with Web Locks as a browser has them.
forEachDeployment("sdk: tabs taking turns", ({ d }) => {
  const client = (key: string, storage: StorageAdapter, namespace = "turns") =>
    new SavepointClient({
      baseUrl: d.base,
      runtimeKey: key,
      storage,
      namespace,
      clock: systemClock,
      browserLifecycle: false,
      replay: "all",
    });

  test("a save the syncing tab wrote but never answered (it closed) is sent again to the next one and stored once", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600, syncOnAppBackground: false });
    const map = new Map<string, string>();
    // Tab A closes the moment the save tab B handed over is durable: before its answer leaves.
    let closeA = false;
    const a = client(
      t.key,
      sharedStorage(map, (k) => closeA && k.endsWith("record:main") && a.close()),
    );
    const accountId = await a.ensureAccount();
    const b = client(t.key, sharedStorage(map));
    await b.start();
    expect([a.isSyncingTab, b.isSyncingTab]).toEqual([true, false]);

    closeA = true;
    const saved = await b.save("main", { n: 1 });
    expect(b.isSyncingTab).toBe(true);
    // Once on the device, though tab B asked twice (once each tab): one version on the server.
    expect(b.localSnapshots("main").map((s) => s.data)).toEqual([{ n: 1 }]);
    expect(saved.seq).toBe(1);
    expect((await b.sync()).status).toBe("synced");
    const slot = await b.api.getSlot("main");
    expect({ version: slot.version, data: slot.data, accountId: b.accountId }).toEqual({
      version: 1,
      data: { n: 1 },
      accountId,
    });
    b.close();
  });

  test("a tab that does not sync asks the syncing one to push when it goes to the background, and to pull when it comes back", async () => {
    const t = await tenantWithPolicy(d, {
      minRemoteSyncIntervalSeconds: 3600,
      syncOnAppBackground: true,
      syncOnAppForeground: true,
    });
    const map = new Map<string, string>();
    const a = client(t.key, sharedStorage(map), "lifecycle");
    await a.ensureAccount();
    await a.save("main", { n: 1 });
    await a.sync({ force: true });
    const b = client(t.key, sharedStorage(map), "lifecycle");
    await b.start();
    expect(b.isSyncingTab).toBe(false);
    await b.save("main", { n: 2 });
    await a.settled();
    expect((await a.api.getSlot("main")).version).toBe(1); // inside the interval
    await b.background();
    expect(await a.api.getSlot("main")).toMatchObject({ version: 2, data: { n: 2 } });
    expect(b.status().pending).toEqual([]);

    await a.api.syncSlot("main", { baseVersion: 2, data: { n: "another device" } });
    await b.foreground();
    expect([a.load("main"), b.load("main")]).toEqual([{ n: "another device" }, { n: "another device" }]);
    a.close();
    b.close();
  });

  test("without Web Locks every client syncs on its own, as before", async () => {
    const t = await tenantWithPolicy(d);
    const locks = nav.locks;
    delete nav.locks;
    try {
      const map = new Map<string, string>();
      const [a, b] = [client(t.key, sharedStorage(map), "alone"), client(t.key, sharedStorage(map), "alone")];
      await Promise.all([a.start(), b.start()]);
      expect([a.isSyncingTab, b.isSyncingTab]).toEqual([true, true]);
      a.close();
      b.close();
    } finally {
      Object.defineProperty(nav, "locks", { value: locks, configurable: true });
    }
  });
});
