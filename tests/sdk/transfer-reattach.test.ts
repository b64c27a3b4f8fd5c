import { expect, test } from "bun:test";
import { mergeRules, type SavepointClient, type TransferPrompt } from "../../sdk/src/index.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

const policy = { minRemoteSyncIntervalSeconds: 1, forceSyncCooldownSeconds: 1 };

/** A device that has pushed `main` once; `push()` lets the interval pass so the engine syncs. */
async function device(d: AnyServer, key: string, o: Parameters<typeof testClient>[2] = {}) {
  const { client, clock } = testClient(d, key, o);
  const push = async () => {
    await clock.advance(1_000);
    await client.settled();
  };
  return { client, clock, push };
}

/** The session this client holds ends on the server (signed out from another device), as an expired one would. */
async function endSession(client: SavepointClient, from: SavepointClient) {
  const mine = (await client.api.listSessions()).sessions.find((s) => s.current)!;
  await from.account.signOutDevice(mine.sessionId);
}

// A device that lost its session comes back with a transfer code (sdk/README.md, Moving devices).
forEachDeployment("sdk: re-attaching with a transfer code", ({ d }) => {
  test("to its own account: every change saved while signed out is kept, pushed, and merged with what changed meanwhile", async () => {
    const t = await tenantWithPolicy(d, policy);
    const phone = await device(d, t.key, { resolve: mergeRules({ coins: "sum" }) });
    const accountId = await phone.client.ensureAccount();
    await phone.client.save("main", { coins: 10 });
    await phone.push();
    const tablet = await device(d, t.key);
    await tablet.client.start();
    expect(
      await tablet.client.account.attachTransferCode(
        (await phone.client.account.createTransferCode()).transferCode,
        () => true,
      ),
    ).toBe(true);

    await endSession(phone.client, tablet.client);
    await phone.client.save("main", { coins: 99 });
    await phone.push();
    expect(phone.client.status()).toMatchObject({ stopped: true, pending: ["main"] });
    // Meanwhile the tablet earns 5 on the server's version 1.
    await tablet.client.save("main", { coins: 15 });
    await tablet.push();

    const prompts: TransferPrompt[] = [];
    const code = (await tablet.client.account.createTransferCode()).transferCode;
    expect(
      await phone.client.account.attachTransferCode(code, (p) => {
        prompts.push(p);
        return true;
      }),
    ).toBe(true);
    expect(phone.client.load("main")).toEqual({ coins: 99 });
    expect(phone.client.localSnapshots("main").map((s) => s.data)).toContainEqual({ coins: 99 });
    expect(phone.client.accountId).toBe(accountId);
    // Nothing is replaced, so nothing is asked.
    expect(prompts).toEqual([]);
    await phone.push();
    // 10 + (15 - 10) + (99 - 10): both devices' progress.
    expect(await tablet.client.api.getSlot("main")).toMatchObject({ version: 3, data: { coins: 104 } });
    expect(phone.client.status()).toMatchObject({ state: "idle", pending: [], stopped: false });
    expect(phone.client.load("main")).toEqual({ coins: 104 });
  });

  test("to another account: the prompt names what would be lost, and declining keeps all of it", async () => {
    const t = await tenantWithPolicy(d, policy);
    const mine = await device(d, t.key);
    const myAccount = await mine.client.ensureAccount();
    await mine.client.save("main", { level: 2 });
    await mine.push();
    // Signed out on the server (as an expired session would be): these changes cannot leave any more.
    await mine.client.api.signOutCurrent();
    await mine.client.save("main", { level: 3 }, { label: "castle" });
    await mine.client.saveAccountData({ gems: 7 });
    await mine.push();
    expect(mine.client.status()).toMatchObject({ stopped: true });
    expect(mine.client.status().pending.sort()).toEqual(["accountData", "main"]);

    const other = await device(d, t.key);
    const otherAccount = await other.client.ensureAccount();
    await other.client.save("main", { level: 40 });
    await other.push();

    const prompts: TransferPrompt[] = [];
    const declined = (await other.client.account.createTransferCode()).transferCode;
    expect(
      await mine.client.account.attachTransferCode(declined, (p) => {
        prompts.push(p);
        return false;
      }),
    ).toBe(false);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      currentAccountId: myAccount,
      sameAccount: false,
      incoming: { accountId: otherAccount },
    });
    const lost = [...prompts[0]!.unsynced].sort((a, b) => a.target.localeCompare(b.target));
    expect(lost).toEqual([
      { target: "accountData", data: { gems: 7 }, saves: 1 },
      { target: "main", data: { level: 3 }, slotInfo: { label: "castle" }, saves: 1 },
    ]);
    expect(mine.client.accountId).toBe(myAccount);
    expect(mine.client.load("main")).toEqual({ level: 3 });
    expect(mine.client.status().pending.sort()).toEqual(["accountData", "main"]);
    expect(mine.client.localSnapshots("main").map((s) => s.data)).toEqual([{ level: 2 }, { level: 3 }]);

    // Confirmed, the player was told: the device holds the other account now.
    const accepted = (await other.client.account.createTransferCode()).transferCode;
    expect(await mine.client.account.attachTransferCode(accepted, () => true)).toBe(true);
    expect(mine.client.accountId).toBe(otherAccount);
    expect(mine.client.load("main")).toEqual({ level: 40 });
  });
});
