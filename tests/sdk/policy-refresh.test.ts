import { expect, test } from "bun:test";
import { SavepointApi, systemClock } from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { tenantWithPolicy, testClient } from "./helpers.ts";

/** Counts the runtime-config reads the SDK makes, with their status and whether they carried If-None-Match. */
function configReads() {
  const reads: { status: number; conditional: boolean }[] = [];
  const fetchFn = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    if (new URL(url).pathname === "/api/v1/runtime-config") {
      reads.push({
        status: res.status,
        conditional: "if-none-match" in ((init.headers ?? {}) as Record<string, string>),
      });
    }
    return res;
  };
  return { reads, fetch: fetchFn };
}

// An operator's change of the sync policy reaches a client that keeps running (sdk/README.md, Policy flags).
forEachDeployment("sdk: the sync policy while the game runs", ({ d }) => {
  test("foreground() reads the policy whatever syncOnAppForeground says; the flag only governs the pull and push", async () => {
    const t = await tenantWithPolicy(d, { syncOnAppForeground: true, minRemoteSyncIntervalSeconds: 3600 });
    const { client } = testClient(d, t.key);
    const accountId = await client.ensureAccount();
    await client.save("main", { n: 1 });
    await client.sync({ force: true });
    const setPolicy = (p: Record<string, unknown>) =>
      admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, p);

    expect((await setPolicy({ syncOnAppForeground: false })).status).toBe(200);
    await client.foreground();
    expect(client.config.policy.syncOnAppForeground).toBe(false);
    const token = (await client.store.getValue<{ token: string }>("session"))!.token;
    const other = new SavepointApi({
      baseUrl: d.base,
      runtimeKey: t.key,
      clock: systemClock,
      retry: { attempts: 1 },
      session: () => ({ accountId, token }),
    });
    await other.syncSlot("main", { baseVersion: 1, data: { n: "other device" } });
    await client.foreground();
    // Flag off: no pull.
    expect(client.load("main")).toEqual({ n: 1 });

    expect((await setPolicy({ syncOnAppForeground: true, minRemoteSyncIntervalSeconds: 5 })).status).toBe(200);
    await client.foreground();
    expect(client.config.policy).toMatchObject({ syncOnAppForeground: true, minRemoteSyncIntervalSeconds: 5 });
    // Flag on again: the same foreground pulls.
    expect(client.load("main")).toEqual({ n: "other device" });
  });

  test("a game that never calls foreground() gets a new policy on a timer, asked with If-None-Match", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 3600 });
    const counted = configReads();
    const { client, clock } = testClient(d, t.key, { fetch: counted.fetch, configRefreshSeconds: 300 });
    const announced: number[] = [];
    client.on("config", (c) => announced.push(c.syncPolicy.minRemoteSyncIntervalSeconds));
    await client.ensureAccount();
    await client.save("main", { n: 1 });
    await clock.advance(0);
    await client.settled();
    await client.save("main", { n: 2 });
    expect(client.status().pending).toEqual(["main"]);

    await clock.advance(300_000);
    await client.ready(); // the timer's read has answered
    // Unchanged: the server answers 304 to the ETag the client holds.
    expect(counted.reads).toEqual([
      { status: 200, conditional: false },
      { status: 304, conditional: true },
    ]);

    expect(
      (await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/sync-policy`, { minRemoteSyncIntervalSeconds: 10 }))
        .status,
    ).toBe(200);
    await clock.advance(300_000);
    await client.ready(); // the timer's read has answered
    expect(counted.reads.at(-1)).toEqual({ status: 200, conditional: true });
    expect(client.config.policy.minRemoteSyncIntervalSeconds).toBe(10);
    // The start's read and the change: the 304 in between is no news.
    expect(announced).toEqual([3600, 10]);
    // The save waiting out the old hour goes on the new interval, which has long passed.
    await clock.advance(0);
    await client.settled();
    expect(client.status()).toMatchObject({ state: "idle", pending: [] });
    expect((await client.api.getSlot("main")).data).toEqual({ n: 2 });
    client.close();
  });
});
