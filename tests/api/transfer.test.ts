import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createMongoStore } from "../../shared/store/mongo.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mongo } from "../helpers/infra.ts";
import { capturingLogger, filesIn, mongoDump } from "../helpers/kept.ts";

const consumePath = "/api/v1/account-transfer-codes/consume";
const codeShape = /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/;
/** A client address of its own per test, named through the trusted loopback proxy. */
const newClient = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;

/** Each deployment with what it takes to move its clock past a code's expiry, and to read all it kept. */
interface Setup {
  d: Deployment;
  /** Another gateway copy of the same deployment (the same one when there is only one). */
  other: Deployment;
  expireCodesOf(accountId: string): Promise<void>;
  /** Every log line and every stored byte, as text. */
  everythingKept(): Promise<string>;
  stop(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  let offsetMs = 0;
  const lines: string[] = [];
  const log = capturingLogger(lines);
  const d = await startEmbedded({}, { now: () => new Date(Date.now() + offsetMs), log });
  return {
    d,
    other: d,
    expireCodesOf: async () => {
      offsetMs += 601_000;
    },
    everythingKept: async () => [...lines, ...filesIn(d.dataDir)].join("\n"),
    stop: () => d.stop(),
  };
}

async function distributed(): Promise<Setup> {
  const d = await startDistributed({ copies: { gateway: 2, transfer: 2 }, env: { LOG_LEVEL: "debug" } });
  const other: Deployment = { ...d, request: (path, init) => fetch(`${d.bases[1]}${path}`, init) };
  return {
    d,
    other,
    // Processes keep real time: the test moves the stored expiry instead of the clock.
    expireCodesOf: async (accountId) => {
      const store = await createMongoStore((await mongo()).url, d.db);
      const codes = await store.collection<{ _id: string; accountId: string; expiresAt: string }>("transferCodes");
      await codes.updateMany({ accountId }, { expiresAt: new Date(Date.now() - 1_000).toISOString() });
      await store.close();
    },
    everythingKept: async () => [...(await mongoDump(d.db)), ...filesIn(d.logs, "utf8")].join("\n"),
    stop: () => d.stop(),
  };
}

forEachDeployment("transfer codes", { start: { embedded, distributed }, tenant: true }, ({ setup: s, tenant }) => {
  const consume = (transferCode: unknown, o: CallOptions & { ip?: string; via?: Deployment; withKey?: string } = {}) =>
    call(o.via ?? s.d, "POST", consumePath, {
      key: o.withKey ?? tenant.key,
      headers: { "x-forwarded-for": o.ip ?? newClient() },
      body: { transferCode, ...(o.body as object) },
    });

  test("full flow: device B takes over with a code and syncs; device A keeps its session and sees the conflict", async () => {
    const a = await newAccount(s.d, tenant.key, {
      accountData: { coins: 5 },
      slot: { slotId: "main", data: { hp: 100 } },
    });
    expect(
      (await a.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", { body: { baseVersion: 1, data: { hp: 80 } } }))
        .status,
    ).toBe(200);
    const created = await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", {
      body: { deviceLabel: "old phone" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      transferCode: expect.stringMatching(codeShape),
      expiresAt: expect.any(String),
      expiresInSeconds: 600,
    });
    expect(Date.parse(created.body.expiresAt) - Date.now()).toBeGreaterThan(590_000);

    // Typed on the new phone: lower case, spaces instead of the hyphen.
    const typed = ` ${created.body.transferCode.toLowerCase().replace("-", " ")} `;
    const b = await consume(typed, { body: { deviceLabel: "new phone" } });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      accountId: a.accountId,
      account: {
        accountId: a.accountId,
        accountData: { coins: 5 },
        version: 1,
        slots: [{ slotId: "main", version: 2 }],
      },
    });
    expect(b.body.accountSessionToken).toMatch(/^sps_/);
    expect(b.body.accountSessionToken).not.toBe(a.session);
    expect(b.body.syncPolicy.minRemoteSyncIntervalSeconds).toBeGreaterThan(0);

    const onB = { key: tenant.key, session: b.body.accountSessionToken as string };
    expect((await call(s.d, "GET", `/api/v1/accounts/${a.accountId}/slots/main`, onB)).body).toMatchObject({
      version: 2,
      data: { hp: 80 },
    });
    expect(
      (
        await call(s.d, "POST", `/api/v1/accounts/${a.accountId}/slots/main/sync`, {
          ...onB,
          body: { baseVersion: 2, data: { hp: 60 } },
        })
      ).status,
    ).toBe(200);
    const stale = await a.call("POST", "/api/v1/accounts/{acc}/slots/main/sync", {
      body: { baseVersion: 2, data: { hp: 999 } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ status: "conflict", version: 3, slot: { data: { hp: 60 } } });
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);

    const again = await consume(created.body.transferCode);
    expect([again.status, again.body.error.code]).toEqual([400, "transfer_code_consumed"]);
  });

  test("20 concurrent consumes of one code: exactly 1 succeeds, 19 are transfer_code_consumed", async () => {
    const a = await newAccount(s.d, tenant.key);
    const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => consume(transferCode, { via: i % 2 ? s.other : s.d })),
    );
    expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 400 && x.body.error.code === "transfer_code_consumed")).toHaveLength(19);
  });

  test("an expired code is transfer_code_expired", async () => {
    const a = await newAccount(s.d, tenant.key);
    const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    await s.expireCodesOf(a.accountId);
    const late = await consume(transferCode);
    expect([late.status, late.body.error.code]).toEqual([400, "transfer_code_expired"]);
  });

  test("bad input: missing body, wrong length or alphabet, long label; ttl is clamped", async () => {
    const a = await newAccount(s.d, tenant.key);
    const missing = await call(s.d, "POST", consumePath, {
      key: tenant.key,
      headers: { "x-forwarded-for": newClient() },
    });
    expect([missing.status, missing.body.error.code]).toEqual([400, "invalid_request"]);
    for (const bad of ["ABCDE-FGHJ", "ABCDE-FGHJKM", "ABCDE-FGHJU", "ABCDE_FGHJK", ""]) {
      const answer = await consume(bad);
      expect([bad, answer.status]).toEqual([bad, 400]);
      expect(["transfer_code_invalid", "invalid_request"]).toContain(answer.body.error.code);
    }
    expect((await consume("ABCDE-FGHJU")).body.error.code).toBe("transfer_code_invalid");
    const longLabel = await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", {
      body: { deviceLabel: "x".repeat(81) },
    });
    expect([longLabel.status, longLabel.body.error.code]).toEqual([400, "invalid_request"]);
    expect(
      (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { deviceLabel: "x".repeat(80) } })).status,
    ).toBe(201);
    expect((await consume("AAAAA-AAAAA", { body: { deviceLabel: "y".repeat(81) } })).body.error.code).toBe(
      "invalid_request",
    );
    expect(
      (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { ttlSeconds: 59 } })).body
        .expiresInSeconds,
    ).toBe(60);
    expect(
      (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { ttlSeconds: 1801 } })).body
        .expiresInSeconds,
    ).toBe(1800);
    expect((await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { ttlSeconds: 6.5 } })).status).toBe(
      400,
    );
  });

  test("a code of another environment is invalid there; a deleted account's code is 410", async () => {
    const a = await newAccount(s.d, tenant.key);
    const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const elsewhere = await newTenant(s.d);
    const foreign = await consume(transferCode, { withKey: elsewhere.key });
    expect([foreign.status, foreign.body.error.code]).toEqual([400, "transfer_code_invalid"]);

    expect((await a.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    const gone = await consume(transferCode);
    expect([gone.status, gone.body.error.code]).toEqual([410, "account_deleted"]);
  });

  test("a sixth unconsumed code retires the oldest", async () => {
    const a = await newAccount(s.d, tenant.key);
    const codes: string[] = [];
    for (let i = 0; i < 6; i++)
      codes.push((await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body.transferCode);
    expect((await consume(codes[0])).body.error.code).toBe("transfer_code_invalid");
    expect((await consume(codes[1])).status).toBe(200);
  });

  test("a code never appears in a log line or a stored document", async () => {
    const a = await newAccount(s.d, tenant.key);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++)
      codes.push(
        (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: { deviceLabel: "old" } })).body
          .transferCode,
      );
    expect((await consume(codes[0]!.toLowerCase())).status).toBe(200);
    expect((await consume(codes[0])).status).toBe(400);
    // One character off (a code ending in Z would be itself with Z: 1 run in 32 failed so).
    const typo = `${codes[1]!.slice(0, 10)}${codes[1]!.endsWith("Z") ? "Y" : "Z"}`;
    expect((await consume(typo)).status).toBe(400);
    await Bun.sleep(200); // log files are written asynchronously
    const kept = await s.everythingKept();
    expect(kept).toContain(a.accountId); // the dump does reach the stored documents
    for (const code of codes) {
      expect(kept).not.toContain(code);
      expect(kept).not.toContain(code.replace("-", ""));
      expect(kept.toLowerCase()).not.toContain(code.toLowerCase().replace("-", ""));
    }
  });

  test("an account keeps at most 100 live sessions: the 101st revokes the least recently used, never the device that made the code", async () => {
    const a = await newAccount(s.d, tenant.key);
    const first = { key: tenant.key, session: a.session };
    for (const via of [s.d, s.other])
      expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}`, first)).status).toBe(200);
    const sessions: string[] = [];
    // All within a minute or two: the first device's recorded last use is older than every new session's.
    for (let i = 0; i < 101; i++) {
      const made = await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes");
      expect([i, made.status]).toEqual([i, 201]);
      const { transferCode } = made.body;
      const taken = await consume(transferCode, { via: i % 2 ? s.other : s.d });
      expect([i, taken.status]).toEqual([i, 200]);
      sessions.push(taken.body.accountSessionToken);
    }
    // 102 sessions: the two least recently used other than the code's maker are revoked, also where cached.
    for (const via of [s.d, s.other])
      expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}`, first)).status).toBe(200);
    for (const session of [sessions[0]!, sessions[1]!]) {
      const refused = await call(s.other, "GET", `/api/v1/accounts/${a.accountId}`, { key: tenant.key, session });
      expect([refused.status, refused.body.error?.code]).toEqual([401, "session_revoked"]);
    }
    for (const session of [sessions[2]!, sessions[100]!]) {
      expect((await call(s.other, "GET", `/api/v1/accounts/${a.accountId}`, { key: tenant.key, session })).status).toBe(
        200,
      );
    }
    const view = await admin(s.d, "GET", `/admin/v1/accounts/${a.accountId}?limit=200`);
    expect(view.body.page.sessionCount).toBe(102);
    expect(view.body.sessions.filter((x: { revokedAt?: string }) => !x.revokedAt).length).toBe(100);
  });

  test("sessions are devices: operators see label and use, and revoke one at once, also where it was cached", async () => {
    const a = await newAccount(s.d, tenant.key);
    const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const b = await consume(transferCode, { body: { deviceLabel: "Pixel 8" } });
    const onB = { key: tenant.key, session: b.body.accountSessionToken as string };
    // Both gateway copies have B's session cached before the revocation.
    for (const via of [s.d, s.other])
      expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}`, onB)).status).toBe(200);

    const view = await admin(s.d, "GET", `/admin/v1/accounts/${a.accountId}`);
    const device = view.body.sessions.find((x: { deviceLabel?: string }) => x.deviceLabel === "Pixel 8");
    expect(device).toEqual({
      sessionId: expect.stringMatching(/^ses_/),
      deviceLabel: "Pixel 8",
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    expect(JSON.stringify(view.body)).not.toContain(onB.session);

    const revoked = await admin(s.d, "DELETE", `/admin/v1/accounts/${a.accountId}/sessions/${device.sessionId}`);
    expect(revoked.body).toEqual({
      accountId: a.accountId,
      sessionId: device.sessionId,
      revokedAt: expect.any(String),
    });
    for (const via of [s.d, s.other])
      expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}`, onB)).status).toBe(401);
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect((await admin(s.d, "DELETE", `/admin/v1/accounts/${a.accountId}/sessions/ses_unknown`)).status).toBe(404);
  });
});

describe("spent transfer codes are deleted after a day's grace (embedded: the test moves the clock)", () => {
  let offsetMs = 0;
  let d: Awaited<ReturnType<typeof startEmbedded>>;
  beforeAll(async () => {
    d = await startEmbedded({}, { now: () => new Date(Date.now() + offsetMs) });
  });
  afterAll(() => d.stop());

  test("consumed, expired and retired codes go once the day after their expiry has passed; active ones stay", async () => {
    const { key } = await newTenant(d);
    const a = await newAccount(d, key);
    const codeOf = async () =>
      (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body.transferCode as string;
    const consume = (transferCode: string) =>
      call(d, "POST", consumePath, { key, headers: { "x-forwarded-for": newClient() }, body: { transferCode } });
    const consumed = await codeOf();
    expect((await consume(consumed)).status).toBe(200);
    const retired = await codeOf();
    const expiring = await codeOf();
    for (let i = 0; i < 4; i++) await codeOf();
    expect((await consume(retired)).body.error.code).toBe("transfer_code_invalid");
    const store = createSqliteStore(join(d.dataDir, "transfer.sqlite"));
    const codes = await store.collection<{ _id: string; accountId: string }>("transferCodes");
    expect(await codes.count({ accountId: a.accountId })).toBe(7);

    offsetMs += 23 * 3_600_000; // within the grace: the answers still tell what happened
    expect((await consume(consumed)).body.error.code).toBe("transfer_code_consumed");
    expect((await consume(expiring)).body.error.code).toBe("transfer_code_expired");
    offsetMs += 2 * 86_400_000;
    const fresh = await codeOf(); // the day's first code prunes
    expect(await codes.count({ accountId: a.accountId })).toBe(1);
    for (const gone of [consumed, expiring, retired])
      expect((await consume(gone)).body.error.code).toBe("transfer_code_invalid");
    expect((await consume(fresh)).status).toBe(200);
    await store.close();
  });
});

describe("codes made within one millisecond (embedded: the clock stands still)", () => {
  const frozen = new Date();
  let d: Awaited<ReturnType<typeof startEmbedded>>;
  beforeAll(async () => {
    d = await startEmbedded({}, { now: () => frozen });
  });
  afterAll(() => d.stop());

  test("a sixth unconsumed code still retires the oldest, and never the one just answered", async () => {
    const { key } = await newTenant(d);
    const a = await newAccount(d, key);
    const codes: string[] = [];
    for (let i = 0; i < 6; i++)
      codes.push((await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body.transferCode);
    const consume = (transferCode: string) =>
      call(d, "POST", consumePath, { key, headers: { "x-forwarded-for": newClient() }, body: { transferCode } });
    expect((await consume(codes[0]!)).body.error?.code).toBe("transfer_code_invalid");
    for (const code of codes.slice(1).reverse()) expect((await consume(code)).status).toBe(200);
  });
});
