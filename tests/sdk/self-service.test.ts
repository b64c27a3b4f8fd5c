import { beforeAll, expect, test } from "bun:test";
import {
  type ClientOptions,
  type ConflictEvent,
  type Events,
  type SavepointClient,
  SavepointError,
  type Session,
} from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as SavepointError,
  );
const policy = { minRemoteSyncIntervalSeconds: 1, forceSyncCooldownSeconds: 1 };

/** One device on a fresh tenant (self_hosted keeps a restore point of every version). */
async function device(key: string, o: Partial<ClientOptions> = {}) {
  const { client, clock } = testClient(d, key, o);
  /** Saves, then lets the policy's interval pass so the engine pushes it. */
  const saveAndSync = async (slotId: string, data: Record<string, unknown>) => {
    await client.save(slotId, data);
    await clock.advance(1_000);
    await client.settled();
  };
  return { client, clock, saveAndSync };
}

/** A second device of `from`'s account, through a transfer code the player confirms. */
async function secondDevice(key: string, from: SavepointClient, o: Partial<ClientOptions> = {}) {
  const other = await device(key, o);
  await other.client.start();
  const code = await from.account.createTransferCode();
  expect(await other.client.account.attachTransferCode(code.transferCode, () => true)).toBe(true);
  return other;
}

// The player's own routes through the SDK (README, Player self-service), against both real deployments.
forEachDeployment("sdk: player self-service", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("restore points of a slot: listed, read, restored; the other device's next sync gets the 409 and keeps the restored content", async () => {
    const t = await tenantWithPolicy(d, policy);
    const phone = await device(t.key);
    await phone.client.ensureAccount();
    for (const n of [1, 2, 3]) await phone.saveAndSync("main", { n, gems: n * 10 });
    const tablet = await secondDevice(t.key, phone.client);
    expect(tablet.client.load("main")).toEqual({ n: 3, gems: 30 });

    const listed = await phone.client.api.slotHistory("main");
    expect(listed.restorePoints.map((p) => p.version)).toEqual([3, 2, 1]);
    const page = await phone.client.account.history("main", { limit: 2 });
    expect(page.restorePoints.map((p) => p.version)).toEqual([3, 2]);
    const rest = await phone.client.account.history("main", { limit: 2, cursor: page.next! });
    expect(rest.restorePoints.map((p) => p.version)).toEqual([1]);
    expect(await phone.client.api.slotHistoryVersion("main", 1)).toMatchObject({
      slotId: "main",
      version: 1,
      data: { n: 1, gems: 10 },
    });

    // A stale restore is a conflict value carrying the server's slot, not a throw.
    const stale = await phone.client.api.restoreSlot("main", { version: 1, baseVersion: 2 });
    expect(stale.status).toBe("conflict");
    if (stale.status === "conflict") expect(stale.slot).toMatchObject({ version: 3, data: { n: 3, gems: 30 } });

    // The tablet saves on version 3 while the phone restores version 1 (the server's version 4).
    await tablet.client.save("main", { n: 4, gems: 35 });
    expect(await phone.client.account.restore("main", 1)).toBe(4);
    expect(phone.client.load("main")).toEqual({ n: 1, gems: 10 });

    const conflicts: ConflictEvent[] = [];
    tablet.client.on("conflict", (c) => conflicts.push(c));
    await tablet.clock.advance(1_000);
    await tablet.client.settled();
    // The default resolution merges three ways against the base (version 3): the tablet's change wins its fields.
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({
      serverVersion: 4,
      base: { n: 3, gems: 30 },
      server: { n: 1, gems: 10 },
      local: { n: 4, gems: 35 },
    });
    const onServer = await phone.client.api.getSlot("main");
    expect(onServer).toMatchObject({ version: 5, data: conflicts[0]!.merged });
    expect(tablet.client.load("main")).toEqual(conflicts[0]!.merged);
    expect((await phone.client.api.slotHistory("main")).restorePoints.map((p) => p.version)).toEqual([5, 4, 3, 2, 1]);
  });

  test('a restore the other device resolves with resolve: "server" ends with the restored content on both', async () => {
    const t = await tenantWithPolicy(d, policy);
    const phone = await device(t.key);
    await phone.client.ensureAccount();
    for (const n of [1, 2]) await phone.saveAndSync("main", { n });
    const tablet = await secondDevice(t.key, phone.client, { resolve: "server" });
    await tablet.client.save("main", { n: 99 });
    expect(await phone.client.account.restore("main", 1)).toBe(3);

    const conflicts: ConflictEvent[] = [];
    tablet.client.on("conflict", (c) => conflicts.push(c));
    await tablet.clock.advance(1_000);
    await tablet.client.settled();
    expect(conflicts.map((c) => c.merged)).toEqual([{ n: 1 }]);
    expect(tablet.client.load("main")).toEqual({ n: 1 });
    expect(tablet.client.status()).toMatchObject({ state: "idle", pending: [] });
    expect(await phone.client.api.getSlot("main")).toMatchObject({ version: 3, data: { n: 1 } });
  });

  test("restore points of the account data: listed, read, restored; a version not kept is a typed 404", async () => {
    const t = await tenantWithPolicy(d, policy);
    const { client, clock } = await device(t.key);
    await client.ensureAccount({ accountData: { coins: 1 } });
    for (const coins of [2, 3]) {
      await client.saveAccountData({ coins });
      await clock.advance(1_000);
      await client.settled();
    }
    const listed = await client.api.accountDataHistory({ limit: 10 });
    expect(listed.restorePoints.map((p) => p.version)).toEqual([3, 2, 1]);
    expect(await client.api.accountDataHistoryVersion(1)).toMatchObject({ version: 1, accountData: { coins: 1 } });
    expect(await caught(client.api.accountDataHistoryVersion(42))).toMatchObject({ code: "not_found", status: 404 });

    const stale = await client.api.restoreAccountData({ version: 1, baseVersion: 2 });
    expect(stale.status).toBe("conflict");
    const restored = await client.api.restoreAccountData({ version: 1, baseVersion: 3 });
    expect(restored).toMatchObject({ status: "accepted", version: 4 });
    expect((await client.api.getAccount()).accountData).toEqual({ coins: 1 });
  });

  test("devices: listed with the current one marked; revoking another stops its engine; signing out revokes this one", async () => {
    const t = await tenantWithPolicy(d, policy);
    const phone = await device(t.key);
    await phone.client.ensureAccount();
    await phone.saveAndSync("main", { n: 1 });
    const tablet = await secondDevice(t.key, phone.client);

    const devices = await phone.client.account.devices();
    expect(devices).toHaveLength(2);
    expect(devices.filter((s) => s.current)).toHaveLength(1);
    const tabletSession = (await tablet.client.api.listSessions()).sessions.find((s) => s.current)!;
    expect(devices.find((s) => !s.current)!.sessionId).toBe(tabletSession.sessionId);

    const revoked = await phone.client.account.signOutDevice(tabletSession.sessionId);
    expect(revoked).toMatchObject({ sessionId: tabletSession.sessionId, revokedAt: expect.any(String) });
    const stopped: Events["stopped"][] = [];
    tablet.client.on("stopped", (s) => stopped.push(s));
    await tablet.saveAndSync("main", { n: 2 });
    expect(stopped.map((s) => s.error.code)).toEqual(["session_revoked"]);
    expect(tablet.client.status()).toMatchObject({ stopped: true, pending: ["main"] });
    expect((await phone.client.api.getSlot("main")).data).toEqual({ n: 1 });

    const session = (await phone.client.store.getValue<Session>("session"))!;
    await phone.client.account.signOut();
    expect(phone.client.accountId).toBeUndefined();
    const after = await caught(phone.client.api.getAccount(session.accountId, { session }));
    expect(after).toBeInstanceOf(SavepointError);
    expect(after).toMatchObject({ code: "session_revoked", status: 401 });
  });

  test("a save of the save-based model is deleted with its history; deleting again says so; reading it is a typed 404", async () => {
    const t = await tenantWithPolicy(d, policy);
    const { client } = await device(t.key);
    const saveId = `save_${crypto.randomUUID()}`;
    await client.api.syncSave(saveId, { baseVersion: 0, externalUserId: "player-1", state: { hp: 10 } });
    expect(await client.api.deleteSave(saveId)).toMatchObject({
      saveId,
      alreadyDeleted: false,
      deletedAt: expect.any(String),
    });
    expect(await client.api.deleteSave(saveId)).toMatchObject({ saveId, alreadyDeleted: true });
    expect(await caught(client.api.getSave(saveId))).toMatchObject({ code: "not_found", status: 404 });
  });
});
