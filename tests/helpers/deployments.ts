import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { readEnv } from "../../shared/env.ts";
import { createLogger } from "../../shared/log.ts";
import { mongo, startNats, tempDir, trackChild, uniqueDb } from "./infra.ts";
import { freePort, waitForPort } from "./ports.ts";

export const adminToken = "test-admin-token-0123456789";
const root = join(import.meta.dir, "..", "..");

export interface Deployment {
  name: "embedded" | "distributed";
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** The embedded deployment in this process: the gateway is driven with `app.handle`, no port. */
export async function startEmbedded(extraEnv: Record<string, string> = {}): Promise<Deployment & { dataDir: string }> {
  const dataDir = extraEnv.SAVEPOINT_DATA_DIR ?? tempDir("embedded");
  const env = readEnv({ SAVEPOINT_DATA_DIR: dataDir, SAVEPOINT_ADMIN_TOKEN: adminToken, ...extraEnv });
  const { gateway, stops } = await startAllInOne(env, createLogger({ test: "embedded" }));
  return {
    name: "embedded",
    dataDir,
    request: (path, init) => gateway.handle(new Request(`http://savepoint.test${path}`, init)),
    stop: async () => {
      for (const s of [...stops].reverse()) await s();
    },
  };
}

export type ServiceName = "gateway" | "accounts" | "config";

/**
 * The distributed deployment: each service its own `bun services/<name>/main.ts` process, over its
 * own NATS server (queue groups of two deployments must not mix) and the run's MongoDB-wire server
 * with its own database. `accountsCopies` runs several accounts services on one queue group.
 */
export async function startDistributed(options: { services?: ServiceName[]; accountsCopies?: number; env?: Record<string, string> } = {}) {
  const port = freePort();
  const natsServer = await startNats();
  const env = {
    ...process.env,
    NATS_URL: natsServer.url,
    MONGODB_URL: (await mongo()).url,
    MONGODB_DB: uniqueDb("dist"),
    SAVEPOINT_ADMIN_TOKEN: adminToken,
    PORT: String(port),
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    ...options.env,
  };
  const services = options.services ?? ["config", "accounts", "gateway"];
  const procs: Bun.Subprocess[] = [];
  const logs = tempDir("logs");
  const spawn = (name: ServiceName) => {
    // Logs go to files: a child holding the test runner's pipes would keep it waiting after the run.
    const log = Bun.file(join(logs, `${name}-${procs.length}.log`));
    const proc = Bun.spawn([process.execPath, join(root, "services", name, "main.ts")], { env, stdout: log, stderr: log });
    procs.push(proc);
    trackChild(proc);
    return proc;
  };
  for (const name of services) {
    const copies = name === "accounts" ? (options.accountsCopies ?? 2) : 1;
    for (let i = 0; i < copies; i++) spawn(name);
  }
  await waitForPort(port, 30_000, "gateway");
  const base = `http://127.0.0.1:${port}`;
  const deployment: Deployment & { base: string; procs: Bun.Subprocess[]; spawn: typeof spawn } = {
    name: "distributed",
    base,
    procs,
    spawn,
    request: (path, init) => fetch(`${base}${path}`, init),
    stop: async () => {
      for (const p of procs) p.kill();
      await Promise.all(procs.map((p) => p.exited));
      natsServer.stop();
    },
  };
  // Services subscribe a moment after their process starts: wait until each answers over the bus.
  if (services.includes("config")) await until(async () => (await deployment.request("/admin/v1/runtime-keys/key_probe", { method: "DELETE", headers: { authorization: `Bearer ${adminToken}` } })).status === 404);
  if (services.includes("accounts")) await until(async () => (await deployment.request("/admin/v1/accounts/acc_probe", { headers: { authorization: `Bearer ${adminToken}` } })).status === 404);
  return deployment;
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await Bun.sleep(50);
  }
  throw new Error("deployment did not become ready");
}

const shared: Partial<Record<Deployment["name"], Promise<Deployment>>> = {};

/** One embedded and one distributed deployment per test run, shared by the API suites. */
export function deployment(name: Deployment["name"]): Promise<Deployment> {
  return (shared[name] ??= name === "embedded" ? startEmbedded() : startDistributed());
}

export const deploymentNames: Deployment["name"][] = ["embedded", "distributed"];
