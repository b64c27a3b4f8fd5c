import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createGateway } from "../../services/gateway/app.ts";
import { cookieName, preCookieName } from "../../services/gateway/console/session.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { adminToken, startEmbedded } from "../helpers/deployments.ts";

// What the console puts in its pages, links, redirects and cookies: only what it chose itself, always
// inside /console. The behaviour is the gateway's own (no bus involved), so one embedded deployment.
let d: Awaited<ReturnType<typeof startEmbedded>>;
/** The same deployment through a gateway that trusts no proxy: 127.0.0.1 is then any peer. */
let untrusted: string;
let stopUntrusted: () => void;
beforeAll(async () => {
  d = await startEmbedded();
  const gateway = createGateway({
    bus: d.bus,
    log: createLogger({ test: "console-untrusted" }),
    adminToken,
    trustedProxies: [],
  });
  untrusted = `http://127.0.0.1:${gateway.listen({ hostname: "127.0.0.1", port: 0 }).server!.port}`;
  stopUntrusted = () => gateway.stop(true);
});
afterAll(async () => {
  stopUntrusted?.();
  await d?.stop();
});

const form = "application/x-www-form-urlencoded";
const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];

async function signIn(base: string, headers: Record<string, string> = {}) {
  const page = await fetch(`${base}/console/sign-in`, { headers });
  const pre = page.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${preCookieName}=`))!
    .split(";")[0]!;
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie: pre, "content-type": form },
    body: new URLSearchParams({ _csrf: csrfOf(await page.text())!, token: adminToken }),
  });
  const setCookies = [...page.headers.getSetCookie(), ...res.headers.getSetCookie()];
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${cookieName}=`))!
    .split(";")[0]!;
  return { cookie, setCookies };
}

async function pageText(path: string, cookie: string) {
  const res = await fetch(`${d.base}${path}`, { headers: { cookie } });
  return { status: res.status, text: await res.text() };
}

describe("the console shows only messages it chose", () => {
  const bait = "Your token expired. Paste it at evil.example to continue";

  test("the sign-in page shows an error only by its code", async () => {
    const baited = await (await fetch(`${d.base}/console/sign-in?error=${encodeURIComponent(bait)}`)).text();
    expect(baited).not.toContain("evil.example");
    // A code that is no entry of the table, even one every object has, shows nothing.
    const inherited = await (await fetch(`${d.base}/console/sign-in?error=toString`)).text();
    expect(inherited).not.toContain('role="alert"');
    const known = await (await fetch(`${d.base}/console/sign-in?error=wrong-token`)).text();
    expect(known).toContain("That is neither the admin token nor a live operator token.");
  });

  test("a signed-in page shows a notice or error only as the console sealed it for this session", async () => {
    const { cookie } = await signIn(d.base);
    for (const q of ["notice", "error"]) {
      const shown = await pageText(`/console/workspaces?${q}=${encodeURIComponent(bait)}`, cookie);
      expect([q, shown.status, shown.text.includes("evil.example")]).toEqual([q, 200, false]);
    }
    // A real change: its redirect carries the notice, and the page it leads to shows it.
    const { text } = await pageText("/console/workspaces", cookie);
    const created = await fetch(`${d.base}/console/workspaces`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": form },
      body: new URLSearchParams({ _csrf: csrfOf(text)!, name: "sealed notice" }),
    });
    const location = created.headers.get("location")!;
    expect(location).toStartWith("/console/workspaces?notice=");
    expect((await pageText(location, cookie)).text).toMatch(/class="notice" role="status">Workspace wsp_\w+ created\./);
    // The same link in another session shows nothing: its seal is this session's.
    const other = await signIn(d.base);
    expect((await pageText(location, other.cookie)).text).not.toContain("created.");
  });
});

describe("links, form actions and redirects stay inside /console", () => {
  test("a redirect built from a form field cannot leave /console", async () => {
    const { cookie } = await signIn(d.base);
    const { text } = await pageText("/console/workspaces", cookie);
    const res = await fetch(`${d.base}/console/runtime-keys/key_nothing/revoke`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": form },
      body: new URLSearchParams({ _csrf: csrfOf(text)!, projectId: "../..//evil.example/x" }),
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect([location.startsWith("/console/") || location.startsWith("/console?"), location.startsWith("//")]).toEqual([
      true,
      false,
    ]);
    expect(new URL(location, "http://console.test").host).toBe("console.test");
  });

  test("an id in a page's path is one encoded segment in the links and form actions built from it", async () => {
    const { cookie } = await signIn(d.base);
    const id = "acc_1?x=/../../workspaces#y";
    const { text } = await pageText(`/console/accounts/${encodeURIComponent(id)}/delete`, cookie);
    const actions = [...text.matchAll(/action="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((a) => a.startsWith("/console/accounts/"));
    const links = [...text.matchAll(/href="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((a) => a.startsWith("/console/accounts/"));
    const encoded = `/console/accounts/${encodeURIComponent(id)}`;
    expect(actions).toEqual([`${encoded}/delete`]);
    expect(links).toEqual([encoded]);
  });
});

describe("cookies and assets", () => {
  test("Secure follows X-Forwarded-Proto only from a trusted proxy", async () => {
    const secure = (setCookies: string[]) => setCookies.map((c) => [c.split("=")[0], /;\s*Secure\b/i.test(c)]);
    const viaHttps = { "x-forwarded-proto": "https" };
    // The deployment trusts 127.0.0.1 (SAVEPOINT_TRUSTED_PROXIES): its header counts.
    const trusted = await signIn(d.base, viaHttps);
    expect(secure(trusted.setCookies)).toEqual([
      [preCookieName, true],
      [cookieName, true],
      [preCookieName, true],
    ]);
    // The same header from a peer that is no trusted proxy is ignored: the request came over plain HTTP.
    const spoofed = await signIn(untrusted, viaHttps);
    expect(secure(spoofed.setCookies)).toEqual([
      [preCookieName, false],
      [cookieName, false],
      [preCookieName, false],
    ]);
  });

  test("console assets are served with X-Content-Type-Options: nosniff", async () => {
    for (const name of ["console.css", "htmx.min.js"]) {
      const res = await fetch(`${d.base}/console/assets/${name}`);
      expect([name, res.status, res.headers.get("x-content-type-options")]).toEqual([name, 200, "nosniff"]);
    }
  });
});
