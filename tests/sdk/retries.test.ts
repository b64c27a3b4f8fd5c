import { beforeAll, expect, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { mergeRules, type SavepointError, systemClock } from "../../sdk/src/index.ts";
import { admin } from "../helpers/api.ts";
import { forEachDeployment } from "../helpers/each-deployment.ts";
import { type AnyServer, tenantWithPolicy, testClient } from "./helpers.ts";

let d: AnyServer;

type Mode = { kind: "drop-answer" } | { kind: "answer"; status: number; headers?: string; times: number };

/**
 * A loopback TCP proxy in front of the server. For the first request whose head matches `match`, it
 * forwards the request and then cuts the connection when the server's answer starts (the write happened,
 * the client never hears of it), or answers `status` itself without forwarding. It logs each request head.
 */
async function proxy(upstreamPort: number, match: RegExp, mode: Mode) {
  const heads: string[] = [];
  let hits = 0;
  const server = createServer((client: Socket) => {
    const upstream = new (require("node:net").Socket)() as Socket;
    upstream.connect(upstreamPort, "127.0.0.1");
    let cutNext = false;
    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      const head = /^[A-Z]+ \/\S* HTTP\/1\.1\r\n/.test(text) ? text.split("\r\n\r\n")[0]! : undefined;
      if (head) heads.push(head);
      if (head && match.test(head)) {
        hits++;
        if (mode.kind === "drop-answer" && hits === 1) cutNext = true;
        if (mode.kind === "answer" && hits <= mode.times) {
          const body = JSON.stringify({ error: { code: `status_${mode.status}`, message: "from the proxy" } });
          const head = `HTTP/1.1 ${mode.status} X\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n`;
          client.end(`${head}${mode.headers ?? ""}\r\n${body}`);
          upstream.destroy();
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (cutNext) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { base: `http://127.0.0.1:${port}`, heads, hits: () => hits, close: () => server.close() };
}

const keyOf = (head: string) => /\r\nidempotency-key: ([^\r]+)/i.exec(head)?.[1];
const upstreamPort = () => Number(new URL(d.base).port);

// Retries never double-write (README, Retries).
forEachDeployment("sdk: retries", ({ d: deployed }) => {
  beforeAll(() => {
    d = deployed;
  });
  test("a connection cut after the request is sent and before the answer: the retry adds exactly one version", async () => {
    const t = await tenantWithPolicy(d);
    const p = await proxy(upstreamPort(), /^POST \/api\/v1\/accounts\/[^/]+\/slots\/main\/sync /, {
      kind: "drop-answer",
    });
    try {
      // With a "sum" rule, a retry that the server took for a new write would conflict with itself and count the gold twice.
      const resolve = mergeRules({ gold: "sum" });
      const { client } = testClient(d, t.key, {
        baseUrl: p.base,
        clock: systemClock,
        resolve,
        retry: { attempts: 5, baseDelayMs: 5 },
      });
      await client.ensureAccount();
      await client.save("main", { gold: 1 });
      await client.sync({ force: true });
      await client.settled();
      await client.save("main", { gold: 2 });
      const conflicts: unknown[] = [];
      client.on("conflict", (c) => conflicts.push(c));
      await client.background();
      expect(p.hits()).toBe(2);
      const sent = p.heads.filter((h) => h.includes("/slots/main/sync")).map(keyOf);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toBe(sent[1]!);
      expect(conflicts).toHaveLength(0);
      const slot = await client.api.getSlot("main");
      expect(slot).toMatchObject({ version: 2, data: { gold: 2 } });
      expect(client.status()).toMatchObject({ state: "idle", pending: [] });
    } finally {
      p.close();
    }
  });

  test("a 503 with Retry-After is retried no sooner than it says, with the same key; a 400 is never retried", async () => {
    const t = await tenantWithPolicy(d);
    const p = await proxy(upstreamPort(), /^POST \/api\/v1\/accounts /, {
      kind: "answer",
      status: 503,
      headers: "retry-after: 3\r\n",
      times: 2,
    });
    try {
      const { client, clock } = testClient(d, t.key, {
        baseUrl: p.base,
        retry: { attempts: 5, baseDelayMs: 100, random: () => 0 },
      });
      await client.ready();
      // The wait before a retry starts when the 503 has been read: the clock moves only once it has.
      const timers = clock.pending();
      const waiting = async () => {
        for (let i = 0; i < 1_000 && clock.pending() <= timers; i++) await Bun.sleep(5);
      };
      const created = client.ensureAccount();
      await clock.advance(0);
      await waiting();
      expect(p.hits()).toBe(1);
      await clock.advance(2_999);
      expect(p.hits()).toBe(1);
      await clock.advance(1);
      await waiting();
      expect(p.hits()).toBe(2);
      await clock.advance(3_000);
      await created;
      expect(p.hits()).toBe(3);
      const keys = p.heads.filter((h) => h.startsWith("POST /api/v1/accounts ")).map(keyOf);
      expect(new Set(keys).size).toBe(1);

      const bad = await client.api
        .createSlot({ slotId: "no spaces allowed", data: {} })
        .catch((e) => e as SavepointError);
      expect(bad).toMatchObject({ code: "invalid_request", status: 400 });
      expect(p.heads.filter((h) => h.startsWith("POST /api/v1/accounts/") && h.includes("/slots "))).toHaveLength(1);
    } finally {
      p.close();
    }
  });

  test("a session the server refuses stops the engine with a typed event instead of looping", async () => {
    const t = await tenantWithPolicy(d, { minRemoteSyncIntervalSeconds: 1 });
    // No timer of the policy's refresh: every timer left would be the engine's.
    const { client, clock } = testClient(d, t.key, { configRefreshSeconds: 0 });
    const accountId = await client.ensureAccount();
    await client.save("main", { n: 1 });
    await clock.advance(0);
    await client.settled();
    const view = await admin(d, "GET", `/admin/v1/accounts/${accountId}`);
    await admin(d, "DELETE", `/admin/v1/accounts/${accountId}/sessions/${view.body.sessions[0].sessionId}`);
    const stopped: SavepointError[] = [];
    client.on("stopped", (e) => stopped.push(e.error));
    await client.save("main", { n: 2 });
    for (let i = 0; i < 10; i++) {
      await clock.advance(60_000);
      await client.settled();
    }
    expect(stopped).toHaveLength(1);
    // The session rules name `session_revoked`; this server build still answers a revoked session `unauthorized`.
    expect(stopped[0]!.status).toBe(401);
    expect(["session_revoked", "unauthorized"]).toContain(stopped[0]!.code);
    expect(client.status()).toMatchObject({ state: "error", stopped: true, pending: ["main"] });
    expect(client.load("main")).toEqual({ n: 2 });
    expect(clock.pending()).toBe(0);
  });
});
