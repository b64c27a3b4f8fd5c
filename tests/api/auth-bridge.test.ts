import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { createMongoStore } from "../../shared/store/mongo.ts";
import type { Store } from "../../shared/store/port.ts";
import { createSqliteStore } from "../../shared/store/sqlite.ts";
import { admin, type CallOptions, call, newAccount, newTenant } from "../helpers/api.ts";
import { awayFromWindowEnd } from "../helpers/clock.ts";
import { type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { spawnEmbedded } from "../helpers/embedded-process.ts";
import {
  hostileTokens,
  mint,
  newSigner,
  type ProviderName,
  type Signer,
  startHangingKeyServer,
  startKeyServer,
  testProviders,
} from "../helpers/identity-providers.ts";
import { mongo, tempDir } from "../helpers/infra.ts";
import { capturingLogger, filesIn, mongoDump } from "../helpers/kept.ts";
import { freePort } from "../helpers/ports.ts";

const exchangePath = "/api/v1/accounts/auth/session";
const providerNames: ProviderName[] = ["firebase", "supabase", "auth0"];
const keyServer = startKeyServer();
const newClient = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;
const newSubject = (p: string) => `${p}|user-${crypto.randomUUID()}`;

interface Setup {
  d: Deployment;
  other: Deployment;
  /** Every log line and every stored byte, as text. */
  everythingKept(): Promise<string>;
  /** The accounts store, read directly: how many accounts an environment holds. */
  accountsIn(envId: string): Promise<number>;
  stop(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const lines: string[] = [];
  const log = capturingLogger(lines);
  const d = await startEmbedded({}, { log });
  return {
    d,
    other: d,
    everythingKept: async () => [...lines, ...filesIn(d.dataDir)].join("\n"),
    accountsIn: (envId) => countAccounts(createSqliteStore(join(d.dataDir, "accounts.sqlite")), envId),
    stop: () => d.stop(),
  };
}

async function distributed(): Promise<Setup> {
  const d = await startDistributed({ copies: { gateway: 2 }, env: { LOG_LEVEL: "debug" } });
  return {
    d,
    other: { ...d, request: (path, init) => fetch(`${d.bases[1]}${path}`, init) },
    everythingKept: async () => [...(await mongoDump(d.db)), ...filesIn(d.logs, "utf8")].join("\n"),
    accountsIn: async (envId) => countAccounts(await createMongoStore((await mongo()).url, d.db), envId),
    stop: () => d.stop(),
  };
}

async function countAccounts(store: Store, envId: string) {
  try {
    return await (await store.collection<{ _id: string; envId: string }>("accounts")).count({ envId });
  } finally {
    await store.close();
  }
}

/** A tenant with all three providers configured, each with its own key set. */
async function configuredTenant(d: Deployment, plan = "self_hosted", environment: "stage" | "prod" = "stage") {
  const t = await newTenant(d, plan, environment);
  const signers = {} as Record<ProviderName, Signer>;
  const paths = {} as Record<ProviderName, string>;
  for (const p of providerNames) {
    signers[p] = await newSigner(testProviders[p].alg);
    paths[p] = `/${p}/${t.projectId}/${environment}`;
    const jwksUrl = keyServer.publish(paths[p], [signers[p]]);
    const set = await admin(
      d,
      "PUT",
      `/admin/v1/projects/${t.projectId}/environments/${environment}/auth-providers/${p}`,
      { enabled: true, ...testProviders[p].settings, jwksUrl },
    );
    expect(set.status).toBe(200);
  }
  return { ...t, signers, paths };
}

forEachDeployment(
  "auth bridge",
  { start: { embedded, distributed }, tenant: (d) => configuredTenant(d) },
  ({ name, setup: s, tenant: t }) => {
    const exchange = (
      provider: string,
      token: string,
      o: CallOptions & { key?: string; ip?: string; via?: Deployment; deviceLabel?: string } = {},
    ) =>
      call(o.via ?? s.d, "POST", exchangePath, {
        key: o.key ?? t.key,
        headers: { "x-forwarded-for": o.ip ?? newClient(), ...o.headers },
        body: { provider, token, ...(o.deviceLabel ? { deviceLabel: o.deviceLabel } : {}) },
      });
    const asSession = (accountId: string, session: string) => ({
      "x-service-account-id": accountId,
      "x-service-account-session": session,
    });

    for (const provider of providerNames) {
      test(`${provider}: a first sign-in opens an account; the next signs in to the same one`, async () => {
        const sub = newSubject(provider);
        const first = await exchange(provider, await mint(provider, t.signers[provider], sub), {
          deviceLabel: "phone",
        });
        expect(first.status).toBe(200);
        expect(first.body).toEqual({
          accountId: expect.stringMatching(/^acc_/),
          accountSessionToken: expect.stringMatching(/^sps_/),
          isNewAccount: true,
          linkedProvider: provider,
          wasProviderNewForAccount: true,
          syncPolicy: expect.objectContaining({ minRemoteSyncIntervalSeconds: expect.any(Number) }),
        });
        const read = await call(s.d, "GET", `/api/v1/accounts/${first.body.accountId}`, {
          key: t.key,
          session: first.body.accountSessionToken,
        });
        expect(read.status).toBe(200);

        const again = await exchange(provider, await mint(provider, t.signers[provider], sub));
        expect(again.body).toMatchObject({
          accountId: first.body.accountId,
          isNewAccount: false,
          wasProviderNewForAccount: false,
        });
        expect(again.body.accountSessionToken).not.toBe(first.body.accountSessionToken);
      });
    }

    test("a current session links the identity to its account; the identity cannot then link elsewhere", async () => {
      const a = await newAccount(s.d, t.key);
      const sub = newSubject("firebase");
      const token = await mint("firebase", t.signers.firebase, sub);
      const linked = await exchange("firebase", token, { headers: asSession(a.accountId, a.session) });
      expect(linked.body).toMatchObject({
        accountId: a.accountId,
        isNewAccount: false,
        wasProviderNewForAccount: true,
        linkedProvider: "firebase",
      });
      const relinked = await exchange("firebase", token, { headers: asSession(a.accountId, a.session) });
      expect(relinked.body).toMatchObject({ accountId: a.accountId, wasProviderNewForAccount: false });
      // Signed out, the identity signs in to that account.
      expect((await exchange("firebase", token)).body).toMatchObject({ accountId: a.accountId, isNewAccount: false });

      const b = await newAccount(s.d, t.key);
      const conflict = await exchange("firebase", token, { headers: asSession(b.accountId, b.session) });
      expect([conflict.status, conflict.body.error.code]).toEqual([409, "account_auth_conflict"]);
      const secondIdentity = await exchange(
        "firebase",
        await mint("firebase", t.signers.firebase, newSubject("firebase")),
        { headers: asSession(a.accountId, a.session) },
      );
      expect([secondIdentity.status, secondIdentity.body.error.code]).toEqual([409, "account_auth_conflict"]);
      // An unknown session counts as none: that is a new account, not an error.
      const stale = await exchange("supabase", await mint("supabase", t.signers.supabase, newSubject("supabase")), {
        headers: asSession(a.accountId, "sps_unknown"),
      });
      expect(stale.body).toMatchObject({ isNewAccount: true });
      const foreign = await exchange("auth0", await mint("auth0", t.signers.auth0, newSubject("auth0")), {
        headers: asSession(b.accountId, a.session),
      });
      expect(foreign.status).toBe(403);
    });

    test("route 5 lists linked providers with exactly the allowed fields", async () => {
      const first = await exchange("firebase", await mint("firebase", t.signers.firebase, newSubject("firebase")));
      const { accountId, accountSessionToken } = first.body;
      await exchange("auth0", await mint("auth0", t.signers.auth0, newSubject("google-oauth2")), {
        headers: asSession(accountId, accountSessionToken),
      });
      const listed = await call(s.d, "GET", "/api/v1/accounts/auth/providers", {
        key: t.key,
        headers: asSession(accountId, accountSessionToken),
      });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        {
          provider: "firebase",
          display: { label: "google.com", emailHint: "j***@example.com" },
          linkedAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
        {
          provider: "auth0",
          display: { label: "google-oauth2", emailHint: "j***@example.com" },
          linkedAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
      ]);
      expect(
        (await call(s.d, "GET", "/api/v1/accounts/auth/providers", { key: t.key, session: accountSessionToken }))
          .status,
      ).toBe(401);
      const other = await newAccount(s.d, t.key);
      expect(
        (
          await call(s.d, "GET", "/api/v1/accounts/auth/providers", {
            key: t.key,
            headers: asSession(other.accountId, accountSessionToken),
          })
        ).status,
      ).toBe(403);
    });

    test("hostile tokens are refused with the provider's own codes, and a reason that names no value of the token", async () => {
      const reasons: Record<string, string> = {
        expired: "expired",
        notYetValid: "not_yet_valid",
        issuedInTheFuture: "issued_in_future",
        wrongKey: "bad_signature",
        unknownKey: "unknown_signing_key",
        algNone: "algorithm_not_allowed",
        hs256WithPublicKey: "algorithm_not_allowed",
        noExp: "missing_claim",
        noSub: "missing_claim",
        tampered: "bad_signature",
        embeddedKey: "key_named_in_header",
        garbage: "malformed",
      };
      for (const provider of providerNames) {
        const { invalid, mismatch } = await hostileTokens(provider, t.signers[provider], newSubject(provider));
        for (const [what, token] of Object.entries(invalid)) {
          const answer = await exchange(provider, token);
          const { code, details, message } = answer.body.error ?? {};
          expect([provider, what, answer.status, code, details?.reason]).toEqual([
            provider,
            what,
            400,
            `${provider}_token_invalid`,
            reasons[what],
          ]);
          expect(message).not.toContain(token.slice(-20));
        }
        for (const [what, token] of Object.entries(mismatch)) {
          const answer = await exchange(provider, token);
          expect([provider, what, answer.status, answer.body.error?.code]).toEqual([
            provider,
            what,
            400,
            `${provider}_project_mismatch`,
          ]);
        }
      }
      const firebaseFuture = await mint("firebase", t.signers.firebase, newSubject("firebase"), {
        auth_time: Math.floor(Date.now() / 1000) + 3600,
      });
      expect((await exchange("firebase", firebaseFuture)).body.error.code).toBe("firebase_token_invalid");
      // A Supabase project's anon key is a JWT too: no subject, role anon.
      const anon = await mint("supabase", t.signers.supabase, "", { sub: undefined, role: "anon" });
      expect((await exchange("supabase", anon)).body.error.code).toBe("supabase_token_invalid");
      const serviceRole = await mint("supabase", t.signers.supabase, newSubject("supabase"), { role: "service_role" });
      expect((await exchange("supabase", serviceRole)).body.error).toMatchObject({
        code: "supabase_token_invalid",
        details: { reason: "wrong_claims" },
      });
    });

    test("bad requests: an unknown provider, extra keys, a missing token", async () => {
      const unknown = await exchange("myspace", "x");
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ code: "provider_not_supported", details: { field: "provider" } });
      const extra = await call(s.d, "POST", exchangePath, {
        key: t.key,
        body: { provider: "firebase", token: "x", accountId: "acc_x" },
      });
      expect([extra.status, extra.body.error.code]).toEqual([400, "invalid_request"]);
      const missing = await call(s.d, "POST", exchangePath, { key: t.key, body: { provider: "firebase" } });
      expect([missing.status, missing.body.error.code]).toEqual([400, "invalid_request"]);
    });

    test("a rotated-in key is fetched once, then cached", async () => {
      const path = t.paths.auth0;
      await exchange("auth0", await mint("auth0", t.signers.auth0, newSubject("auth0")));
      const before = keyServer.hits(path);
      const rotated = await newSigner("RS256");
      keyServer.rotateIn(path, rotated);
      await Bun.sleep(300); // past the refetch cooldown the test deployments use
      const sub = newSubject("auth0");
      expect((await exchange("auth0", await mint("auth0", rotated, sub))).status).toBe(200);
      const after = keyServer.hits(path);
      expect(after - before).toBeLessThanOrEqual(name === "embedded" ? 1 : 2); // at most once per auth-bridge copy that verified
      for (let i = 0; i < 3; i++) expect((await exchange("auth0", await mint("auth0", rotated, sub))).status).toBe(200);
      expect(keyServer.hits(path)).toBe(after);
    });

    test("a key set that cannot be fetched is 503 with Retry-After, never 500", async () => {
      const u = await newTenant(s.d);
      const closed = `http://127.0.0.1:${freePort()}/jwks`;
      await admin(s.d, "PUT", `/admin/v1/projects/${u.projectId}/environments/stage/auth-providers/firebase`, {
        enabled: true,
        projectId: "demo-game",
        jwksUrl: closed,
      });
      const down = await exchange("firebase", await mint("firebase", t.signers.firebase, newSubject("firebase")), {
        key: u.key,
      });
      expect([down.status, down.body.error.code]).toEqual([503, "service_unavailable"]);
      expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    test("a key set that never answers is 503 with Retry-After within the bus timeout, not 504", async () => {
      const u = await newTenant(s.d);
      await admin(s.d, "PUT", `/admin/v1/projects/${u.projectId}/environments/stage/auth-providers/firebase`, {
        enabled: true,
        projectId: "demo-game",
        jwksUrl: startHangingKeyServer(),
      });
      const hung = await exchange("firebase", await mint("firebase", t.signers.firebase, newSubject("firebase")), {
        key: u.key,
      });
      expect([hung.status, hung.body.error.code]).toEqual([503, "service_unavailable"]);
      expect(Number(hung.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    test("a token issued up to 60 s ahead is accepted (clock skew); one issued further ahead is token_invalid", async () => {
      const now = Math.floor(Date.now() / 1000);
      const skewed = await exchange(
        "supabase",
        await mint("supabase", t.signers.supabase, newSubject("supabase"), { iat: now + 30 }),
      );
      expect(skewed.status).toBe(200);
      for (const ahead of [120, 86_400]) {
        const future = await exchange(
          "supabase",
          await mint("supabase", t.signers.supabase, newSubject("supabase"), {
            iat: now + ahead,
            exp: now + ahead + 3600,
          }),
        );
        expect([ahead, future.status, future.body.error?.code]).toEqual([ahead, 400, "supabase_token_invalid"]);
      }
    });

    test("20 concurrent first sign-ins of one new identity open exactly one account, for each of 5 identities", async () => {
      const u = await configuredTenant(s.d);
      const envId = envIdOf(u.projectId, "stage");
      const before = await s.accountsIn(envId);
      const identities = Array.from({ length: 5 }, () => newSubject("firebase"));
      const tokens = await Promise.all(identities.map((sub) => mint("firebase", u.signers.firebase, sub)));
      // The race is between sign-ins of one identity (one link id). The identities take turns: 100
      // sign-ins at once on FerretDB, beside the other shard, outlasted the bus's 5 s in one CI run.
      const answers = [];
      for (const token of tokens)
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              exchange("firebase", token, { key: u.key, via: i % 2 ? s.other : s.d }),
            ),
          )),
        );
      const opened = (await s.accountsIn(envId)) - before;
      console.log(
        `accounts opened by ${answers.length} first sign-ins of ${identities.length} identities, 20 at once: ${opened}`,
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      for (let i = 0; i < identities.length; i++) {
        const mine = answers.slice(i * 20, i * 20 + 20).map((a) => a.body);
        expect(new Set(mine.map((b) => b.accountId)).size).toBe(1);
        expect(mine.filter((b) => b.isNewAccount)).toHaveLength(1);
        // Every answer's session works on that one account.
        for (const b of mine)
          expect(
            (await call(s.d, "GET", `/api/v1/accounts/${b.accountId}`, { key: u.key, session: b.accountSessionToken }))
              .status,
          ).toBe(200);
      }
      expect(opened).toBe(identities.length);
    });

    test("a free workspace's prod key is 403 before any key set is fetched; its stage key works", async () => {
      const free = await configuredTenant(s.d, "free", "prod");
      const token = await mint("firebase", free.signers.firebase, newSubject("firebase"));
      const refused = await exchange("firebase", token, { key: free.key });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({
        code: "auth_bridge_requires_paid_plan",
        message: expect.any(String),
        details: { environment: "prod", plan: "free", upgradePath: `/admin/v1/workspaces/${free.workspaceId}` },
      });
      expect(keyServer.hits(free.paths.firebase)).toBe(0);

      const stageKey = (
        await admin(s.d, "POST", `/admin/v1/projects/${free.projectId}/environments/stage/runtime-keys`, {})
      ).body.runtimeKey;
      const jwksUrl = keyServer.publish(`/firebase/${free.projectId}/stage`, [free.signers.firebase]);
      await admin(s.d, "PUT", `/admin/v1/projects/${free.projectId}/environments/stage/auth-providers/firebase`, {
        enabled: true,
        projectId: "demo-game",
        jwksUrl,
      });
      expect((await exchange("firebase", token, { key: stageKey })).status).toBe(200);
    });

    test("a provider not configured, or disabled, is 409; operators must give each provider's settings", async () => {
      const u = await newTenant(s.d);
      const token = await mint("supabase", t.signers.supabase, newSubject("supabase"));
      const none = await exchange("supabase", token, { key: u.key });
      expect(none.status).toBe(409);
      expect(none.body.error).toMatchObject({ code: "provider_not_configured", details: { provider: "supabase" } });
      const base = `/admin/v1/projects/${u.projectId}/environments/stage/auth-providers`;
      const off = await admin(s.d, "PUT", `${base}/supabase`, { enabled: false, projectRef: "abcdefghijklmnop" });
      expect(off.body).toEqual({
        provider: "supabase",
        environment: "stage",
        enabled: false,
        projectRef: "abcdefghijklmnop",
        updatedAt: expect.any(String),
      });
      expect((await exchange("supabase", token, { key: u.key })).body.error.code).toBe("provider_not_enabled");
      const incomplete = await admin(s.d, "PUT", `${base}/auth0`, { enabled: true, domain: "x.auth0.com" });
      expect(incomplete.status).toBe(400);
      expect(incomplete.body.error.details.issues).toEqual([{ path: "body.audience", message: expect.any(String) }]);
      expect((await admin(s.d, "PUT", `${base}/myspace`, { enabled: true })).status).toBe(400);
    });

    test("operators see links and unlink one; the identity then opens a new account", async () => {
      const sub = newSubject("supabase");
      const first = await exchange("supabase", await mint("supabase", t.signers.supabase, sub));
      const view = await admin(s.d, "GET", `/admin/v1/accounts/${first.body.accountId}`);
      expect(view.body.links).toEqual([
        {
          provider: "supabase",
          label: "apple",
          emailHint: "j***@example.com",
          linkedAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
      ]);
      expect(JSON.stringify(view.body)).not.toContain(sub);
      const unlinked = await admin(s.d, "DELETE", `/admin/v1/accounts/${first.body.accountId}/links/supabase`);
      expect(unlinked.body).toEqual({
        accountId: first.body.accountId,
        provider: "supabase",
        unlinkedAt: expect.any(String),
      });
      expect((await admin(s.d, "DELETE", `/admin/v1/accounts/${first.body.accountId}/links/supabase`)).status).toBe(
        404,
      );
      const fresh = await exchange("supabase", await mint("supabase", t.signers.supabase, sub));
      expect(fresh.body.isNewAccount).toBe(true);
      expect(fresh.body.accountId).not.toBe(first.body.accountId);
    });

    test("each client IP may make 30 exchanges a minute, counted across gateway copies", async () => {
      const ip = newClient();
      await awayFromWindowEnd(60);
      const answers = [];
      for (let i = 0; i < 31; i++) answers.push(await exchange("nope", "x", { ip, via: i % 2 ? s.other : s.d }));
      expect(answers.slice(0, 30).every((a) => a.body.error.code === "provider_not_supported")).toBe(true);
      const limited = answers[30]!;
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: "rate_limited", details: { limit: 30, windowSeconds: 60 } });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.headers.get("ratelimit-limit")).toBe("30");
      expect((await exchange("nope", "x", { ip: newClient() })).status).toBe(400);
    });

    test("a deleted account's link is erased: the identity then opens a new account", async () => {
      const sub = newSubject("auth0");
      const first = await exchange("auth0", await mint("auth0", t.signers.auth0, sub));
      expect(
        (
          await call(s.d, "DELETE", `/api/v1/accounts/${first.body.accountId}`, {
            key: t.key,
            session: first.body.accountSessionToken,
          })
        ).status,
      ).toBe(200);
      let next = await exchange("auth0", await mint("auth0", t.signers.auth0, sub));
      for (let i = 0; i < 50 && next.status !== 200; i++) {
        expect([next.status, next.body.error.code]).toEqual([410, "account_deleted"]); // until the cleanup worker ran
        await Bun.sleep(100);
        next = await exchange("auth0", await mint("auth0", t.signers.auth0, sub));
      }
      expect(next.body).toMatchObject({ isNewAccount: true });
      expect(next.body.accountId).not.toBe(first.body.accountId);
    });

    test("provider tokens and subjects never appear in a log line or a stored document", async () => {
      const sub = newSubject("firebase");
      const token = await mint("firebase", t.signers.firebase, sub);
      const signedIn = await exchange("firebase", token);
      expect(signedIn.status).toBe(200);
      await exchange("firebase", `${token}x`);
      await Bun.sleep(200); // log files are written asynchronously
      const kept = await s.everythingKept();
      expect(kept).toContain(signedIn.body.accountId); // the dump does reach the stored documents
      expect(kept).not.toContain(sub);
      expect(kept).not.toContain(token.split(".")[2]!);
      expect(kept).not.toContain(token.split(".")[1]!);
    });
  },
);

describe("a crash between reserving a first sign-in's link and opening its account", () => {
  test("leaves no account; the identity's next sign-in opens the reserved one, once", async () => {
    const dataDir = tempDir("auth-crash");
    const port = freePort();
    const d: Deployment = {
      name: "embedded",
      request: (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init),
      stop: async () => {},
    };
    const start = (env: Record<string, string> = {}) => spawnEmbedded(dataDir, port, env);
    const accounts = (envId: string) => countAccounts(createSqliteStore(join(dataDir, "accounts.sqlite")), envId);

    const armed = await start({ SAVEPOINT_FAILPOINT: "auth-bridge.link-reserved" });
    const t = await configuredTenant(d);
    const envId = envIdOf(t.projectId, "stage");
    const token = await mint("auth0", t.signers.auth0, newSubject("auth0"));
    const exchange = () => call(d, "POST", exchangePath, { key: t.key, body: { provider: "auth0", token } });
    expect(await exchange().catch((err: Error) => err)).toBeInstanceOf(Error);
    expect(await armed.exited).not.toBe(0);
    expect(await accounts(envId)).toBe(0);

    const restarted = await start();
    try {
      const first = await exchange();
      const { accountId } = first.body;
      expect(accountId).toMatch(/^acc_/);
      expect(first.body).toMatchObject({ isNewAccount: true, wasProviderNewForAccount: true });
      const again = await exchange();
      expect(again.body).toMatchObject({ accountId, isNewAccount: false });
      const read = await call(d, "GET", `/api/v1/accounts/${accountId}`, {
        key: t.key,
        session: again.body.accountSessionToken,
      });
      expect([read.status, read.body.accountId]).toEqual([200, accountId]);
    } finally {
      restarted.kill();
      await restarted.exited;
    }
    expect(await accounts(envId)).toBe(1);
  }, 90_000);
});
