import { describe, expect, test } from "bun:test";
import type { SessionDoc } from "../../services/accounts/repo.ts";
import { keptForever } from "../../services/accounts/sessions/prune-sessions.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { deployment, type startDistributed } from "../helpers/deployments.ts";
import { mongo } from "../helpers/infra.ts";
import { readUntil } from "../helpers/wait.ts";

/**
 * Ended sessions are deleted 30 days on (docs/using-the-api.md#sessions-and-devices), on the distributed deployment:
 * its processes keep real time, so the test dates two ended sessions' stored prune days in the past
 * through the store adapter, and a new accounts copy prunes them at start. (The embedded suite in
 * sessions.test.ts moves the clock instead.)
 */

describe("ended sessions are pruned (distributed: prune days set back through the store adapter)", () => {
  test("a signed-out and an expired session go, their tokens then 401 unauthorized; the live one and a deleted account's stay", async () => {
    const d = (await deployment("distributed")) as Awaited<ReturnType<typeof startDistributed>>;
    const { key } = await newTenant(d);
    const a = await newAccount(d, key, { deviceLabel: "kept" });
    const device = async (label: string) => {
      const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      return (
        await call(d, "POST", "/api/v1/account-transfer-codes/consume", {
          key,
          body: { transferCode, deviceLabel: label },
        })
      ).body.accountSessionToken as string;
    };
    const [lost, idle] = [await device("lost"), await device("idle")];
    const listed = (await a.call("GET", "/api/v1/accounts/{acc}/sessions")).body.sessions as {
      sessionId: string;
      deviceLabel: string;
    }[];
    expect(
      (
        await a.call(
          "DELETE",
          `/api/v1/accounts/{acc}/sessions/${listed.find((s) => s.deviceLabel === "lost")!.sessionId}`,
        )
      ).status,
    ).toBe(200);
    const gone = await newAccount(d, key);
    expect((await gone.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    const on = (session: string, accountId = a.accountId) =>
      call(d, "GET", `/api/v1/accounts/${accountId}`, { key, session });

    const store = await createMongoStore((await mongo()).url, d.db);
    try {
      const sessions = await store.collection<SessionDoc>("sessions");
      // The idle device's deadline passed 31 days ago; the lost one was signed out as long ago.
      const past = {
        lastUsedAt: "2020-01-01T00:00:00.000Z",
        expiresAt: "2020-01-02T00:00:00.000Z",
        pruneDay: "2020-02-01",
      };
      await sessions.update({ _id: sha256Hex(idle) }, past);
      await sessions.update({ _id: sha256Hex(lost) }, { pruneDay: "2020-02-01" });
      // The deleted account's session is kept for good once its cleanup has run.
      const kept = await readUntil(
        async () => (await sessions.get(sha256Hex(gone.session)))?.pruneDay,
        (day) => day === keptForever,
        20_000,
      );
      expect(kept).toBe(keptForever);
    } finally {
      await store.close();
    }
    expect((await on(idle)).body.error.code).toBe("session_expired");
    expect((await on(lost)).body.error.code).toBe("session_revoked");

    const copy = d.spawn("accounts");
    try {
      const pruned = await readUntil(
        () => on(lost),
        (r) => r.body.error?.code === "unauthorized",
        20_000,
      );
      expect([pruned.status, pruned.body.error.code]).toEqual([401, "unauthorized"]);
      const expired = await on(idle);
      expect([expired.status, expired.body.error.code]).toEqual([401, "unauthorized"]);
      expect((await on(a.session)).status).toBe(200);
      expect((await on(gone.session, gone.accountId)).body.error.code).toBe("account_deleted");
      const view = await admin(d, "GET", `/admin/v1/accounts/${a.accountId}`);
      expect(view.body.sessions.map((s: { deviceLabel: string }) => s.deviceLabel)).toEqual(["kept"]);
    } finally {
      copy.kill();
      await copy.exited;
    }
  });
});
