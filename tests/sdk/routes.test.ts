import { beforeAll, expect, test } from "bun:test";
import { SavepointApi, SavepointError, systemClock } from "../../sdk/src/index.ts";
import { admin, newTenant } from "../helpers/api.ts";
import { stripeTestSecret } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";
import { event, sign } from "../helpers/stripe-events.ts";
import type { AnyServer } from "./helpers.ts";

let d: AnyServer;

/** A raw API client holding one device's session, as the SDK's client does. */
function device(key: string) {
  const holder: { session?: { accountId: string; token: string } } = {};
  const api = new SavepointApi({
    baseUrl: d.base,
    runtimeKey: key,
    clock: systemClock,
    retry: { attempts: 1 },
    session: () => holder.session,
  });
  return { api, holder };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as SavepointError,
  );

// Every runtime route through the SDK against both real deployments (sdk/README.md).
forEachDeployment("sdk: every runtime route", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("routes 1-3, 6, 8, 11-16: health, config, accounts, account data and slots; conflicts are values, errors typed", async () => {
    const t = await newTenant(d);
    expect(await device(t.key).api.health()).toEqual({ ok: true });
    await admin(d, "POST", `/admin/v1/projects/${t.projectId}/environments/stage/game-config`, {
      data: { difficulty: 3 },
    });
    const { api, holder } = device(t.key);
    const config = await api.runtimeConfig();
    expect(config.config!.syncPolicy.maxQueuedLocalSnapshots).toBe(25);
    expect(config.config!.gameConfig).toMatchObject({ enabled: true, version: 1, data: { difficulty: 3 } });
    expect((await api.runtimeConfig(1)).config!.gameConfig).toMatchObject({ unchanged: true, version: 1 });
    expect((await api.runtimeConfig(undefined, config.etag)).notModified).toBe(true);

    const created = await api.createAccount({
      accountData: { coins: 1 },
      slot: { slotId: "main", data: { level: 1 } },
    });
    expect(created.slot!.version).toBe(1);
    holder.session = { accountId: created.accountId, token: created.accountSessionToken };
    expect((await api.getAccount()).accountData).toEqual({ coins: 1 });

    const accepted = await api.syncAccountData({ baseVersion: 1, accountData: { coins: 2 } });
    expect(accepted).toMatchObject({ status: "accepted", version: 2 });
    const stale = await api.syncAccountData({ baseVersion: 1, accountData: { coins: 9 } });
    expect(stale.status).toBe("conflict");
    if (stale.status === "conflict") expect(stale.account.accountData).toEqual({ coins: 2 });

    const side = await api.createSlot({ slotId: "side", data: { a: 1 }, slotInfo: { label: "B" } });
    expect(side).toMatchObject({ slotId: "side", version: 1, slotInfo: { label: "B" } });
    expect((await api.listSlots()).slots.map((s) => s.slotId).sort()).toEqual(["main", "side"]);
    expect((await api.syncSlot("main", { baseVersion: 1, data: { level: 2 } })).status).toBe("accepted");
    const slotConflict = await api.syncSlot("main", { baseVersion: 1, data: { level: 9 } });
    expect(slotConflict.status).toBe("conflict");
    if (slotConflict.status === "conflict") expect(slotConflict.slot).toMatchObject({ version: 2, data: { level: 2 } });
    expect((await api.getSlot("main")).data).toEqual({ level: 2 });

    const archived = await api.archiveSlot("side");
    expect(archived.slots.map((s) => s.slotId)).toEqual(["main"]);
    const onArchived = await caught(api.syncSlot("side", { baseVersion: 1, data: {} }));
    expect(onArchived).toBeInstanceOf(SavepointError);
    expect(onArchived).toMatchObject({ code: "slot_archived", status: 409, details: { slotId: "side" } });
    expect(await api.deleteSlot("side")).toMatchObject({ slotId: "side", alreadyDeleted: false });
    expect(await caught(api.createSlot({ slotId: "main", data: {} }))).toMatchObject({
      code: "slot_already_exists",
      status: 409,
    });
    expect(await caught(api.createSlot({ slotId: "bad id", data: {} }))).toMatchObject({
      code: "invalid_request",
      status: 400,
    });
  });

  test("routes 9, 10 and 7: a transfer code moves the account; a deleted account is a typed 410", async () => {
    const t = await newTenant(d);
    const old = device(t.key);
    const created = await old.api.createAccount({ accountData: { gems: 5 } });
    old.holder.session = { accountId: created.accountId, token: created.accountSessionToken };
    const code = await old.api.createTransferCode({ ttlSeconds: 120, deviceLabel: "old phone" });
    expect(code.expiresInSeconds).toBe(120);
    const fresh = device(t.key);
    const moved = await fresh.api.consumeTransferCode({ transferCode: code.transferCode, deviceLabel: "new phone" });
    expect(moved.account.accountData).toEqual({ gems: 5 });
    expect(await caught(fresh.api.consumeTransferCode({ transferCode: code.transferCode }))).toMatchObject({
      code: "transfer_code_consumed",
      status: 400,
    });

    expect(await old.api.deleteAccount()).toMatchObject({ accountId: created.accountId, alreadyDeleted: false });
    expect(await caught(old.api.getAccount())).toMatchObject({ code: "account_deleted", status: 410 });
  });

  test("routes 4 and 5: a provider token signs in and links; the linked provider is listed", async () => {
    const t = await newTenant(d);
    const keys = startKeyServer();
    const signer = await newSigner("RS256");
    const jwksUrl = keys.publish(`/firebase/${t.projectId}`, [signer]);
    const settings = { enabled: true, ...testProviders.firebase.settings, jwksUrl };
    await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/environments/stage/auth-providers/firebase`, settings);
    const { api, holder } = device(t.key);
    const signedIn = await api.exchangeAuthSession({
      provider: "firebase",
      token: await mint("firebase", signer, `u-${crypto.randomUUID()}`),
    });
    expect(signedIn).toMatchObject({ isNewAccount: true, linkedProvider: "firebase" });
    holder.session = { accountId: signedIn.accountId, token: signedIn.accountSessionToken };
    const providers = await api.listLinkedProviders();
    expect(providers.map((p) => p.provider)).toEqual(["firebase"]);
    const refused = await caught(api.exchangeAuthSession({ provider: "firebase", token: "not-a-token" }));
    expect(refused).toMatchObject({ code: "firebase_token_invalid", status: 400 });
  });

  test("route 17 and route 18 with its load: Stripe events and the save-based model", async () => {
    const t = await newTenant(d);
    const { api } = device(t.key);
    const payload = JSON.stringify(event("product.created", { id: "prod_1", object: "product" }));
    expect(await api.stripeWebhook(payload, await sign(payload, stripeTestSecret))).toEqual({ received: false });
    expect(await caught(api.stripeWebhook(payload, "t=1,v1=bad"))).toMatchObject({
      code: "invalid_signature",
      status: 400,
    });

    const saveId = `save_${crypto.randomUUID()}`;
    const first = await api.syncSave(saveId, { baseVersion: 0, externalUserId: "player-1", state: { hp: 10 } });
    expect(first).toMatchObject({ status: "accepted", save: { version: 1, state: { hp: 10 } } });
    const stale = await api.syncSave(saveId, { baseVersion: 0, state: { hp: 1 } });
    expect(stale.status).toBe("conflict");
    expect((await api.getSave(saveId)).save.state).toEqual({ hp: 10 });
    expect(await caught(api.getSave("never-made"))).toMatchObject({ code: "not_found", status: 404 });
  });

  test("an error code the SDK does not know, or an answer that is not the envelope, is still a typed SavepointError", async () => {
    const odd = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) =>
        new URL(req.url).pathname === "/healthz"
          ? Response.json(
              { error: { code: "brand_new_code", message: "newer", details: { hint: 1 } } },
              { status: 422, headers: { "retry-after": "7" } },
            )
          : new Response("<html>bad gateway</html>", { status: 502 }),
    });
    try {
      const api = new SavepointApi({
        baseUrl: `http://127.0.0.1:${odd.port}`,
        runtimeKey: "k",
        clock: systemClock,
        retry: { attempts: 1 },
      });
      expect(await caught(api.health())).toMatchObject({
        code: "brand_new_code",
        status: 422,
        details: { hint: 1 },
        retryAfterSeconds: 7,
      });
      expect(await caught(api.createAccount())).toMatchObject({ code: "http_502", status: 502 });
    } finally {
      odd.stop(true);
    }
  });
});
