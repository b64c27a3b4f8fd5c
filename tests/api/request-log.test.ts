import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Answer, call, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, type Deployment, startDistributed, startEmbedded } from "../helpers/deployments.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { capturingLogger } from "../helpers/kept.ts";

// One JSON line per request (docs/operating.md#logs), found by the X-Request-Id the client got, with no secret in any line.
type Line = {
  msg: string;
  method?: string;
  route?: string | null;
  status?: number;
  ms?: number;
  requestId?: string;
  accountId?: string;
  code?: string;
};
interface Setup {
  d: Deployment;
  /** Every line the deployment logged so far, as text. */
  lines(): string[];
  stop(): Promise<void>;
}

async function embedded(): Promise<Setup> {
  const lines: string[] = [];
  const d = await startEmbedded({ SAVEPOINT_REQUEST_LOG: "all" }, { log: capturingLogger(lines) });
  return { d, lines: () => lines, stop: () => d.stop() };
}

async function distributed(): Promise<Setup> {
  const d = await startDistributed({ env: { LOG_LEVEL: "info", SAVEPOINT_REQUEST_LOG: "all" } });
  const lines = () =>
    readdirSync(d.logs).flatMap((f) => readFileSync(join(d.logs, f), "utf8").split("\n").filter(Boolean));
  return { d, lines, stop: () => d.stop() };
}

const parsed = (lines: string[]): Line[] => lines.flatMap((l) => (l.startsWith("{") ? [JSON.parse(l) as Line] : []));
const requestLines = (lines: string[]) => parsed(lines).filter((l) => l.msg === "request");

/** The request line carrying `answer`'s X-Request-Id (lines are written as the answer leaves: a moment after it arrives). */
async function lineOf(s: Setup, answer: Answer): Promise<Line> {
  const id = answer.headers.get("x-request-id");
  expect(id).toBeTruthy();
  for (let i = 0; i < 100; i++) {
    const found = requestLines(s.lines()).filter((l) => l.requestId === id);
    if (found.length) {
      expect(found).toHaveLength(1);
      return found[0]!;
    }
    await Bun.sleep(50);
  }
  throw new Error(`no request line carries ${id}`);
}

forEachDeployment("request logs", { start: { embedded, distributed } }, ({ setup }) => {
  const s = setup as unknown as Setup;

  test("a success, a 4xx and a 409 each have one line with the answer's request id, route template, status and account", async () => {
    const { key } = await newTenant(s.d);
    const a = await newAccount(s.d, key);
    const created = await lineOf(s, a.created);
    expect(created).toMatchObject({ method: "POST", route: "/api/v1/accounts", status: 201 });
    expect(created.ms).toBeGreaterThanOrEqual(0);
    expect(created.code).toBeUndefined();

    const read = await a.call("GET", "/api/v1/accounts/{acc}");
    expect(read.status).toBe(200);
    expect(await lineOf(s, read)).toMatchObject({
      method: "GET",
      route: "/api/v1/accounts/:accountId",
      status: 200,
      accountId: a.accountId,
    });

    const refused = await a.call("GET", "/api/v1/accounts/{acc}", { session: "sps_not-a-real-session-token" });
    expect(refused.status).toBe(401);
    expect(await lineOf(s, refused)).toMatchObject({
      route: "/api/v1/accounts/:accountId",
      status: 401,
      code: refused.body.error.code,
    });

    await a.call("POST", "/api/v1/accounts/{acc}/data/sync", { body: { baseVersion: 1, accountData: { v: 2 } } });
    const stale = await a.call("POST", "/api/v1/accounts/{acc}/data/sync", {
      body: { baseVersion: 1, accountData: { v: "stale" } },
    });
    expect(stale.status).toBe(409);
    const conflictLine = {
      method: "POST",
      route: "/api/v1/accounts/:accountId/data/sync",
      status: 409,
      code: "conflict",
      accountId: a.accountId,
    };
    expect(await lineOf(s, stale)).toMatchObject(conflictLine);

    const typo = await call(s.d, "GET", `/api/v1/acounts/${a.accountId}`, { key });
    expect(typo.status).toBe(404);
    expect(await lineOf(s, typo)).toMatchObject({ route: null, status: 404, code: "not_found" });
  });

  test("the API document, the console's pages and the admin API get their lines too", async () => {
    const answer = async (path: string, init?: RequestInit): Promise<Answer> => {
      const res = await s.d.request(path, init);
      return { status: res.status, headers: res.headers, body: await res.text() };
    };
    expect(await lineOf(s, await answer("/openapi.json"))).toMatchObject({
      method: "GET",
      route: "/openapi.json",
      status: 200,
    });
    expect(await lineOf(s, await answer("/console/sign-in"))).toMatchObject({
      method: "GET",
      route: "/console/sign-in",
      status: 200,
    });
    const listed = await answer("/admin/v1/dead-letters", { headers: { authorization: `Bearer ${adminToken}` } });
    expect(listed.status).toBe(200);
    // Probes come every few seconds: a successful one is not logged (docs/operating.md#logs).
    const probe = await answer("/healthz");
    expect(await lineOf(s, listed)).toMatchObject({ method: "GET", route: "/admin/v1/dead-letters", status: 200 });
    expect(requestLines(s.lines()).filter((l) => l.requestId === probe.headers.get("x-request-id"))).toEqual([]);
  });

  test("no line holds a runtime key, a session token, a transfer code, the admin token or a body", async () => {
    const { key } = await newTenant(s.d);
    const a = await newAccount(s.d, key, { accountData: { marker: "body-marker-5d1e" } });
    const made = await a.call("POST", "/api/v1/accounts/{acc}/transfer-codes", {
      body: { deviceLabel: "label-marker-77f2" },
    });
    expect(made.status).toBe(201);
    const consumed = await call(s.d, "POST", "/api/v1/account-transfer-codes/consume", {
      key,
      body: { transferCode: made.body.transferCode },
    });
    await lineOf(s, made);
    await lineOf(s, consumed);
    const all = s.lines();
    expect(requestLines(all).length).toBeGreaterThanOrEqual(5);
    for (const secret of [
      key,
      a.session,
      made.body.transferCode,
      adminToken,
      "body-marker-5d1e",
      "label-marker-77f2",
    ]) {
      expect(all.filter((l) => l.includes(secret))).toEqual([]);
    }
  });
});

describe("request log settings (embedded)", () => {
  const run = async (mode: string) => {
    const lines: string[] = [];
    const d = await startEmbedded({ SAVEPOINT_REQUEST_LOG: mode }, { log: capturingLogger(lines) });
    const { key } = await newTenant(d);
    const a = await newAccount(d, key);
    const ok = await a.call("GET", "/api/v1/accounts/{acc}");
    const bad = await a.call("GET", "/api/v1/accounts/{acc}", { session: "sps_wrong" });
    await Bun.sleep(100);
    await d.stop();
    return { requests: requestLines(lines), ok: ok.headers.get("x-request-id"), bad: bad.headers.get("x-request-id") };
  };

  test("errors: only answers of 400 and up get a line", async () => {
    const { requests, ok, bad } = await run("errors");
    expect(requests.find((l) => l.requestId === bad)).toMatchObject({ status: 401 });
    expect(requests.find((l) => l.requestId === ok)).toBeUndefined();
    expect(requests.filter((l) => l.status! < 400)).toEqual([]);
  });

  test("off: no request line at all", async () => {
    const { requests } = await run("off");
    expect(requests).toEqual([]);
  });
});
