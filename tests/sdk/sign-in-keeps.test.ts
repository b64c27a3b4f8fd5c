import { expect, test } from "bun:test";
import { SavepointError, type TransferPrompt } from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

/** A tenant with Firebase sign-in on test keys; `token(subject)` mints an identity's token. */
async function withFirebase(d: AnyServer) {
  const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1, forceSyncCooldownSeconds: 1 });
  const keys = startKeyServer();
  const signer = await newSigner("RS256");
  const jwksUrl = keys.publish(`/firebase/${t.projectId}`, [signer]);
  const settings = { enabled: true, ...testProviders.firebase.settings, jwksUrl };
  await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/environments/stage/auth-providers/firebase`, settings);
  return { t, token: (subject: string) => mint("firebase", signer, subject) };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as SavepointError,
  );

// Signing in never drops saves the server does not have without saying so (sdk/README.md, Moving devices).
forEachDeployment("sdk: provider sign-in keeps unsynced saves", ({ d }) => {
  test("a device whose session was signed out signs in again: its changes are kept and pushed", async () => {
    const { t, token } = await withFirebase(d);
    const subject = `u-${crypto.randomUUID()}`;
    const { client, clock } = testClient(d, t.key);
    const accountId = await client.ensureAccount();
    await client.account.linkProvider("firebase", await token(subject));
    await client.save("main", { coins: 1 });
    await client.sync({ force: true });
    await client.api.signOutCurrent();
    await client.save("main", { coins: 2 });
    await clock.advance(1_000);
    expect((await client.sync({ force: true })).status).toBe("refused");

    expect(await client.account.signIn("firebase", await token(subject))).toEqual({ accountId, isNewAccount: false });
    expect(client.load("main")).toEqual({ coins: 2 });
    await clock.advance(1_000);
    await client.settled();
    expect(await client.api.getSlot("main")).toMatchObject({ version: 2, data: { coins: 2 } });
  });

  test("saves made before any account go into the account a first sign-in opens", async () => {
    const { t, token } = await withFirebase(d);
    const { client } = testClient(d, t.key);
    await client.start();
    await client.save("main", { level: 4 });
    const signedIn = await client.account.signIn("firebase", await token(`u-${crypto.randomUUID()}`));
    expect(signedIn.isNewAccount).toBe(true);
    expect(client.load("main")).toEqual({ level: 4 });
    expect((await client.sync({ force: true })).status).toBe("synced");
    expect((await client.api.getSlot("main")).data).toEqual({ level: 4 });
  });

  test("signing in to another account with unsynced saves: refused without a confirm; the prompt names them", async () => {
    const { t, token } = await withFirebase(d);
    const subject = `u-${crypto.randomUUID()}`;
    const owner = testClient(d, t.key).client;
    const theirs = await owner.ensureAccount();
    await owner.account.linkProvider("firebase", await token(subject));

    const { client } = testClient(d, t.key);
    await client.start();
    await client.save("main", { level: 4 });
    const refused = await caught(client.account.signIn("firebase", await token(subject)));
    expect(refused).toBeInstanceOf(SavepointError);
    expect(refused).toMatchObject({ code: "unsynced_saves", details: { pending: ["main"] } });
    expect(client.accountId).toBeUndefined();
    expect(client.load("main")).toEqual({ level: 4 });

    const prompts: TransferPrompt[] = [];
    expect(
      await client.account.signIn("firebase", await token(subject), (p) => {
        prompts.push(p);
        return true;
      }),
    ).toEqual({
      accountId: theirs,
      isNewAccount: false,
    });
    expect(prompts.map((p) => [p.incoming.accountId, p.unsynced])).toEqual([
      [theirs, [{ target: "main", data: { level: 4 }, saves: 1 }]],
    ]);
    expect(client.accountId).toBe(theirs);
    expect(client.slots()).toEqual([]);
  });

  test("a device whose account has another identity of that provider signs in to the identity's account (as the C# client does)", async () => {
    const { t, token } = await withFirebase(d);
    const [mine, theirs] = [`u-${crypto.randomUUID()}`, `u-${crypto.randomUUID()}`];
    const owner = testClient(d, t.key).client;
    const ownerAccount = await owner.ensureAccount();
    await owner.account.linkProvider("firebase", await token(theirs));

    const { client } = testClient(d, t.key);
    const accountId = await client.ensureAccount();
    await client.account.linkProvider("firebase", await token(mine));
    expect(await client.account.signIn("firebase", await token(theirs))).toEqual({
      accountId: ownerAccount,
      isNewAccount: false,
    });
    expect(client.accountId).toBe(ownerAccount);
    expect(accountId).not.toBe(ownerAccount);
    // A subject no account has yet: a new account, not a second identity of the provider on this one.
    const fresh = await client.account.signIn("firebase", await token(`u-${crypto.randomUUID()}`));
    expect(fresh.isNewAccount).toBe(true);
    expect(client.accountId).toBe(fresh.accountId);
    expect((await client.account.providers()).length).toBe(1);
  });
});
