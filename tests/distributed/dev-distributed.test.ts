import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { allServices } from "../helpers/deployments.ts";
import { tempDir, trackChild } from "../helpers/infra.ts";
import { freePort } from "../helpers/ports.ts";

/**
 * `npm run dev:distributed` (docs/distributed.md): one command starts NATS, FerretDB, two copies
 * of every service and two gateways; both gateways serve; Ctrl-C stops every process it started.
 */
const root = join(import.meta.dir, "..", "..");
const adminToken = "dev-admin-token-0123456789";

/** Two free ports in a row: the script puts its gateways on PORT and PORT+1. */
function portPair(): number {
  for (;;) {
    const p = freePort();
    try {
      Bun.serve({ port: p + 1, hostname: "127.0.0.1", fetch: () => new Response() }).stop(true);
      return p;
    } catch {
      // p + 1 is taken: try another.
    }
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm run dev:distributed", () => {
  const cwd = tempDir("dev-distributed");
  const port = portPair();
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  const out = { stdout: "", stderr: "" };
  const output = () => `--- stdout ---\n${out.stdout.slice(-4000)}\n--- stderr ---\n${out.stderr.slice(-4000)}`;

  beforeAll(async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: String(port),
      SAVEPOINT_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "warn",
    };
    for (const name of ["NATS_URL", "MONGODB_URL", "SAVEPOINT_LINK_SECRET", "SAVEPOINT_TRANSFER_SECRET"])
      delete env[name];
    proc = Bun.spawn([process.execPath, join(root, "scripts", "dev-distributed.ts")], {
      cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    trackChild(proc);
    const pump = async (stream: ReadableStream<Uint8Array>, key: keyof typeof out) => {
      for await (const chunk of stream) out[key] += new TextDecoder().decode(chunk);
    };
    void pump(proc.stdout, "stdout");
    void pump(proc.stderr, "stderr");
    const deadline = Date.now() + 150_000;
    while (!out.stdout.includes("Ctrl-C stops everything")) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`dev:distributed did not become ready (exit ${proc.exitCode})\n${output()}`);
      await Bun.sleep(100);
    }
  }, 180_000);
  afterAll(() => proc?.kill());

  test("prints every address, both gateways are ready, and an account made through each is read through the other", async () => {
    const bases = [`http://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`];
    for (const base of bases) expect(out.stdout, output()).toContain(base);
    expect(out.stdout).toMatch(/NATS +nats:\/\/127\.0\.0\.1:\d+/);
    expect(out.stdout).toContain(`FerretDB on SQLite in ${join(cwd, "data-distributed", "ferretdb")}`);
    expect(statSync(join(cwd, ".savepoint-secrets.env")).mode & 0o777).toBe(0o600);
    for (const base of bases) {
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status, output()).toBe(200);
      expect(((await ready.json()) as { degraded?: boolean }).degraded).toBe(false);
    }
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${bases[0]}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, output()).toBe(201);
      return (await res.json()) as Record<string, string>;
    };
    const { workspaceId } = await admin("/admin/v1/workspaces", { name: "Dev", plan: "self_hosted" });
    const { projectId } = await admin(`/admin/v1/workspaces/${workspaceId}/projects`, { name: "Game" });
    const { runtimeKey } = await admin(`/admin/v1/projects/${projectId}/environments/stage/runtime-keys`, {});
    for (const [made, read] of [bases, [...bases].reverse()]) {
      const created = await fetch(`${made}/api/v1/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${runtimeKey}` },
      });
      expect(created.status, output()).toBe(201);
      const account = (await created.json()) as { accountId: string; accountSessionToken: string };
      const back = await fetch(`${read}/api/v1/accounts/${account.accountId}`, {
        headers: { authorization: `Bearer ${runtimeKey}`, "x-service-account-session": account.accountSessionToken },
      });
      expect(back.status, output()).toBe(200);
    }
  });

  test("Ctrl-C (SIGINT) stops every process it started: exit 0, no process left, no port still open", async () => {
    const listed = /processes +(.+)/.exec(out.stdout)?.[1] ?? "";
    const pids = [...listed.matchAll(/([a-z-]+-?\d*) (\d+)/g)].map((m) => ({ name: m[1]!, pid: Number(m[2]) }));
    expect(pids.map((p) => p.name).sort(), output()).toEqual(
      ["nats", "ferretdb", ...allServices.flatMap((s) => [`${s}-1`, `${s}-2`])].sort(),
    );
    for (const p of pids) expect(alive(p.pid)).toBe(true);
    const natsPort = Number(/nats:\/\/127\.0\.0\.1:(\d+)/.exec(out.stdout)![1]);
    const storePort = Number(/mongodb:\/\/127\.0\.0\.1:(\d+)/.exec(out.stdout)![1]);
    proc.kill("SIGINT");
    expect(await proc.exited, output()).toBe(0);
    expect(out.stdout).toContain("dev:distributed: stopped");
    expect(pids.filter((p) => alive(p.pid))).toEqual([]);
    for (const p of [port, port + 1, natsPort, storePort]) expect(await accepts(p)).toBe(false);
  }, 60_000);
});

test("without nats-server it fails at once, saying how to install it", async () => {
  const cwd = tempDir("dev-distributed-no-nats");
  const env: Record<string, string | undefined> = {
    ...process.env,
    NATS_SERVER_BIN: join(cwd, "no-nats-server"),
    PORT: String(portPair()),
  };
  delete env.NATS_URL;
  const proc = Bun.spawn([process.execPath, join(root, "scripts", "dev-distributed.ts")], {
    cwd,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  trackChild(proc);
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  expect(code, stdout + stderr).toBe(1);
  expect(stderr).toContain(
    "dev:distributed: nats-server not found. Install it (Debian/Ubuntu: apt-get install nats-server",
  );
  expect(stderr).toContain("or set NATS_URL");
});
