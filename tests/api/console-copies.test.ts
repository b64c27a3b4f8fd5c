import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cookieName } from "../../services/gateway/console/session.ts";
import { admin, call, newTenant } from "../helpers/api.ts";
import { adminToken, startDistributed } from "../helpers/deployments.ts";

// The console over the distributed deployment: a sign-in on one gateway copy holds on another, and
// the console's changes go over NATS to the services like any admin request.
describe("console on two gateway copies (distributed)", () => {
  let d: Awaited<ReturnType<typeof startDistributed>>;
  beforeAll(async () => {
    d = await startDistributed({ copies: { gateway: 2 } });
  }, 120_000);
  afterAll(() => d?.stop());

  const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];

  test("signed in on copy A, a form read on A is posted to copy B and applied; the audit log names the console", async () => {
    const [a, b] = d.bases as [string, string];
    expect(b).not.toBe(a);
    const t = await newTenant(d);
    const form = await fetch(`${a}/console/sign-in`);
    const pre = form.headers.get("set-cookie")!.split(";")[0]!;
    const signedIn = await fetch(`${a}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: pre, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrfOf(await form.text())!, token: adminToken }),
    });
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${cookieName}=`))!
      .split(";")[0]!;

    const pageOnA = await fetch(`${a}/console/projects/${t.projectId}/sync-policy`, { headers: { cookie } });
    expect(pageOnA.status).toBe(200);
    const fields = {
      _csrf: csrfOf(await pageOnA.text())!,
      minRemoteSyncIntervalSeconds: "321",
      forceSyncCooldownSeconds: "10",
    };
    const policy = {
      syncOnAppBackground: "true",
      syncOnAppForeground: "true",
      syncOnReconnect: "true",
      maxQueuedLocalSnapshots: "25",
    };
    const posted = await fetch(`${b}/console/projects/${t.projectId}/sync-policy`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, ...policy }),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toContain("notice=");
    expect(
      (await call(d, "GET", "/api/v1/runtime-config", { key: t.key })).body.syncPolicy.minRemoteSyncIntervalSeconds,
    ).toBe(321);

    const [entry] = (await admin(d, "GET", `/admin/v1/audit?target=${t.projectId}&action=adminSetSyncPolicy`)).body
      .entries;
    expect(entry).toMatchObject({
      actor: "console",
      before: { minRemoteSyncIntervalSeconds: 60 },
      after: { minRemoteSyncIntervalSeconds: 321 },
    });

    // Without the cookie copy B refuses the same form, and nothing changes.
    const forged = await fetch(`${b}/console/projects/${t.projectId}/sync-policy`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, ...policy, minRemoteSyncIntervalSeconds: "999" }),
    });
    expect(forged.status).toBe(401);
    expect(
      (await admin(d, "GET", `/admin/v1/projects/${t.projectId}/sync-policy`)).body.minRemoteSyncIntervalSeconds,
    ).toBe(321);

    // Signed out on copy A: copy B refuses the same cookie from then on.
    expect((await fetch(`${b}/console/workspaces`, { redirect: "manual", headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${a}/console/sign-out`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: fields._csrf }),
    });
    expect(out.status).toBe(303);
    const after = await fetch(`${b}/console/workspaces`, { redirect: "manual", headers: { cookie } });
    expect([after.status, after.headers.get("location")]).toEqual([303, "/console/sign-in"]);
  });
});
