import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { commandNamed } from "../../cli/commands.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { type Answer, admin, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";

/**
 * Players' devices (docs/using-the-api.md#sessions-and-devices): the account's sessions listed for the player, this
 * device or another signed out (refused at once on every gateway copy), and sessions expiring after
 * the project's `sessionIdleDays` without use.
 */

const sessionsOf = (d: Deployment, key: string, accountId: string, session: string) =>
  call(d, "GET", `/api/v1/accounts/${accountId}/sessions`, { key, session });
const codeOf = (a: Answer) => a.body?.error?.code;

// Two gateway copies: a sign-out answered by one must be refused by the other at once.
forEachDeployment(
  "players' devices",
  { distributed: { copies: { gateway: 2 } }, tenant: true },
  ({ setup: s, tenant }) => {
    /** An account created on one phone (labelled at creation) and moved to a second with a transfer code. */
    async function twoDevices(first = "old phone", second = "new phone") {
      const a = await newAccount(s.d, tenant.key, { deviceLabel: first });
      const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
      const moved = await call(s.d, "POST", "/api/v1/account-transfer-codes/consume", {
        key: tenant.key,
        body: { transferCode, deviceLabel: second },
      });
      expect(moved.status).toBe(200);
      const phone: string = moved.body.accountSessionToken;
      const list = (session = a.session) => sessionsOf(s.d, tenant.key, a.accountId, session);
      const ids = (await list()).body.sessions.map((x: { sessionId: string }) => x.sessionId) as string[];
      return { a, phone, list, firstId: ids[0]!, secondId: ids[1]! };
    }

    test("the player lists the account's devices: labels (also route 3's), times, `current` for the caller, never a token", async () => {
      const { a, phone, list } = await twoDevices();
      const seen = await list(phone);
      const times = { createdAt: expect.any(String), lastUsedAt: expect.any(String) };
      expect(seen.status).toBe(200);
      expect(seen.body).toEqual({
        accountId: a.accountId,
        sessions: [
          { sessionId: expect.stringMatching(/^ses_/), deviceLabel: "old phone", ...times, current: false },
          { sessionId: expect.stringMatching(/^ses_/), deviceLabel: "new phone", ...times, current: true },
        ],
      });
      // The other device sees the same list with itself marked.
      expect((await list()).body.sessions.map((x: { current: boolean }) => x.current)).toEqual([true, false]);
      const text = JSON.stringify(seen.body);
      for (const token of [a.session, phone]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(sha256Hex(token));
      }
    });

    test("signing out this device refuses its next request with session_revoked on every gateway copy, four times over", async () => {
      for (let round = 0; round < 4; round++) {
        const { a, phone, list, secondId } = await twoDevices();
        const onPhone = { key: tenant.key, session: phone };
        // Both copies hold the phone's session in their caches before it signs out.
        for (const via of [s.d, s.other])
          expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}`, onPhone)).status).toBe(200);

        // Answered by one copy, then asked of the other copy first; the copies swap roles each round.
        const [answering, asked] = round % 2 === 0 ? [s.d, s.other] : [s.other, s.d];
        const out = await call(answering, "DELETE", `/api/v1/accounts/${a.accountId}/sessions/current`, onPhone);
        expect(out.status).toBe(200);
        expect(out.body).toEqual({ sessionId: secondId, revokedAt: expect.any(String) });
        for (const via of [asked, answering]) {
          const next = await call(via, "GET", `/api/v1/accounts/${a.accountId}`, onPhone);
          expect([next.status, codeOf(next)]).toEqual([401, "session_revoked"]);
        }
        // The first device is untouched, and the signed-out one is no longer listed.
        const left = await list();
        expect(left.status).toBe(200);
        expect(left.body.sessions.map((x: { deviceLabel: string }) => x.deviceLabel)).toEqual(["old phone"]);
      }
    });

    test("signing out another device (a lost phone): refused on both copies, the caller keeps working, a repeat is the same answer", async () => {
      const { a, phone, list, secondId } = await twoDevices("tablet", "lost phone");
      const onPhone = { key: tenant.key, session: phone };
      for (const via of [s.d, s.other])
        expect((await call(via, "GET", `/api/v1/accounts/${a.accountId}/slots`, onPhone)).status).toBe(200);

      const out = await a.call("DELETE", `/api/v1/accounts/{acc}/sessions/${secondId}`);
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ sessionId: secondId, revokedAt: expect.any(String) });
      for (const via of [s.other, s.d]) {
        const next = await call(via, "GET", `/api/v1/accounts/${a.accountId}/slots`, onPhone);
        expect([next.status, codeOf(next)]).toEqual([401, "session_revoked"]);
      }
      expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
      expect(
        (await list()).body.sessions.map((x: { deviceLabel: string; current: boolean }) => [x.deviceLabel, x.current]),
      ).toEqual([["tablet", true]]);
      const again = await a.call("DELETE", `/api/v1/accounts/{acc}/sessions/${secondId}`);
      expect(again.body).toEqual(out.body);
    });

    test("another account's session cannot list or sign out (403), and a foreign session id through its own path is 404", async () => {
      const { a, list, firstId, secondId } = await twoDevices();
      const x = await newAccount(s.d, tenant.key);
      const before = (await list()).body;
      const asX = { key: tenant.key, session: x.session };
      for (const [method, path] of [
        ["GET", `/api/v1/accounts/${a.accountId}/sessions`],
        ["DELETE", `/api/v1/accounts/${a.accountId}/sessions/current`],
        ["DELETE", `/api/v1/accounts/${a.accountId}/sessions/${firstId}`],
      ] as const) {
        const r = await call(s.d, method, path, asX);
        expect([method, path, r.status, codeOf(r)]).toEqual([method, path, 403, "forbidden"]);
      }
      const foreign = await x.call("DELETE", `/api/v1/accounts/{acc}/sessions/${secondId}`);
      expect([foreign.status, codeOf(foreign)]).toEqual([404, "not_found"]);
      // Read back: both of a's devices still listed and working; x still works too.
      expect((await list()).body).toEqual(before);
      expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
      expect((await x.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    });

    test("bad input to each new route is refused in the envelope and changes nothing", async () => {
      const { a, phone, list } = await twoDevices();
      const before = (await list()).body;
      const bad: [string, string, Record<string, unknown>, number, string][] = [
        [
          "DELETE",
          `/api/v1/accounts/${a.accountId}/sessions/not-a-session`,
          { key: tenant.key, session: a.session },
          400,
          "invalid_request",
        ],
        [
          "DELETE",
          `/api/v1/accounts/${a.accountId}/sessions/ses_${"x".repeat(3)}%00`,
          { key: tenant.key, session: a.session },
          400,
          "invalid_request",
        ],
        [
          "DELETE",
          `/api/v1/accounts/${a.accountId}/sessions/ses_unknown0`,
          { key: tenant.key, session: a.session },
          404,
          "not_found",
        ],
        ["GET", "/api/v1/accounts/acc_bad!/sessions", { key: tenant.key, session: a.session }, 400, "invalid_request"],
        ["GET", `/api/v1/accounts/${a.accountId}/sessions`, { key: tenant.key }, 401, "unauthorized"],
        [
          "DELETE",
          `/api/v1/accounts/${a.accountId}/sessions/current`,
          { key: tenant.key, session: "sps_made_up" },
          401,
          "unauthorized",
        ],
        ["DELETE", `/api/v1/accounts/${a.accountId}/sessions/current`, { session: phone }, 401, "unauthorized"],
        [
          "DELETE",
          `/api/v1/accounts/${a.accountId}/sessions/current`,
          { key: "not-a-key", session: phone },
          401,
          "unauthorized",
        ],
        [
          "POST",
          `/api/v1/accounts/${a.accountId}/sessions`,
          { key: tenant.key, session: a.session },
          405,
          "method_not_allowed",
        ],
      ];
      for (const [method, path, o, status, code] of bad) {
        const r = await call(s.d, method, path, o);
        expect([method, path, r.status, code]).toEqual([method, path, status, codeOf(r)]);
        expect(Object.keys(r.body)).toEqual(["error"]);
      }
      // The unauthorized messages say what to send and where.
      const noKey = await call(s.d, "GET", `/api/v1/accounts/${a.accountId}/sessions`, { session: phone });
      expect(noKey.body.error.message).toContain("Authorization: Bearer spk_<env>_");
      const noSession = await call(s.d, "GET", `/api/v1/accounts/${a.accountId}/sessions`, { key: tenant.key });
      expect(noSession.body.error.message).toContain("X-Service-Account-Session");
      const madeUp = await call(s.d, "GET", `/api/v1/accounts/${a.accountId}/sessions`, {
        key: tenant.key,
        session: "sps_made_up",
      });
      expect(madeUp.body.error.message).toContain("X-Service-Account-Session");
      expect((await list()).body).toEqual(before);
      for (const session of [a.session, phone]) {
        expect((await call(s.d, "GET", `/api/v1/accounts/${a.accountId}`, { key: tenant.key, session })).status).toBe(
          200,
        );
      }

      // Route 3's deviceLabel: at most 80 characters of text.
      for (const deviceLabel of ["x".repeat(81), 5, null]) {
        const r = await call(s.d, "POST", "/api/v1/accounts", { key: tenant.key, body: { deviceLabel } });
        expect([r.status, codeOf(r)]).toEqual([400, "invalid_request"]);
      }
      const longest = await newAccount(s.d, tenant.key, { deviceLabel: "x".repeat(80) });
      expect((await sessionsOf(s.d, tenant.key, longest.accountId, longest.session)).body.sessions[0].deviceLabel).toBe(
        "x".repeat(80),
      );
    });

    test("sessionIdleDays: 180 by default, set by the settings PUT within 1..3650, bad values change nothing", async () => {
      const t = await newTenant(s.d);
      const put = (body: unknown) => admin(s.d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, body);
      expect((await put({})).body.sessionIdleDays).toBe(180);
      expect((await put({ sessionIdleDays: 30 })).body.sessionIdleDays).toBe(30);
      for (const sessionIdleDays of [0, -1, 1.5, "30", 3651, null]) {
        const r = await put({ sessionIdleDays });
        expect([sessionIdleDays, r.status, codeOf(r)]).toEqual([sessionIdleDays, 400, "invalid_request"]);
      }
      expect((await put({})).body.sessionIdleDays).toBe(30);
    });
  },
);

describe("session lifetime (embedded, controllable clock)", () => {
  // The services' and the gateway's clock; the distributed deployment's processes read the real one
  // (there is no clock setting), so this runs embedded only.
  let clock = Date.now();
  let d: Deployment;
  const day = 86_400_000;
  beforeAll(async () => {
    d = await startEmbedded({}, { now: () => new Date(clock) });
  });
  afterAll(async () => {
    await d?.stop();
  });

  test("the CLI sets it: `settings set --sessionIdleDays N`", () => {
    expect(commandNamed("settings set")!.flags.find((f) => f.name === "sessionIdleDays")).toMatchObject({
      kind: "integer",
      in: "body",
      required: false,
    });
  });

  test("a session idle past sessionIdleDays is 401 session_expired and no longer listed; one used within the window lives on", async () => {
    const t = await newTenant(d);
    expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { sessionIdleDays: 30 })).status).toBe(
      200,
    );
    const idle = await newAccount(d, t.key, { deviceLabel: "drawer phone" });
    const used = await newAccount(d, t.key, { deviceLabel: "daily phone" });
    const { transferCode } = (await used.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const spare = (
      await call(d, "POST", "/api/v1/account-transfer-codes/consume", {
        key: t.key,
        body: { transferCode, deviceLabel: "spare tablet" },
      })
    ).body;
    const spareSession: string = spare.accountSessionToken;

    clock += 20 * day;
    expect((await used.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);

    clock += 20 * day; // 40 days after creation, 20 after the daily phone's last use
    const expired = await idle.call("GET", "/api/v1/accounts/{acc}");
    expect([expired.status, codeOf(expired)]).toEqual([401, "session_expired"]);
    expect(expired.body.error.message).toContain("30 days");
    const spareNow = await call(d, "GET", `/api/v1/accounts/${used.accountId}`, { key: t.key, session: spareSession });
    expect([spareNow.status, codeOf(spareNow)]).toEqual([401, "session_expired"]);
    const listed = await used.call("GET", "/api/v1/accounts/{acc}/sessions");
    expect(listed.body.sessions.map((x: { deviceLabel: string }) => x.deviceLabel)).toEqual(["daily phone"]);

    // The gateway judges its cache on the same clock: the daily phone is resolved afresh, 20 days
    // after its last use, lives, and that use is recorded.
    expect((await used.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    type Seen = { sessionId: string; deviceLabel: string; lastUsedAt: string };
    const view = async () => (await admin(d, "GET", `/admin/v1/accounts/${used.accountId}`)).body.sessions as Seen[];
    expect((await view()).find((x) => x.deviceLabel === "daily phone")!.lastUsedAt).toBe(new Date(clock).toISOString());
    // An expired device can still be signed out; then it is revoked, not expired.
    const tablet = (await view()).find((x) => x.deviceLabel === "spare tablet")!;
    expect((await used.call("DELETE", `/api/v1/accounts/{acc}/sessions/${tablet.sessionId}`)).status).toBe(200);
    expect(
      codeOf(await call(d, "GET", `/api/v1/accounts/${used.accountId}`, { key: t.key, session: spareSession })),
    ).toBe("session_revoked");

    // Expired stays expired: moving on does not bring it back.
    clock += 1 * day;
    expect(codeOf(await idle.call("GET", "/api/v1/accounts/{acc}"))).toBe("session_expired");
  });

  test("raising sessionIdleDays never revives an expired session; lowering it shortens a live one; a raise counts from the next use", async () => {
    const t = await newTenant(d);
    const put = async (sessionIdleDays: number) => {
      expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { sessionIdleDays })).status).toBe(
        200,
      );
      clock += 60_000; // past the gateways' 30-second cache of resolved sessions
    };
    await put(30);
    const drawer = await newAccount(d, t.key, { deviceLabel: "drawer phone" });
    clock += 20 * day;
    const daily = await newAccount(d, t.key, { deviceLabel: "daily phone" });
    const tablet = await newAccount(d, t.key, { deviceLabel: "tablet" });
    clock += 11 * day; // the drawer phone: 31 days unused
    const expired = await drawer.call("GET", "/api/v1/accounts/{acc}");
    expect([expired.status, codeOf(expired)]).toEqual([401, "session_expired"]);

    await put(365);
    const raised = await drawer.call("GET", "/api/v1/accounts/{acc}");
    expect([raised.status, codeOf(raised)]).toEqual([401, "session_expired"]);
    expect(raised.body.error.message).toContain("30 days");
    // A live session is used under the raised setting: its deadline is now a year from that use.
    expect((await tablet.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);

    await put(10); // the daily phone: 11 days unused, over the lowered limit
    const lowered = await daily.call("GET", "/api/v1/accounts/{acc}");
    expect([lowered.status, codeOf(lowered)]).toEqual([401, "session_expired"]);
    await put(365);
    expect(codeOf(await daily.call("GET", "/api/v1/accounts/{acc}"))).toBe("session_expired");
    expect(codeOf(await drawer.call("GET", "/api/v1/accounts/{acc}"))).toBe("session_expired");
    clock += 40 * day;
    expect((await tablet.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
  });

  test("revoked and expired sessions are deleted 30 days on: their tokens then answer 401 unauthorized; live ones and a deleted account's stay", async () => {
    const t = await newTenant(d);
    expect((await admin(d, "PUT", `/admin/v1/projects/${t.projectId}/settings`, { sessionIdleDays: 30 })).status).toBe(
      200,
    );
    const a = await newAccount(d, t.key, { deviceLabel: "kept phone" });
    const { transferCode } = (await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const moved = await call(d, "POST", "/api/v1/account-transfer-codes/consume", {
      key: t.key,
      body: { transferCode, deviceLabel: "lost" },
    });
    const lost: string = moved.body.accountSessionToken;
    const lostId = (await a.call("GET", "/api/v1/accounts/{acc}/sessions")).body.sessions.find(
      (x: { current: boolean }) => !x.current,
    ).sessionId;
    expect((await a.call("DELETE", `/api/v1/accounts/{acc}/sessions/${lostId}`)).status).toBe(200);
    const idle = await newAccount(d, t.key, { deviceLabel: "idle" });
    const gone = await newAccount(d, t.key);
    expect((await gone.call("DELETE", "/api/v1/accounts/{acc}")).status).toBe(200);
    const onLost = () => call(d, "GET", `/api/v1/accounts/${a.accountId}`, { key: t.key, session: lost });
    const stored = async (accountId: string) =>
      (await admin(d, "GET", `/admin/v1/accounts/${accountId}`)).body.sessions?.length;

    clock += 29 * day;
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect(codeOf(await onLost())).toBe("session_revoked");
    clock += 2 * day;
    await newAccount(d, t.key); // the day's first session opened prunes
    const pruned = await onLost();
    expect([pruned.status, codeOf(pruned)]).toEqual([401, "unauthorized"]);
    expect(await stored(a.accountId)).toBe(1);
    expect(codeOf(await idle.call("GET", "/api/v1/accounts/{acc}"))).toBe("session_expired");

    clock += 24 * day; // day 55
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    clock += 6 * day; // day 61: the idle one expired on day 30, 31 days ago
    await newAccount(d, t.key);
    const expiredLong = await idle.call("GET", "/api/v1/accounts/{acc}");
    expect([expiredLong.status, codeOf(expiredLong)]).toEqual([401, "unauthorized"]);
    expect(await stored(idle.accountId)).toBe(0);
    expect((await a.call("GET", "/api/v1/accounts/{acc}")).status).toBe(200);
    expect(codeOf(await gone.call("GET", "/api/v1/accounts/{acc}"))).toBe("account_deleted");
  });
});
