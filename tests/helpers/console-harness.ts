import { type BrowserContext, chromium, type Page } from "playwright-core";
import { startAllInOne } from "../../services/all-in-one.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { adminToken, type Deployment } from "./deployments.ts";
import { tempDir } from "./infra.ts";
import { chromiumArgs, requireChromium } from "./tools.ts";

/** An embedded server with the console on, and a headless Chromium that can reach only it. */
export interface ConsoleHarness {
  base: string;
  d: Deployment;
  bus: Bus;
  dataDir: string;
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send anywhere but this server: a console page must send none. */
  blocked: string[];
  /** Content-Security-Policy violations the page reported. */
  cspViolations: string[];
  stop(): Promise<void>;
}

export async function startConsoleHarness(name: string, env: Record<string, string> = {}): Promise<ConsoleHarness> {
  const dataDir = tempDir(name);
  const started = await startAllInOne(
    readEnv({ SAVEPOINT_DATA_DIR: dataDir, SAVEPOINT_ADMIN_TOKEN: adminToken, ...env }),
    createLogger({ test: name }),
  );
  started.gateway.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${started.gateway.server!.port}`;
  const d: Deployment = { name: "embedded", request: (p, init) => fetch(`${base}${p}`, init), stop: async () => {} };
  const executablePath = requireChromium();
  const context = await chromium.launchPersistentContext(tempDir(`${name}-chromium`), {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: chromiumArgs,
  });
  const blocked: string[] = [];
  const cspViolations: string[] = [];
  await context.route("**/*", (r) => {
    if (new URL(r.request().url()).host === new URL(base).host) return r.continue();
    blocked.push(r.request().url());
    return r.abort("internetdisconnected");
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  const stop = async () => {
    await context.close();
    await started.gateway.stop();
    for (const s of [...started.stops].reverse()) await s();
  };
  return { base, d, bus: started.bus, dataDir, context, page, blocked, cspViolations, stop };
}

/** A console session cookie (`name=value`) from a sign-in with `token`, as a browser's form would send it. */
export async function consoleCookie(base: string, cookieName: string, token = adminToken): Promise<string> {
  const form = await fetch(`${base}/console/sign-in`);
  const pre = form.headers.get("set-cookie")!.split(";")[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const signedIn = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: pre, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, token }),
  });
  return signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${cookieName}=`))!
    .split(";")[0]!;
}
