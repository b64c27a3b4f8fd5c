import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { createLogger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { adminToken, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { tempDir } from "../helpers/infra.ts";
import { freePort, waitForPort } from "../helpers/ports.ts";
import { type RawAnswer, rawGet, rawRequest } from "../helpers/raw-http.ts";

/** Sent as written: fetch would fix the Host header and the path first. */
const get = (port: number, path: string, host: string | undefined) =>
  rawGet(port, path, host, { authorization: `Bearer ${adminToken}` });
const portOf = async (request: (path: string) => Promise<Response>) =>
  Number(new URL((await request("/healthz")).url).port);
const isMetrics = (a: RawAnswer) => a.body.includes("savepoint_http_requests_total");
const isDeadLetters = (a: RawAnswer) => a.body.includes("deadLetters");

describe("routing on the real request path (embedded gateway, raw sockets)", () => {
  let port: number;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const d = await startEmbedded();
    port = await portOf(d.request);
    stop = d.stop;
  });
  afterAll(() => stop?.());

  test("a short Host does not move the routed path onto the admin API or /metrics", async () => {
    const admin = await get(port, "/zz/admin/v1/dead-letters", "x");
    expect([admin.status, isDeadLetters(admin)]).toEqual([404, false]);
    const metrics = await get(port, "/zz/metrics", "x");
    expect([metrics.status, isMetrics(metrics)]).toEqual([404, false]);
    // The real path is routed: GET on the create-account path is its 405, not a 404 for "/v1/accounts".
    expect((await get(port, "/api/v1/accounts", "x")).status).toBe(405);
    expect((await get(port, "/admin/v1/dead-letters", "x")).status).toBe(200);
  });

  test("a Host that cannot be a host is refused with 400 invalid_request before any route runs", async () => {
    for (const host of ["a b", "a/b", "evil.example/../", "%2f", "a:99999", "a@b", "a\\b", ""]) {
      for (const path of ["/zzzzzzzzzz/metrics", "/zzzzzz/admin/v1/dead-letters", "/healthz"]) {
        const answer = await get(port, path, host);
        expect([host, path, answer.status, isMetrics(answer) || isDeadLetters(answer)]).toEqual([
          host,
          path,
          400,
          false,
        ]);
        expect(JSON.parse(answer.body).error.code).toBe("invalid_request");
      }
    }
    // HTTP/1.0 may leave Host out: Bun then has no URL to route on.
    const noHost = await rawRequest(port, "GET /zzzzzzzzzz/metrics HTTP/1.0\r\n\r\n");
    expect([noHost.status, isMetrics(noHost)]).toEqual([400, false]);
    // Valid forms still pass.
    for (const host of [
      "localhost",
      "localhost:8080",
      "127.0.0.1:1",
      "[::1]:8080",
      "savepoint.example.com",
      "gateway",
    ]) {
      expect([host, (await get(port, "/healthz", host)).status]).toEqual([host, 200]);
    }
  });

  test("a path that is not normalised reaches the route of its normalised form, or nothing", async () => {
    const plain = await get(port, "/metrics", "localhost");
    expect(isMetrics(plain)).toBe(true);
    for (const path of [
      "/./metrics",
      "/x/../metrics",
      "/%2e/metrics",
      "/x/%2e%2e/metrics",
      "/x\\..\\metrics",
      "/metrics/",
    ]) {
      const answer = await get(port, path, "localhost");
      expect([path, answer.status, isMetrics(answer)]).toEqual([path, 200, true]);
    }
    for (const path of [
      "//metrics",
      "/metrics//",
      "/zz/metrics",
      "/.metrics",
      "/%6detrics",
      "//admin/v1/dead-letters",
    ]) {
      const answer = await get(port, path, "localhost");
      expect([path, answer.status, isMetrics(answer) || isDeadLetters(answer)]).toEqual([path, 404, false]);
    }
  });

  test("every JSON answer carries X-Content-Type-Options: nosniff", async () => {
    for (const [path, status] of [
      ["/healthz", 200],
      ["/api/v1/nothing", 404],
      ["/api/v1/accounts/acc_1", 401],
      ["/openapi.json", 200],
    ] as const) {
      const answer = await get(port, path, "localhost");
      expect([path, answer.status, /^x-content-type-options: nosniff$/im.test(answer.head)]).toEqual([
        path,
        status,
        true,
      ]);
    }
  });
});

describe("data files", () => {
  test("a fresh data directory is created 700 and its SQLite files 600, whatever the umask", async () => {
    const dataDir = join(tempDir("modes"), "data");
    const before = process.umask(0);
    const modes = () => readdirSync(dataDir).map((f) => [f, (statSync(join(dataDir, f)).mode & 0o777).toString(8)]);
    let running: string[][] = [];
    try {
      const d = await startEmbedded({ SAVEPOINT_DATA_DIR: dataDir });
      // While it runs, with the -wal and -shm files beside each database.
      running = modes();
      await d.stop();
    } finally {
      process.umask(before);
    }
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(running.filter(([f]) => f!.endsWith(".sqlite-wal")).length).toBe(6);
    for (const [f, mode] of [...running, ...modes()]) expect([f, mode]).toEqual([f, "600"]);
  });
});

describe("the admin API and /metrics on their own address (SAVEPOINT_ADMIN_ADDRESS)", () => {
  let publicPort: number;
  let adminPort: number;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const env = readEnv({
      SAVEPOINT_DATA_DIR: tempDir("admin-address"),
      SAVEPOINT_ADMIN_TOKEN: adminToken,
      SAVEPOINT_ADMIN_ADDRESS: "127.0.0.1:0",
    });
    expect(env.SAVEPOINT_ADMIN_ADDRESS).toEqual({ host: "127.0.0.1", port: 0 });
    const started = await startAllInOne(env, createLogger({ test: "admin-address" }));
    const { gateway, adminGateway, stops } = started;
    publicPort = gateway.listen({ hostname: "127.0.0.1", port: 0 }).server!.port!;
    adminPort = adminGateway!.listen({ hostname: "127.0.0.1", port: 0 }).server!.port!;
    stop = async () => {
      await gateway.stop(true);
      await adminGateway?.stop(true);
      for (const s of [...stops].reverse()) await s();
    };
  });
  afterAll(() => stop?.());

  test("the public port answers 404 for the admin API and /metrics, in any spelling", async () => {
    for (const path of [
      "/admin/v1/dead-letters",
      "/metrics",
      "/metrics/",
      "/./metrics",
      "/x/../admin/v1/dead-letters",
    ]) {
      const answer = await get(publicPort, path, "localhost");
      expect([path, answer.status, isMetrics(answer) || isDeadLetters(answer)]).toEqual([path, 404, false]);
    }
    expect((await get(publicPort, "/healthz", "localhost")).status).toBe(200);
    expect((await get(publicPort, "/docs", "localhost")).status).toBe(200);
    expect((await get(publicPort, "/api/v1/accounts/acc_1", "localhost")).status).toBe(401);
  });

  test("the admin address serves the admin API and /metrics, and not the runtime API", async () => {
    const admin = await get(adminPort, "/admin/v1/dead-letters", "localhost");
    expect([admin.status, isDeadLetters(admin)]).toEqual([200, true]);
    const metrics = await get(adminPort, "/metrics", "localhost");
    expect([metrics.status, isMetrics(metrics)]).toEqual([200, true]);
    expect((await get(adminPort, "/healthz", "localhost")).status).toBe(200);
    expect((await get(adminPort, "/api/v1/accounts/acc_1", "localhost")).status).toBe(404);
    expect((await get(adminPort, "/docs", "localhost")).status).toBe(404);
  });

  test("a bad admin address stops start-up with the variable's name", () => {
    for (const value of ["nonsense", "127.0.0.1", "127.0.0.1:70000", "a b:9090"]) {
      expect(() => readEnv({ SAVEPOINT_ADMIN_ADDRESS: value })).toThrow(/SAVEPOINT_ADMIN_ADDRESS/);
    }
    expect(readEnv({ SAVEPOINT_ADMIN_ADDRESS: "[::1]:9090" }).SAVEPOINT_ADMIN_ADDRESS).toEqual({
      host: "::1",
      port: 9090,
    });
  });
});

/** The failure count is per minute: start a sequence well inside one, so it cannot straddle two. */
async function awayFromMinuteEnd() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await Bun.sleep(60_000 - intoMinute + 100);
}

const adminCall = (base: string, ip: string, token: string) =>
  fetch(`${base}/admin/v1/dead-letters`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": ip } });
const wrong = "wrong-admin-token-0123456789";

describe("failed admin tokens are slowed (10 a minute from one client IP)", () => {
  test("embedded: the 11th failure is 429 rate_limited with scope client_ip, for the right token too, and only for that IP", async () => {
    const d = await startEmbedded();
    try {
      const base = `http://127.0.0.1:${await portOf(d.request)}`;
      await awayFromMinuteEnd();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await adminCall(base, "203.0.113.10", wrong)).status);
      expect(statuses).toEqual(Array(10).fill(401));
      const limited = await adminCall(base, "203.0.113.10", wrong);
      expect(limited.status).toBe(429);
      const body = (await limited.json()) as { error: { code: string; details: Record<string, unknown> } };
      expect(body.error.code).toBe("rate_limited");
      expect(body.error.details).toMatchObject({ scope: "client_ip", limit: 10, windowSeconds: 60 });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await adminCall(base, "203.0.113.10", adminToken)).status).toBe(429);
      expect((await adminCall(base, "203.0.113.11", adminToken)).status).toBe(200);

      // 30 at once from another address: exactly 10 are tried, the rest refused.
      const burst = await Promise.all(
        Array.from({ length: 30 }, () => adminCall(base, "203.0.113.12", wrong).then((r) => r.status)),
      );
      expect([burst.filter((s) => s === 401).length, burst.filter((s) => s === 429).length]).toEqual([10, 20]);
    } finally {
      await d.stop();
    }
  });

  test("distributed: failures on two gateway copies add up; a gateway process with an admin address splits its parts", async () => {
    const d = await startDistributed({ copies: { gateway: 2 } });
    try {
      const [a, b] = d.bases as [string, string];
      await awayFromMinuteEnd();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await adminCall(i % 2 ? b : a, "198.51.100.20", wrong)).status);
      expect(statuses).toEqual(Array(10).fill(401));
      // The copies claim each try from billing before they compare the token: the count is one at once.
      expect([
        (await adminCall(a, "198.51.100.20", adminToken)).status,
        (await adminCall(b, "198.51.100.20", adminToken)).status,
      ]).toEqual([429, 429]);
      expect((await adminCall(a, "198.51.100.21", adminToken)).status).toBe(200);

      // The gateway alone (services/gateway/main.ts) with an admin address: two listeners, each its own part.
      const [publicPort, adminPort] = [freePort(), freePort()];
      d.spawn("gateway", { PORT: String(publicPort), SAVEPOINT_ADMIN_ADDRESS: `127.0.0.1:${adminPort}` });
      await waitForPort(publicPort, 30_000, "gateway");
      await waitForPort(adminPort, 30_000, "gateway admin");
      const own = `http://127.0.0.1:${adminPort}`;
      expect((await adminCall(`http://127.0.0.1:${publicPort}`, "198.51.100.22", adminToken)).status).toBe(404);
      expect((await adminCall(own, "198.51.100.22", adminToken)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${publicPort}/metrics`)).status).toBe(404);
      expect((await fetch(`${own}/metrics`)).status).toBe(200);
    } finally {
      await d.stop();
    }
  }, 120_000);
});
