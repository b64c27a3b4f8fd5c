import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { createNatsBus } from "../../shared/bus/nats.ts";
import { isAppError } from "../../shared/contract/errors.ts";
import { internal } from "../../shared/contract/internal.ts";
import { contractRoutes } from "../../shared/contract/routes.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { readEnv } from "../../shared/env.ts";
import { type Logger, createLogger } from "../../shared/log.ts";
import { mongo, startNats, tempDir, trackChild, uniqueDb } from "./infra.ts";
import { freePort, waitForPort } from "./ports.ts";

export const adminToken = "test-admin-token-0123456789";
/** Tests name their simulated clients in X-Forwarded-For, which only a trusted proxy may do. */
export const stripeTestSecret = "whsec_test_savepoint_0123456789";
const testEnv = {
  SAVEPOINT_ADMIN_TOKEN: adminToken,
  SAVEPOINT_TRUSTED_PROXIES: "127.0.0.1",
  SAVEPOINT_JWKS_COOLDOWN_MS: "200",
  STRIPE_WEBHOOK_SECRET: stripeTestSecret,
  STRIPE_PRICE_PLANS: "price_starter=starter,price_growth=growth,price_pro=pro",
};
const root = join(import.meta.dir, "..", "..");

export interface Deployment {
  name: "embedded" | "distributed";
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The embedded deployment in this process, listening on a loopback port so requests arrive from a real
 * socket address (client-IP limits see it). `now` is the services' clock; `log` receives every line.
 */
export async function startEmbedded(extraEnv: Record<string, string> = {}, options: { now?: () => Date; log?: Logger } = {}): Promise<Deployment & { dataDir: string }> {
  const dataDir = extraEnv.SAVEPOINT_DATA_DIR ?? tempDir("embedded");
  const env = readEnv({ SAVEPOINT_DATA_DIR: dataDir, ...testEnv, ...extraEnv });
  const { gateway, stops } = await startAllInOne(env, options.log ?? createLogger({ test: "embedded" }), options.now);
  const server = gateway.listen(listenOptions({ HOST: "127.0.0.1", PORT: 0 })).server!;
  const base = `http://127.0.0.1:${server.port}`;
  return {
    name: "embedded",
    dataDir,
    request: (path, init) => fetch(`${base}${path}`, init),
    stop: async () => {
      await gateway.stop(true);
      for (const s of [...stops].reverse()) await s();
    },
  };
}

export type ServiceName = "gateway" | "accounts" | "config" | "transfer" | "auth-bridge" | "billing" | "saves";

/**
 * The distributed deployment: each service its own `bun services/<name>/main.ts` process, over its
 * own NATS server (queue groups of two deployments must not mix) and the run's MongoDB-wire server
 * with its own database. `copies` runs several processes of a service (2 accounts by default); every
 * gateway copy listens on its own port (`bases`).
 */
export async function startDistributed(options: { services?: ServiceName[]; copies?: Partial<Record<ServiceName, number>>; env?: Record<string, string> } = {}) {
  const natsServer = await startNats();
  const env = {
    ...process.env,
    NATS_URL: natsServer.url,
    MONGODB_URL: (await mongo()).url,
    MONGODB_DB: uniqueDb("dist"),
    SAVEPOINT_TRANSFER_SECRET: "test-transfer-secret-0123456789abcdef",
    SAVEPOINT_LINK_SECRET: "test-link-secret-0123456789abcdefghij",
    // FerretDB on SQLite scans whole collections for most filters; the suites' data slows it down.
    SAVEPOINT_BUS_TIMEOUT_MS: "15000",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    ...testEnv,
    ...options.env,
  };
  const services = options.services ?? ["config", "accounts", "transfer", "auth-bridge", "billing", "saves", "gateway"];
  const copies = { accounts: 2, ...options.copies };
  const procs: Bun.Subprocess[] = [];
  const byName: Record<ServiceName, Bun.Subprocess[]> = { gateway: [], accounts: [], config: [], transfer: [], "auth-bridge": [], billing: [], saves: [] };
  const ports: number[] = [];
  const logs = tempDir("logs");
  const spawn = (name: ServiceName, extra: Record<string, string> = {}) => {
    // Logs go to files: a child holding the test runner's pipes would keep it waiting after the run.
    const log = Bun.file(join(logs, `${name}-${procs.length}.log`));
    const proc = Bun.spawn([process.execPath, join(root, "services", name, "main.ts")], { env: { ...env, ...extra }, stdout: log, stderr: log });
    procs.push(proc);
    byName[name].push(proc);
    trackChild(proc);
    return proc;
  };
  for (const name of services) {
    for (let i = 0; i < (copies[name] ?? 1); i++) {
      if (name !== "gateway") spawn(name);
      else {
        ports.push(freePort());
        spawn(name, { PORT: String(ports.at(-1)) });
      }
    }
  }
  for (const port of ports) await waitForPort(port, 30_000, "gateway");
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  const deployment: Deployment & { base: string; bases: string[]; db: string; logs: string; procs: Bun.Subprocess[]; byName: typeof byName; spawn: typeof spawn } = {
    name: "distributed",
    base: bases[0]!,
    db: env.MONGODB_DB,
    bases,
    logs,
    procs,
    byName,
    spawn,
    request: (path, init) => fetch(`${bases[0]}${path}`, init),
    stop: async () => {
      for (const p of procs) p.kill();
      await Promise.all(procs.map((p) => p.exited));
      natsServer.stop();
    },
  };
  // Services subscribe a moment after their process starts: wait until each answers over the bus.
  if (services.includes("config")) await until(async () => (await deployment.request("/admin/v1/runtime-keys/key_probe", { method: "DELETE", headers: { authorization: `Bearer ${adminToken}` } })).status === 404);
  if (services.includes("accounts")) await until(async () => (await deployment.request("/admin/v1/accounts/acc_probe", { headers: { authorization: `Bearer ${adminToken}` } })).status === 404);
  if (services.includes("transfer")) await untilServed(natsServer.url, internal.eraseTransferCodes.subject, { accountId: "acc_probe" });
  if (services.includes("auth-bridge")) await untilServed(natsServer.url, internal.listLinks.subject, { accountId: "acc_probe" });
  if (services.includes("billing")) await untilServed(natsServer.url, internal.reportUsage.subject, { counts: [] });
  if (services.includes("saves")) await untilServed(natsServer.url, contractRoutes.getSave.subject, {});
  return deployment;
}

/** Waits until some copy of a service answers `subject` over the deployment's NATS, with anything. */
async function untilServed(natsUrl: string, subject: string, probe: unknown) {
  const bus = await createNatsBus({ url: natsUrl, name: "test-probe", log: createLogger({ test: "probe" }) });
  const answered = (err: unknown) => isAppError(err) && err.code !== "service_unavailable" && err.code !== "service_timeout";
  try {
    await until(() => bus.request(subject, probe, { timeoutMs: 1_000 }).then(() => true, answered));
  } finally {
    await bus.close();
  }
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
