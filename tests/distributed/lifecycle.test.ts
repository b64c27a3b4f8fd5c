import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { serviceNames } from "../../services/registry.ts";
import { admin, newAccount, newTenant } from "../helpers/api.ts";
import { adminToken, deployment, startDistributed } from "../helpers/deployments.ts";
import { mongo, tempDir, trackChild, uniqueDb } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";

const root = join(import.meta.dir, "..", "..");

async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read().catch(() => undefined as T);
  while (!done(value) && Date.now() < deadline) {
    await Bun.sleep(100);
    value = await read().catch(() => undefined as T);
  }
  return value;
}

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe("process lifecycle (distributed)", () => {
  test("a service started before NATS and its store waits for them, then becomes ready", async () => {
    const natsPort = freePort();
    const metricsPort = freePort();
    const proc = Bun.spawn([process.execPath, join(root, "services", "standalone.ts"), "saves"], {
      env: {
        ...process.env,
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        MONGODB_URL: (await mongo()).url,
        MONGODB_DB: uniqueDb("wait"),
        SAVEPOINT_METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "info",
      },
      stdout: "ignore",
      stderr: "pipe",
    });
    trackChild(proc);
    // NATS starts once the service says it is waiting for it: a fixed pause was shorter than a slow
    // machine's start of the service, which then found NATS up and had nothing to wait for.
    let log = "";
    const lines = (async () => {
      for await (const chunk of proc.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
    })();
    await eventually(
      async () => log,
      (text) => text.includes("waiting for NATS"),
    );
    await Bun.sleep(500);
    expect(proc.exitCode).toBeNull(); // still waiting, not given up
    const nats = Bun.spawn(
      ["nats-server", "-a", "127.0.0.1", "-p", String(natsPort), "-js", "-sd", tempDir("late-nats")],
      { stdout: "ignore", stderr: "ignore" },
    );
    trackChild(nats);
    try {
      const ready = await eventually(
        () => getJson(`http://127.0.0.1:${metricsPort}/readyz`),
        (r) => r?.status === 200,
      );
      expect(ready.body).toEqual({ ready: true, bus: "ok", store: "ok" });
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      await lines;
      expect(log).toContain("waiting for NATS");
      expect(log).toContain("saves service ready");
    } finally {
      nats.kill();
    }
  }, 60_000);

  test("gateway /readyz reports the bus and every service's store, degraded naming the service that is missing", async () => {
    const d = await startDistributed({ copies: { accounts: 1 } });
    try {
      const ready = await getJson(`${d.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        ready: true,
        bus: "ok",
        degraded: false,
        services: Object.fromEntries(serviceNames.map((name) => [name, "ok"])),
      });
      for (const p of d.byName.billing) p.kill("SIGTERM");
      const missing = await eventually(
        () => getJson(`${d.base}/readyz`),
        (r) => r?.body.degraded === true,
      );
      expect(missing).toMatchObject({
        status: 200,
        body: { ready: true, bus: "ok", degraded: true, services: { billing: "service_unavailable", accounts: "ok" } },
      });
      // Liveness stays cheap and up: the process itself is fine.
      expect((await getJson(`${d.base}/healthz`)).status).toBe(200);
      // Each service's own port says the same about itself.
      const accounts = d.processes.find((p) => p.name === "accounts")!;
      expect(await getJson(`http://127.0.0.1:${accounts.metricsPort}/readyz`)).toEqual({
        status: 200,
        body: { ready: true, bus: "ok", store: "ok" },
      });
    } finally {
      await d.stop();
    }
  }, 60_000);

  test("SIGTERM on a gateway under load: requests in flight are answered, no connection is reset, exit 0", async () => {
    const d = await startDistributed({
      services: ["config", "accounts", "gateway"],
      copies: { gateway: 2, accounts: 2 },
      env: { SAVEPOINT_DRAIN_MS: "1000" },
    });
    try {
      const { key } = await newTenant(d);
      const accounts = await Promise.all(
        Array.from({ length: 10 }, () => newAccount(d, key, { slot: { slotId: "s", data: {} } })),
      );
      const [first, second] = d.bases as [string, string];
      let target = first;
      const errors: string[] = [];
      const statuses = new Map<number, number>();
      let stop = false;
      const client = async (acc: (typeof accounts)[number]) => {
        let version = 1;
        while (!stop) {
          try {
            const res = await fetch(`${target}/api/v1/accounts/${acc.accountId}/slots/s/sync`, {
              method: "POST",
              headers: {
                authorization: `Bearer ${key}`,
                "x-service-account-session": acc.session,
                "content-type": "application/json",
              },
              body: JSON.stringify({ baseVersion: version, data: { v: version } }),
            });
            const body = (await res.json()) as { version?: number; slot?: { version: number } };
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            version = res.status === 200 ? body.version! : (body.slot?.version ?? version);
          } catch (err) {
            const code = (err as { code?: string }).code ?? String(err);
            // A closed port is where a balancer moves on too; a reset would have lost an answer.
            if (code === "ECONNREFUSED" || code === "ConnectionRefused") target = second;
            else errors.push(code);
          }
        }
      };
      // The balancer: it health-checks /readyz, as HAProxy does, and sends new requests elsewhere once
      // the gateway says it is stopping.
      const balancer = (async () => {
        while (!stop && target === first) {
          if (
            (await fetch(`${first}/readyz`).then(
              (r) => r.status,
              () => 0,
            )) !== 200
          )
            target = second;
          await Bun.sleep(100);
        }
      })();
      const running = [...accounts.map(client), balancer];
      await Bun.sleep(1_000);
      const gateway = d.byName.gateway[0]!;
      gateway.kill("SIGTERM");
      const exit = await gateway.exited;
      await Bun.sleep(500);
      stop = true;
      await Promise.all(running);
      console.log(
        `gateway SIGTERM: answers ${JSON.stringify(Object.fromEntries(statuses))}, client errors ${errors.length}`,
      );
      expect(exit).toBe(0);
      expect(errors).toEqual([]);
      expect([...statuses.keys()].filter((s) => s !== 200 && s !== 409)).toEqual([]);
      expect(target).toBe(second);
    } finally {
      await d.stop();
    }
  }, 60_000);
});

describe("cleanup worker (distributed)", () => {
  test("killed mid-job, the worker's job comes back after ack_wait and completes once in effect", async () => {
    const d = await startDistributed({
      services: ["config", "accounts", "transfer", "auth-bridge", "gateway"],
      copies: { accounts: 1 },
      env: { SAVEPOINT_JOB_ACK_WAIT_MS: "1000" },
    });
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: { x: 1 } } });
      expect((await acc.call("POST", "/api/v1/accounts/{acc}/transfer-codes", { body: {} })).status).toBe(201);
      const [healthy] = d.byName.accounts;
      healthy!.kill("SIGTERM");
      await healthy!.exited;
      const armed = d.spawn("accounts", { SAVEPOINT_FAILPOINT: "cleanup.mid-job" });
      const deleted = await eventually(
        () => acc.call("DELETE", "/api/v1/accounts/{acc}"),
        (r) => r?.status === 200,
      );
      expect(deleted.body).toMatchObject({ cleanupQueued: true });
      // The worker dies after revoking sessions, before erasing codes, slots and history.
      expect(await armed.exited).not.toBe(0);
      d.spawn("accounts");
      const view = await eventually(
        () => admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`),
        (v) => v?.body.slots?.length === 0,
      );
      expect(view.body.slots).toEqual([]);
      expect(view.body.sessions.every((s: { revokedAt?: string }) => s.revokedAt)).toBe(true);
      const exported = await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}/export`);
      expect(exported.status).toBe(200);
      expect([exported.body.slots, exported.body.history]).toEqual([[], []]);
      expect((await admin(d, "GET", "/admin/v1/dead-letters")).body.deadLetters).toEqual([]);
    } finally {
      await d.stop();
    }
  }, 90_000);
});

describe("cleanup dead letters (distributed)", () => {
  test("a cleanup job that keeps failing ends as a dead letter the CLI lists; retried once the cause is fixed, it completes", async () => {
    const d = await startDistributed({
      services: ["config", "accounts", "transfer", "auth-bridge", "gateway"],
      copies: { accounts: 1 },
      env: { SAVEPOINT_JOB_MAX_DELIVER: "3", SAVEPOINT_JOB_BACKOFF_MS: "100,200" },
    });
    const cli = async (...args: string[]) => {
      const proc = Bun.spawn([process.execPath, join(root, "cli", "main.ts"), ...args], {
        env: { ...process.env, SAVEPOINT_URL: d.base, SAVEPOINT_ADMIN_TOKEN: adminToken },
        stdout: "pipe",
        stderr: "pipe",
      });
      return {
        code: await proc.exited,
        out: await new Response(proc.stdout).text(),
        err: await new Response(proc.stderr).text(),
      };
    };
    try {
      const { key } = await newTenant(d);
      const acc = await newAccount(d, key, { slot: { slotId: "s", data: { x: 1 } } });
      // The account's cleanup needs the transfer service to erase its codes: take every copy away.
      for (const p of d.byName.transfer) p.kill("SIGTERM");
      await Promise.all(d.byName.transfer.map((p) => p.exited));
      expect((await acc.call("DELETE", "/api/v1/accounts/{acc}")).body).toMatchObject({ cleanupQueued: true });

      const listed = await eventually(
        () => admin(d, "GET", "/admin/v1/dead-letters"),
        (r) => r?.body.deadLetters?.length === 1,
      );
      expect(listed.body.deadLetters[0]).toMatchObject({
        deadLetterId: `cleanup:account:${acc.accountId}`,
        queue: "cleanup",
        job: { kind: "account", id: acc.accountId },
        deliveries: 3,
      });
      expect(listed.body.deadLetters[0].error).toMatch(/unavailable/i);
      const shown = await cli("dead-letter", "list", "--json");
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.out).deadLetters).toHaveLength(1);
      // Dead means stopped: nothing runs it again by itself.
      await Bun.sleep(1_000);
      const stillThere = await admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`);
      expect(stillThere.body.slots).toHaveLength(1);

      d.spawn("transfer");
      await Bun.sleep(1_000);
      const retried = await cli("dead-letter", "retry", "--deadLetter", `cleanup:account:${acc.accountId}`);
      expect(retried.code).toBe(0);
      const view = await eventually(
        () => admin(d, "GET", `/admin/v1/accounts/${acc.accountId}`),
        (v) => v?.body.slots?.length === 0,
      );
      expect(view.body.slots).toEqual([]);
      expect((await admin(d, "GET", "/admin/v1/dead-letters")).body.deadLetters).toEqual([]);
    } finally {
      await d.stop();
    }
  }, 90_000);
});

describe("metrics", () => {
  test("gateway and service /metrics count requests by route and status, conflicts, and bus and handler latency", async () => {
    const d = await deployment("distributed");
    const { key } = await newTenant(d);
    const acc = await newAccount(d, key, { slot: { slotId: "s", data: {} } });
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { a: 1 } } }))
        .status,
    ).toBe(200);
    expect(
      (await acc.call("POST", "/api/v1/accounts/{acc}/slots/s/sync", { body: { baseVersion: 1, data: { a: 2 } } }))
        .status,
    ).toBe(409);
    const res = await d.request("/metrics");
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    const value = (series: string) =>
      Number(
        text
          .split("\n")
          .find((l) => l.startsWith(`${series} `))
          ?.split(" ")[1] ?? 0,
      );
    expect(value('savepoint_http_requests_total{route="syncSlot",method="POST",status="200"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(value('savepoint_http_requests_total{route="syncSlot",method="POST",status="409"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(value('savepoint_sync_conflicts_total{route="syncSlot"}')).toBeGreaterThanOrEqual(1);
    expect(
      value('savepoint_http_request_duration_seconds_count{route="syncSlot",method="POST",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value('savepoint_bus_request_duration_seconds_count{subject="accounts.slot.sync",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(key);

    // Copies other suites stopped and replaced are gone: ask the running ones.
    const running = (
      d as unknown as { processes: { name: string; metricsPort?: number; proc: Bun.Subprocess }[] }
    ).processes.filter((p) => p.name === "accounts" && p.proc.exitCode === null && p.proc.signalCode === null);
    const ports = running.map((p) => p.metricsPort!);
    const handled = await Promise.all(
      ports.map(async (port) => await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()),
    );
    const syncs = handled.map((t) =>
      Number(
        t
          .split("\n")
          .find((l) =>
            l.startsWith('savepoint_handler_duration_seconds_count{subject="accounts.slot.sync",outcome="ok"}'),
          )
          ?.split(" ")[1] ?? 0,
      ),
    );
    expect(syncs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
  });
});
