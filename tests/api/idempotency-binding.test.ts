import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { callEndpoint } from "../../shared/serving/call.ts";
import { sha256Hex } from "../../shared/util/crypto.ts";
import { type Answer, admin, type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { type Deployment, deployment, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { mint, newSigner, startKeyServer, testProviders } from "../helpers/identity-providers.ts";

/**
 * docs/api-rules.md#idempotent-retries: a replay that hands out a session token (routes 3, 4, 10) is bound to the
 * client address that made the first request. A key that a second client also sends (a constant, a hash
 * of the body) gets it 409 and nothing: no token, no account, no session.
 */
const keyed = (key: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  headers: { ...o.headers, "idempotency-key": key },
});
const first = "203.0.113.10";
const second = "203.0.113.20";
const from = (ip: string, o: CallOptions): CallOptions => ({ ...o, headers: { ...o.headers, "x-forwarded-for": ip } });
/** Keys that pass the 128-bit rule though nothing about them is secret. */
const guessable = () => ["0".repeat(32), "a".repeat(43), sha256Hex(crypto.randomUUID())];

const keyServer = startKeyServer();

function expectRefused(answer: Answer, token: string) {
  expect([answer.status, answer.body.error?.code, answer.body.error?.details?.reason]).toEqual([
    409,
    "idempotency_key_reused",
    "other_client",
  ]);
  expect(answer.body.accountSessionToken).toBeUndefined();
  expect(JSON.stringify(answer.body)).not.toContain(token);
}
const sessionsOf = async (d: Deployment, accountId: string) =>
  (await admin(d, "GET", `/admin/v1/accounts/${accountId}`)).body.sessions.length;

forEachDeployment("replays that hand out a session belong to the first client", ({ name }) => {
  test("route 3: the same address gets the account again; another is 409 with no token, and no account or session is made", async () => {
    const d = await deployment(name);
    const t = await newTenant(d);
    for (const key of guessable()) {
      const playerRef = `p-${crypto.randomUUID()}`;
      const send = (ip: string) =>
        call(d, "POST", "/api/v1/accounts", keyed(key, from(ip, { key: t.key, body: { playerRef } })));
      const made = await send(first);
      expect(made.status).toBe(201);
      const again = await send(first);
      expect([again.status, again.headers.get("idempotent-replayed"), again.body.accountSessionToken]).toEqual([
        201,
        "true",
        made.body.accountSessionToken,
      ]);
      expectRefused(await send(second), made.body.accountSessionToken);
      const found = await admin(
        d,
        "GET",
        `/admin/v1/projects/${t.projectId}/environments/stage/accounts?playerRef=${playerRef}`,
      );
      expect(found.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([made.body.accountId]);
      expect(await sessionsOf(d, made.body.accountId)).toBe(1);
    }
  });

  test("route 10: a consumed code's replay is the first device's alone; from another address 409, and no session is added", async () => {
    const d = await deployment(name);
    const t = await newTenant(d);
    const acc = await newAccount(d, t.key);
    const { transferCode } = (await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes")).body;
    const key = "0".repeat(32);
    const send = (ip: string) =>
      call(
        d,
        "POST",
        "/api/v1/account-transfer-codes/consume",
        keyed(key, from(ip, { key: t.key, body: { transferCode } })),
      );
    const moved = await send(first);
    expect(moved.status).toBe(200);
    const again = await send(first);
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.accountSessionToken]).toEqual([
      200,
      "true",
      moved.body.accountSessionToken,
    ]);
    // The code is spent: the other client's request with it and the same key is still not the first device's session.
    expectRefused(await send(second), moved.body.accountSessionToken);
    expect(await sessionsOf(d, acc.accountId)).toBe(2);
  });

  test("route 4: a provider sign-in's replay from another address is 409 with no token", async () => {
    const d = await deployment(name);
    const t = await newTenant(d);
    const signer = await newSigner("RS256");
    const jwksUrl = keyServer.publish(`/bind/${t.projectId}`, [signer]);
    const path = `/admin/v1/projects/${t.projectId}/environments/stage/auth-providers/firebase`;
    expect((await admin(d, "PUT", path, { enabled: true, ...testProviders.firebase.settings, jwksUrl })).status).toBe(
      200,
    );
    const token = await mint("firebase", signer, `user-${crypto.randomUUID()}`);
    const key = sha256Hex(token);
    const send = (ip: string) =>
      call(
        d,
        "POST",
        "/api/v1/accounts/auth/session",
        keyed(key, from(ip, { key: t.key, body: { provider: "firebase", token } })),
      );
    const signedIn = await send(first);
    expect(signedIn.status).toBe(200);
    expect((await send(first)).body).toEqual(signedIn.body);
    expectRefused(await send(second), signedIn.body.accountSessionToken);
    expect(await sessionsOf(d, signedIn.body.accountId)).toBe(1);
  });
});

describe("the client a replay is bound to is the gateway's (SAVEPOINT_TRUSTED_PROXIES)", () => {
  let d: Awaited<ReturnType<typeof startEmbedded>>;
  beforeAll(async () => {
    d = await startEmbedded({ SAVEPOINT_TRUSTED_PROXIES: "" });
  });
  afterAll(() => d.stop());

  test("from a peer that is no trusted proxy, X-Forwarded-For names nobody: the same peer gets its replay whatever it claims", async () => {
    const t = await newTenant(d);
    const key = "0".repeat(32);
    const send = (ip: string) => call(d, "POST", "/api/v1/accounts", keyed(key, from(ip, { key: t.key, body: {} })));
    const made = await send(first);
    expect(made.status).toBe(201);
    const again = await send(second);
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.accountSessionToken]).toEqual([
      201,
      "true",
      made.body.accountSessionToken,
    ]);
  });
});

/** A replay of a session expired since is refused like a signed-out one (401 `session_expired`); the clock is moved. */
describe("a replayed session that expired since", () => {
  let clock = Date.now();
  let d: Awaited<ReturnType<typeof startEmbedded>>;
  beforeAll(async () => {
    d = await startEmbedded({}, { now: () => new Date(clock) });
  });
  afterAll(() => d.stop());

  test("the replay view of an account's session idle past sessionIdleDays is 401 session_expired; one in use is given", async () => {
    const t = await newTenant(d);
    const made = await call(d, "POST", "/api/v1/accounts", keyed(crypto.randomUUID(), { key: t.key, body: {} }));
    expect(made.status).toBe(201);
    const tokenHash = sha256Hex(made.body.accountSessionToken);
    const view = (sessionIdleDays: number) =>
      callEndpoint(d.bus, internal.replayView, {
        envId: `${t.projectId}:stage`,
        accountId: made.body.accountId,
        tokenHash,
        sessionIdleDays,
      });
    expect((await view(30)).account.accountId).toBe(made.body.accountId);
    clock += 31 * 86_400_000;
    const refused = await view(30).catch((err: unknown) => err);
    expect(isAppError(refused) ? [refused.code, refused.message] : refused).toEqual([
      "session_expired",
      expect.stringContaining("30 days"),
    ]);
    expect((await view(60)).account.accountId).toBe(made.body.accountId);
  });
});
