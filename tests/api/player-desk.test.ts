import { expect, test } from "bun:test";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

const accountAdmin = (accountId: string, path = "") => `/admin/v1/accounts/${accountId}${path}`;
const auditOf = async (d: Parameters<typeof admin>[0], target: string, action: string) =>
  (await admin(d, "GET", `/admin/v1/audit?target=${target}&action=${action}`)).body.entries as {
    reason?: string;
    after: any;
    actor: string;
  }[];

forEachDeployment("the player desk", { tenant: true }, ({ d, tenant }) => {
  test("an operator's edit of a slot with a reason is the next version, audited with the reason; the device on the old base gets the 409 with it", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", slotInfo: { lvl: 1 }, data: { gold: 1 } } });
    expect(
      (
        await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
          body: { baseVersion: 1, data: { gold: 2 } },
        })
      ).status,
    ).toBe(200);
    const edit = {
      baseVersion: 2,
      data: { gold: 500, hp: 100 },
      reason: "Refund: ticket 4711, lost 500 gold to a bug",
    };
    const edited = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/edit"), edit);
    expect([edited.status, edited.body.status, edited.body.version]).toEqual([200, "accepted", 3]);
    // A device still on version 2 syncs: the usual 409, carrying the operator's content.
    const stale = await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
      body: { baseVersion: 2, data: { gold: 3 } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      status: "conflict",
      version: 3,
      slot: { data: { gold: 500, hp: 100 }, slotInfo: { lvl: 1 } },
    });
    expect(stale.body.details.serverSlot.data).toEqual({ gold: 500, hp: 100 });
    const entries = await auditOf(d, acc.accountId, "adminEditSlot");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ reason: edit.reason, after: { version: 3, data: { gold: 500, hp: 100 } } });
    // The edit is a restore point like any sync, so it can be undone.
    const history = await admin(d, "GET", accountAdmin(acc.accountId, "/slots/main/history"));
    expect(history.body.snapshots.map((s: { version: number }) => s.version)).toEqual([3, 2, 1]);
  });

  test("a stale edit gets the 409 with the slot as stored, and bad input is 400; neither changes anything or is audited", async () => {
    const acc = await newAccount(d, tenant.key, { slot: { slotId: "main", data: { gold: 1 } } });
    await acc.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", { body: { baseVersion: 1, data: { gold: 2 } } });
    const stale = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/edit"), {
      baseVersion: 1,
      data: { gold: 9 },
      reason: "late",
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      status: "conflict",
      version: 2,
      slot: { data: { gold: 2 } },
      details: { reason: "base_version_mismatch" },
    });
    const refusals = [
      { baseVersion: 2, data: { gold: 9 } },
      { baseVersion: 2, data: { gold: 9 }, reason: "  " },
      { baseVersion: 0, data: {}, reason: "x" },
    ];
    for (const body of refusals) {
      const refused = await admin(d, "POST", accountAdmin(acc.accountId, "/slots/main/edit"), body);
      expect([refused.status, refused.body.error.code]).toEqual([400, "invalid_request"]);
    }
    expect(
      (
        await admin(d, "POST", accountAdmin(acc.accountId, "/slots/nope/edit"), {
          baseVersion: 1,
          data: {},
          reason: "x",
        })
      ).status,
    ).toBe(404);
    expect((await acc.call("GET", "/api/v1/accounts/{acc}/slots/main")).body).toMatchObject({
      version: 2,
      data: { gold: 2 },
    });
    expect(await auditOf(d, acc.accountId, "adminEditSlot")).toEqual([]);
  });

  test("an operator edits accountData with a reason, reads a restore point's content and restores it; devices get the 409", async () => {
    const acc = await newAccount(d, tenant.key, { accountData: { coins: 1 } });
    const edited = await admin(d, "POST", accountAdmin(acc.accountId, "/data/edit"), {
      baseVersion: 1,
      accountData: { coins: 50 },
      reason: "goodwill",
    });
    expect([edited.status, edited.body.version]).toEqual([200, 2]);
    const entry = (await auditOf(d, acc.accountId, "adminEditAccountData"))[0];
    expect(entry).toMatchObject({ reason: "goodwill", after: { account: { accountData: { coins: 50 } } } });
    const stale = await admin(d, "POST", accountAdmin(acc.accountId, "/data/edit"), {
      baseVersion: 1,
      accountData: { coins: 7 },
      reason: "late",
    });
    expect([stale.status, stale.body.account?.accountData]).toEqual([409, { coins: 50 }]);
    const point = await admin(d, "GET", accountAdmin(acc.accountId, "/history/1"));
    expect(point.status).toBe(200);
    expect(point.body).toEqual({
      accountId: acc.accountId,
      version: 1,
      createdAt: expect.any(String),
      accountData: { coins: 1 },
    });
    expect((await admin(d, "GET", accountAdmin(acc.accountId, "/history/9"))).status).toBe(404);
    const restored = await admin(d, "POST", accountAdmin(acc.accountId, "/restore"), { version: 1 });
    expect([restored.status, restored.body.version, restored.body.accountData]).toEqual([200, 3, { coins: 1 }]);
    const device = await acc.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 2, accountData: { coins: 2 } },
    });
    expect([device.status, device.body.account?.accountData]).toEqual([409, { coins: 1 }]);
  });

  test("save history, one restore point's content and restore through the admin API", async () => {
    const id = `save-${crypto.randomUUID().slice(0, 8)}`;
    const sync = (body: unknown) => call(d, "POST", `/api/v1/saves/${id}/sync`, { key: tenant.key, body });
    const operator = (method: string, path: string, body?: unknown) =>
      admin(d, method, `/admin/v1/projects/${tenant.projectId}/environments/stage/saves/${id}${path}`, body);
    await sync({ baseVersion: 0, externalUserId: "p", metadata: { lvl: 1 }, state: { hp: 10 } });
    await sync({ baseVersion: 1, metadata: { lvl: 2 }, state: { hp: 0 } });
    expect((await operator("GET", "/history")).body.restorePoints.map((p: { version: number }) => p.version)).toEqual([
      2, 1,
    ]);
    const point = await operator("GET", "/history/1");
    expect(point.status).toBe(200);
    expect(point.body).toEqual({
      saveId: id,
      version: 1,
      createdAt: expect.any(String),
      metadata: { lvl: 1 },
      state: { hp: 10 },
    });
    expect((await operator("GET", "/history/7")).status).toBe(404);
    const restored = await operator("POST", "/restore", { version: 1 });
    expect(restored.body.save).toMatchObject({ version: 3, state: { hp: 10 } });
    expect((await sync({ baseVersion: 2, state: { hp: 1 } })).body).toMatchObject({
      status: "conflict",
      save: { version: 3, state: { hp: 10 } },
    });
  });

  test("find by external reference with no project id: matches across projects and both environments", async () => {
    const other = await newTenant(d, "self_hosted", "prod");
    const subject = `steam-${crypto.randomUUID()}`;
    const ref = { externalAccountRef: { provider: "steam", subject }, playerRef: `p-${subject}` };
    const inStage = await newAccount(d, tenant.key, ref);
    const inProd = await newAccount(d, other.key, ref);
    await newAccount(d, other.key, { externalAccountRef: { provider: "steam", subject: `${subject}-not` } });
    const found = await admin(d, "GET", `/admin/v1/accounts?provider=steam&subject=${subject}`);
    expect(found.status).toBe(200);
    expect(found.body.accounts).toEqual([
      {
        accountId: inStage.accountId,
        projectId: tenant.projectId,
        environment: "stage",
        status: "active",
        playerRef: ref.playerRef,
        externalAccountRef: ref.externalAccountRef,
        createdAt: expect.any(String),
      },
      {
        accountId: inProd.accountId,
        projectId: other.projectId,
        environment: "prod",
        status: "active",
        playerRef: ref.playerRef,
        externalAccountRef: ref.externalAccountRef,
        createdAt: expect.any(String),
      },
    ]);
    const ids = (r: { body: { accounts: { accountId: string }[] } }) => r.body.accounts.map((a) => a.accountId);
    expect(ids(await admin(d, "GET", `/admin/v1/accounts?playerRef=${ref.playerRef}`))).toEqual([
      inStage.accountId,
      inProd.accountId,
    ]);
    expect(
      ids(await admin(d, "GET", `/admin/v1/accounts?playerRef=${ref.playerRef}&workspaceId=${other.workspaceId}`)),
    ).toEqual([inProd.accountId]);
    expect(ids(await admin(d, "GET", `/admin/v1/accounts?accountId=${inProd.accountId}`))).toEqual([inProd.accountId]);
    expect((await admin(d, "GET", `/admin/v1/accounts?provider=steam`)).status).toBe(400);
    expect((await admin(d, "GET", `/admin/v1/accounts?playerRef=x&workspaceId=wsp_nope`)).status).toBe(404);
    expect((await admin(d, "GET", `/admin/v1/accounts?playerRef=x&workspaceId=nope`)).status).toBe(400);
  });
});
