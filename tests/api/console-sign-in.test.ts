import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cookieName, preCookieName } from "../../services/gateway/console/session.ts";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, startDistributed } from "../helpers/deployments.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";

// The console's sign-in over the distributed deployment: two gateway copies, and a third gateway
// process with its admin listener split off (SAVEPOINT_ADMIN_ADDRESS), as compose runs it.
let d: Awaited<ReturnType<typeof startDistributed>>;
let doors: Record<"copyA" | "copyB" | "split", string>;
let splitPublic: string;
beforeAll(async () => {
  d = await startDistributed({ copies: { gateway: 2 } });
  const [publicPort, adminPort] = [freePort(), freePort()];
  d.spawn("gateway", { PORT: String(publicPort), SAVEPOINT_ADMIN_ADDRESS: `127.0.0.1:${adminPort}` });
  await waitForPort(publicPort, 30_000, "gateway");
  await waitForPort(adminPort, 30_000, "gateway admin");
  splitPublic = `http://127.0.0.1:${publicPort}`;
  doors = { copyA: d.bases[0]!, copyB: d.bases[1]!, split: `http://127.0.0.1:${adminPort}` };
}, 120_000);
afterAll(() => d?.stop());

const form = "application/x-www-form-urlencoded";
const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
/** Every Set-Cookie of an answer as [name, value]. */
const cookiesOf = (res: Response) =>
  res.headers.getSetCookie().map((c) => c.split(";")[0]!.split("=") as [string, string]);

/** The sign-in form as a browser at `ip` gets it: its cookies and CSRF token. */
async function signInForm(base: string, ip: string) {
  const res = await fetch(`${base}/console/sign-in`, { headers: { "x-forwarded-for": ip } });
  const cookies = cookiesOf(res);
  return {
    status: res.status,
    cookies,
    csrf: csrfOf(await res.text()) ?? "",
    pre: cookies.find(([n]) => n === preCookieName)?.[1] ?? "",
  };
}

async function signIn(base: string, ip: string, token: string) {
  const f = await signInForm(base, ip);
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: `${preCookieName}=${f.pre}`, "content-type": form, "x-forwarded-for": ip },
    body: new URLSearchParams({ _csrf: f.csrf, token }),
  });
  const session = cookiesOf(res).find(([n, v]) => n === cookieName && v)?.[1];
  return { form: f, res, session, cookies: cookiesOf(res) };
}

/** What a door does with `value` as the session cookie: a page read and a change. */
async function asSession(base: string, value: string, csrf: string, accountId: string) {
  const cookie = `${cookieName}=${value}`;
  const page = await fetch(`${base}/console/workspaces`, { redirect: "manual", headers: { cookie } });
  const change = await fetch(`${base}/console/accounts/${accountId}/suspend`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": form },
    body: new URLSearchParams({ _csrf: csrf }),
  });
  return [page.status, page.headers.get("location"), change.status];
}

/** The failure count is per minute: start a sequence well inside one, so it cannot straddle two. */
async function awayFromMinuteEnd() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 35_000) await Bun.sleep(60_000 - intoMinute + 100);
}

describe("only a sign-in with the admin token makes a console session", () => {
  test("no cookie or CSRF token the console sets is a session, on either copy or the split admin listener", async () => {
    const t = await newTenant(d);
    const { accountId } = await newAccount(d, t.key);

    // Every value the console hands out, from every door: sign-in forms, a failed and a good sign-in,
    // a signed-in page's CSRF token, and the sign-out.
    const values = new Set<string>();
    const keep = (v: string | undefined) => v && values.add(decodeURIComponent(v)) && values.add(v);
    let session = "";
    for (const [name, base] of Object.entries(doors)) {
      const failed = await signIn(
        base,
        `192.0.2.${Object.keys(doors).indexOf(name) + 1}`,
        "not-the-admin-token-0000000000",
      );
      for (const [, v] of [...failed.form.cookies, ...failed.cookies]) keep(v);
      keep(failed.form.csrf);
      const good = await signIn(base, "192.0.2.9", adminToken);
      expect(good.session).toBeString();
      for (const [n, v] of [...good.form.cookies, ...good.cookies]) if (n !== cookieName) keep(v);
      keep(good.form.csrf);
      const signedInPage = await fetch(`${base}/console/workspaces`, {
        headers: { cookie: `${cookieName}=${good.session}` },
      });
      expect(signedInPage.status).toBe(200);
      keep(csrfOf(await signedInPage.text()));
      session = good.session!;
    }
    const out = await fetch(`${doors.copyA}/console/workspaces`, { headers: { cookie: `${cookieName}=${session}` } });
    const csrf = csrfOf(await out.text())!;
    values.delete("");
    expect(values.size).toBeGreaterThanOrEqual(9);

    for (const value of values) {
      for (const [name, base] of Object.entries(doors)) {
        expect([name, value, await asSession(base, value, csrf, accountId)]).toEqual([
          name,
          value,
          [303, "/console/sign-in", 401],
        ]);
      }
    }
    // Nothing was changed: the account is still active.
    expect((await admin(d, "GET", `/admin/v1/accounts/${accountId}`)).body.account.status).toBe("active");
  }, 60_000);
});

const wrong = "wrong-admin-token-0123456789";
const adminCall = (base: string, ip: string, token: string) =>
  fetch(`${base}/admin/v1/dead-letters`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": ip } });

describe("every check of the admin token counts against one limit per client address", () => {
  test("console sign-ins and admin requests on two copies share the 10 a minute; then the right token is refused at both doors", async () => {
    await awayFromMinuteEnd();
    const ip = "198.51.100.30";
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      if (i % 2) outcomes.push(String((await adminCall(i % 4 === 1 ? doors.copyA : doors.copyB, ip, wrong)).status));
      else {
        const s = await signIn(i % 4 === 0 ? doors.copyA : doors.copyB, ip, wrong);
        outcomes.push(`${s.res.status} ${s.res.headers.get("location")}`);
      }
    }
    expect(outcomes).toEqual(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? "401" : "303 /console/sign-in?error=wrong-token")),
    );
    const refused = await signIn(doors.copyB, ip, adminToken);
    expect([refused.res.status, refused.session]).toEqual([429, undefined]);
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await adminCall(doors.copyA, ip, adminToken)).status).toBe(429);
    // Another address is not limited.
    expect((await signIn(doors.copyA, "198.51.100.31", adminToken)).session).toBeString();
  }, 60_000);

  test("30 wrong tokens at once through two copies: exactly 10 are checked", async () => {
    await awayFromMinuteEnd();
    const ip = "198.51.100.40";
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        adminCall(i % 2 ? doors.copyB : doors.copyA, ip, wrong).then((r) => r.status),
      ),
    );
    expect([burst.filter((s) => s === 401).length, burst.filter((s) => s === 429).length]).toEqual([10, 20]);
    const signIns = await Promise.all(
      Array.from({ length: 6 }, (_, i) => signIn(i % 2 ? doors.copyB : doors.copyA, ip, wrong)),
    );
    expect(signIns.map((s) => s.res.status)).toEqual(Array(6).fill(429));
  }, 60_000);

  test("with SAVEPOINT_ADMIN_ADDRESS the console is only on the admin listener", async () => {
    for (const path of ["/console", "/console/sign-in", "/console/assets/console.css", "/console/workspaces"]) {
      const answer = await fetch(`${splitPublic}${path}`, { redirect: "manual" });
      expect([path, answer.status]).toEqual([path, 404]);
    }
    const posted = await fetch(`${splitPublic}/console/sign-in`, {
      method: "POST",
      headers: { "content-type": form },
      body: "token=x",
    });
    expect(posted.status).toBe(404);
    expect((await fetch(`${doors.split}/console/sign-in`)).status).toBe(200);
  });
});
