import { beforeAll, expect, test } from "bun:test";
import { fileStorage } from "../../sdk/src/file.ts";
import type { FetchFn } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tempDir } from "../helpers/infra.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

const queued = 20;
const lostAt = 9;

// A replay stores the keys of all its queued saves in one write (README, Retries): a process that dies
// mid-replay, with the answer of its last write lost, replays on the next start without a second copy.
forEachDeployment("sdk: a replay cut short", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test(`${queued} queued saves, the process gone after the ${lostAt}th write's answer was lost: each save is one version, in order`, async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1, maxQueuedLocalSnapshots: 50 });
    const dir = tempDir("sdk-replay-crash");
    let online = true;
    let lose = true;
    let syncs = 0;
    let keys: string[] = [];
    // Offline, then online until the lostAt-th slot write has reached the server; its answer never comes.
    const cut: FetchFn = async (url, init) => {
      if (!online) throw new TypeError("fetch failed: offline");
      const write = init.method === "POST" && url.endsWith("/slots/main/sync");
      if (write) keys.push(String((init.headers as Record<string, string>)["idempotency-key"]));
      const res = await fetch(url, init);
      if (write && ++syncs === lostAt && lose) return new Promise<Response>(() => {});
      return res;
    };
    const first = testClient(d, t.key, { storage: fileStorage(dir), replay: "all", fetch: cut });
    await first.client.ensureAccount();
    await first.client.save("main", { n: 0 });
    await first.clock.advance(1_000);
    await first.client.settled();
    const accountId = first.client.accountId!;
    expect((await first.client.api.getSlot("main")).version).toBe(1);

    online = false;
    for (let n = 1; n <= queued; n++) await first.client.save("main", { n });
    online = true;
    void first.client.reconnected();
    while (syncs < lostAt) await Bun.sleep(5);
    first.client.close();
    const firstKeys = keys;
    expect(firstKeys).toHaveLength(lostAt);
    expect(new Set(firstKeys).size).toBe(lostAt);

    // The next start, on what the storage holds.
    keys = [];
    lose = false;
    const second = testClient(d, t.key, { storage: fileStorage(dir), replay: "all", fetch: cut });
    await second.client.start();
    await second.client.reconnected();
    await second.client.settled();
    expect(second.client.accountId).toBe(accountId);
    expect(second.client.status()).toMatchObject({ state: "idle", pending: [] });
    // The write whose answer was lost is sent again with its first key; no key is used for two saves.
    expect(keys).toContain(firstKeys[lostAt - 1]!);
    expect(new Set([...firstKeys, ...keys]).size).toBe(queued);

    const slot = await second.client.api.getSlot("main");
    expect(slot).toMatchObject({ version: queued + 1, data: { n: queued } });
    const history = await second.client.api.slotHistory("main", { limit: 100 });
    expect(history.restorePoints.map((p) => p.version)).toEqual(
      Array.from({ length: queued + 1 }, (_, i) => queued + 1 - i),
    );
    for (const v of [2, lostAt + 1, lostAt + 2, queued + 1])
      expect((await second.client.api.slotHistoryVersion("main", v)).data).toEqual({ n: v - 1 });
  });
});
