import { beforeAll, expect, test } from "bun:test";
import type { Status, TransferPrompt } from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { type AnyServer, switchableNetwork, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

// Moving devices and signing in (README, API); the cloud icon's states (README, API).
forEachDeployment("sdk: device helpers and status", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("a transfer replaces the local account only after the player confirms", async () => {
    const t = await tenantWithPolicy(d);
    const old = testClient(d, t.key);
    await old.client.ensureAccount();
    await old.client.save("main", { level: 7 });
    await old.client.sync({ force: true });

    const other = testClient(d, t.key);
    const mine = await other.client.ensureAccount();
    await other.client.save("main", { level: 1 });
    await other.client.sync({ force: true });

    const declined = await old.client.account.createTransferCode();
    const prompts: TransferPrompt[] = [];
    expect(
      await other.client.account.attachTransferCode(declined.transferCode, (p) => {
        prompts.push(p);
        return false;
      }),
    ).toBe(false);
    expect(prompts[0]).toMatchObject({
      currentAccountId: mine,
      incoming: { accountId: old.client.accountId, slots: [{ slotId: "main", version: 1 }] },
    });
    expect(other.client.accountId).toBe(mine);
    expect(other.client.load("main")).toEqual({ level: 1 });

    const accepted = await old.client.account.createTransferCode();
    expect(await other.client.account.attachTransferCode(accepted.transferCode, () => true)).toBe(true);
    expect(other.client.accountId).toBe(old.client.accountId!);
    expect(other.client.load("main")).toEqual({ level: 7 });
    expect(other.client.slots()).toEqual(["main"]);
  });

  test("provider sign-in on a new device reaches the linked account and its saves; providers are listed", async () => {
    const t = await tenantWithPolicy(d);
    const keys = startKeyServer();
    const signer = await newSigner("RS256");
    const jwksUrl = keys.publish(`/firebase/${t.projectId}`, [signer]);
    const settings = { enabled: true, ...testProviders.firebase.settings, jwksUrl };
    await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/environments/stage/auth-providers/firebase`, settings);
    const subject = `u-${crypto.randomUUID()}`;

    const first = testClient(d, t.key);
    await first.client.ensureAccount();
    await first.client.save("main", { gems: 3 });
    await first.client.sync({ force: true });
    expect(await first.client.account.linkProvider("firebase", await mint("firebase", signer, subject))).toEqual({
      linked: true,
    });
    expect((await first.client.account.providers()).map((p) => p.provider)).toEqual(["firebase"]);

    const second = testClient(d, t.key);
    await second.client.start();
    const signedIn = await second.client.account.signIn("firebase", await mint("firebase", signer, subject));
    expect(signedIn).toEqual({ accountId: first.client.accountId!, isNewAccount: false });
    expect(second.client.load("main")).toEqual({ gems: 3 });
  });

  test("status() and status events follow idle, dirty, syncing, offline and back", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 10 });
    const net = switchableNetwork();
    const { client, clock } = testClient(d, t.key, { fetch: net.fetch });
    await client.ensureAccount();
    const states: Status["state"][] = [];
    client.on("status", (s) => states.push(s.state));
    expect(client.status()).toMatchObject({ state: "idle", pending: [], stopped: false });
    await client.save("main", { n: 1 });
    expect(client.status()).toMatchObject({ state: "dirty", pending: ["main"] });
    net.state.online = false;
    await clock.advance(0);
    await client.settled();
    expect(client.status()).toMatchObject({
      state: "offline",
      pending: ["main"],
      lastError: { code: "network_error", status: 0 },
    });
    net.state.online = true;
    await client.reconnected();
    expect(client.status()).toMatchObject({ state: "idle", pending: [] });
    expect(client.status().lastSyncAt).toBe(clock.now());
    expect(states).toEqual(["dirty", "syncing", "offline", "syncing", "idle"]);
  });

  test("a save the server refuses for good is reported for its slot and kept; the other slots still sync", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1 });
    const { client, clock } = testClient(d, t.key);
    await client.ensureAccount();
    const errors: { target?: string; code: string }[] = [];
    client.on("error", (e) => errors.push({ target: e.target, code: e.error.code }));
    await client.save("huge", { blob: "x".repeat(270_000) });
    await client.save("small", { n: 1 });
    await clock.advance(0);
    await client.settled();
    expect(errors).toEqual([{ target: "huge", code: "payload_too_large" }]);
    expect((await client.api.getSlot("small")).data).toEqual({ n: 1 });
    const status = client.status();
    expect(status).toMatchObject({
      state: "error",
      pending: ["huge"],
      refused: { huge: { code: "payload_too_large", status: 413 } },
    });
    // Not sent again until the game saves it again.
    await clock.advance(60_000);
    await client.settled();
    expect(errors).toHaveLength(1);
    await client.save("huge", { blob: "fits now" });
    await clock.advance(0);
    await client.settled();
    expect(client.status()).toMatchObject({ state: "idle", pending: [] });
    expect((await client.api.getSlot("huge")).data).toEqual({ blob: "fits now" });
  });
});
