import { beforeAll, expect, test } from "bun:test";
import type { SyncResult } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, switchableNetwork, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

async function device(policy: Record<string, unknown>, o: Parameters<typeof testClient>[2] = {}) {
  const t = await tenantWithPolicy(d, policy);
  const net = switchableNetwork();
  const { client, clock } = testClient(d, t.key, { fetch: net.fetch, ...o });
  await client.ensureAccount();
  const version = async (slotId = "main") => (await client.api.getSlot(slotId).catch(() => ({ version: 0 }))).version;
  return { t, net, client, clock, version };
}

// What sync() answers is what happened to the changes pending when it was called (sdk/README.md, Sync results).
forEachDeployment("sdk: sync() tells what happened", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("the server down: a forced sync answers offline with the error, not synced", async () => {
    const s = await device({ minRemoteSyncIntervalSeconds: 3600 });
    await s.client.save("main", { coins: 1 });
    s.net.state.online = false;
    const r: SyncResult = await s.client.sync({ force: true });
    expect(r.status).toBe("offline");
    expect(r.targets.main).toMatchObject({ status: "offline", error: { code: "network_error", status: 0 } });
    expect(s.client.status().pending).toEqual(["main"]);
  });

  test("a plain sync pushes when the interval allows and answers with the version; inside it, deferred and until when", async () => {
    const s = await device({ minRemoteSyncIntervalSeconds: 30 });
    await s.client.save("main", { coins: 1 });
    const first = await s.client.sync();
    expect(first).toEqual({ status: "synced", targets: { main: { status: "synced", version: 1 } } });
    expect(await s.version()).toBe(1);

    await s.client.save("main", { coins: 2 });
    await s.client.saveAccountData({ gems: 1 });
    const second = await s.client.sync();
    const retryAt = s.clock.now() + 30_000;
    expect(second).toEqual({
      status: "deferred",
      retryAt,
      targets: { main: { status: "deferred", retryAt }, accountData: { status: "deferred", retryAt } },
    });
    expect(await s.version()).toBe(1);
    // Nothing pending is nothing to wait for.
    await s.clock.advance(30_000);
    await s.client.settled();
    expect(await s.client.sync()).toEqual({ status: "synced", targets: {} });
  });

  test("a save the server refuses answers refused with its error; the other slots are synced", async () => {
    const s = await device({ minRemoteSyncIntervalSeconds: 3600 });
    await s.client.save("huge", { blob: "x".repeat(270_000) });
    await s.client.save("small", { n: 1 });
    const r = await s.client.sync({ force: true });
    expect(r.status).toBe("refused");
    expect(r.targets.huge).toMatchObject({ status: "refused", error: { code: "payload_too_large", status: 413 } });
    expect(r.targets.small).toEqual({ status: "synced", version: 1 });
  });

  test("merges that run out answer conflict; a signed-out session answers refused; a cooldown refusal carries its error", async () => {
    const s = await device(
      { minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 1 },
      { maxConflictRetries: 0 },
    );
    await s.client.save("main", { n: 1 });
    await s.client.sync({ force: true });
    // Another write lands on version 1 first.
    await s.client.api.syncSlot("main", { baseVersion: 1, data: { n: 5 } });
    await s.client.save("main", { n: 2 });
    await s.clock.advance(1_000);
    const conflict = await s.client.sync({ force: true });
    expect(conflict).toMatchObject({
      status: "conflict",
      targets: { main: { status: "conflict", error: { code: "conflict" } } },
    });

    await s.client.api.signOutCurrent();
    await s.client.save("other", { n: 1 });
    await s.clock.advance(1_000);
    const signedOut = await s.client.sync({ force: true });
    expect(signedOut.status).toBe("refused");
    expect(signedOut.targets.other).toMatchObject({ status: "refused", error: { code: "session_revoked" } });

    const r = await device(
      { minRemoteSyncIntervalSeconds: 3600, forceSyncCooldownSeconds: 20 },
      { onCooldown: "refuse" },
    );
    await r.client.save("main", { n: 1 });
    await r.client.sync({ force: true });
    await r.client.save("main", { n: 2 });
    const cooled = await r.client.sync({ force: true });
    expect(cooled).toMatchObject({ status: "refused", retryAt: r.clock.now() + 20_000 });
    expect(cooled.targets.main).toMatchObject({
      status: "refused",
      error: { code: "sync_cooldown", retryAfterSeconds: 20 },
      retryAt: r.clock.now() + 20_000,
    });
  });
});
