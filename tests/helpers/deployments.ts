import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startAllInOne } from "../../services/all-in-one.ts";
import { listenOptions } from "../../services/gateway/listen.ts";
import { type ServiceName as BusServiceName, entryArgs, serviceNames } from "../../services/registry.ts";
import { createNatsBus } from "../../shared/bus/nats.ts";
import type { Bus } from "../../shared/bus/port.ts";
import { isAppError } from "../../shared/contract/errors.ts";
import { createLogger, type Logger } from "../../shared/observe/log.ts";
import { readEnv } from "../../shared/process/env.ts";
import { readinessSubject } from "../../shared/process/readiness.ts";
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
  // A line per request would bury a failing suite's output (the embedded logger writes to the test's own
  // stderr); tests/api/request-log.test.ts turns them on.
  SAVEPOINT_REQUEST_LOG: process.env.SAVEPOINT_REQUEST_LOG ?? "off",
};

export interface Deployment {
  name: "embedded" | "distributed";
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The embedded deployment in this process, listening on a loopback port so requests arrive from a real
 * socket address (client-IP limits see it). `now` is the services' clock; `log` receives every line.
 */
export async function startEmbedded(
  extraEnv: Record<string, string> = {},
  options: { now?: () => Date; log?: Logger } = {},
): Promise<Deployment & { dataDir: string; base: string; bus: Bus }> {
  const dataDir = extraEnv.SAVEPOINT_DATA_DIR ?? tempDir("embedded");
  const env = readEnv({ SAVEPOINT_DATA_DIR: dataDir, ...testEnv, ...extraEnv });
  const { gateway, bus, stops } = await startAllInOne(
    env,
    options.log ?? createLogger({ test: "embedded" }),
    options.now,
  );
  const server = gateway.listen(listenOptions({ HOST: "127.0.0.1", PORT: 0 })).server!;
  const base = `http://127.0.0.1:${server.port}`;
  return {
    name: "embedded",
    dataDir,
    base,
    bus,
    request: (path, init) => fetch(`${base}${path}`, init),
    stop: async () => {
      await gateway.stop(true);
      for (const s of [...stops].reverse()) await s();
    },
  };
}

/** The bus services of services/registry.ts, and the gateway. */
export type ServiceName = "gateway" | BusServiceName;

/** Every process of a deployment, in start order: the registry's services, then the gateway. */
export const allServices: ServiceName[] = [...serviceNames, "gateway"];

/** One process of a distributed deployment, as spawned (a respawned copy is a new entry). */
export interface ServiceProcess {
  name: ServiceName;
  proc: Bun.Subprocess;
  pid: number;
  /** Its stdout and stderr, one file per process. */
  log: string;
  /** The NATS URL it was given. */
  natsUrl: string;
  /** SAVEPOINT_METRICS_PORT (/metrics, /healthz, /readyz); undefined for gateways. */
  metricsPort?: number;
  /** The gateway's HTTP port. */
  port?: number;
}

export interface DistributedOptions {
  services?: ServiceName[];
  copies?: Partial<Record<ServiceName, number>>;
  env?: Record<string, string>;
  /** Use this NATS (a URL, or several comma-separated for a cluster) instead of starting one. */
  natsUrl?: string;
  /** Use this MongoDB-wire server instead of the run's shared one (still a fresh database). */
  mongoUrl?: string;
  /**
   * How a comma-separated `natsUrl` reaches the services. nats.js 2.29.3 does not split a string in
   * `servers`: "a,b,c" connects to c alone (the others are learnt from c), so by default each process
   * gets one node's URL, the nodes taken in turn. "as-is" passes the list unchanged.
   */
  natsUrlMode?: "rotate" | "as-is";
  /** How long the whole start may take before it fails naming the late process (default 40 s). */
  readyTimeoutMs?: number;
}

/**
 * The distributed deployment: each service its own process (`entryArgs`), over its
 * own NATS server (queue groups of two deployments must not mix) and the run's MongoDB-wire server
 * with its own database. `copies` runs several processes of a service (2 accounts by default); every
 * gateway copy listens on its own port (`bases`). `natsUrl` and `mongoUrl` put it on servers a test
 * started (a cluster, a store it kills). Every non-gateway process gets its own free port in
 * SAVEPOINT_METRICS_PORT (`metricsPorts`, parallel to `procs`), and every process its own log file
 * (`logPaths`, parallel to `procs`; `processes` has both).
 */
export async function startDistributed(options: DistributedOptions = {}) {
  const natsServer = options.natsUrl ? undefined : await startNats();
  const natsUrl = options.natsUrl ?? natsServer!.url;
  const natsUrls = natsUrl
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const env = {
    ...process.env,
    NATS_URL: natsUrl,
    MONGODB_URL: options.mongoUrl ?? (await mongo()).url,
    MONGODB_DB: uniqueDb("dist"),
    SAVEPOINT_TRANSFER_SECRET: "test-transfer-secret-0123456789abcdef",
    SAVEPOINT_LINK_SECRET: "test-link-secret-0123456789abcdefghij",
    // FerretDB on SQLite scans whole collections for most filters; the suites' data slows it down.
    SAVEPOINT_BUS_TIMEOUT_MS: "15000",
    // Likewise a claim's increment: a limit's test must not see its copy count alone because FerretDB was slow.
    SAVEPOINT_CLAIM_DEADLINE_MS: "2000",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    ...testEnv,
    ...options.env,
  };
  const services = options.services ?? allServices;
  const copies = { accounts: 2, ...options.copies };
  const procs: Bun.Subprocess[] = [];
  const processes: ServiceProcess[] = [];
  const metricsPorts: (number | undefined)[] = [];
  const logPaths: string[] = [];
  const byName = Object.fromEntries(allServices.map((name) => [name, []])) as unknown as Record<
    ServiceName,
    Bun.Subprocess[]
  >;
  const ports: number[] = [];
  const logs = tempDir("logs");
  const rotate = natsUrls.length > 1 && (options.natsUrlMode ?? "rotate") === "rotate";
  /** Starts one more process of `name` (also a replacement for a killed copy); `extra` adds to its env. */
  const spawn = (name: ServiceName, extra: Record<string, string> = {}) => {
    const index = procs.length;
    // Logs go to files: a child holding the test runner's pipes would keep it waiting after the run.
    const logPath = join(logs, `${name}-${index}.log`);
    const log = Bun.file(logPath);
    const own: Record<string, string> = {};
    if (rotate) own.NATS_URL = natsUrls[index % natsUrls.length]!;
    if (name !== "gateway") own.SAVEPOINT_METRICS_PORT = String(freePort());
    const procEnv: Record<string, string | undefined> = { ...env, ...own, ...extra };
    const proc = Bun.spawn([process.execPath, ...entryArgs(name)], { env: procEnv, stdout: log, stderr: log });
    const metricsPort = name === "gateway" ? undefined : Number(procEnv.SAVEPOINT_METRICS_PORT) || undefined;
    procs.push(proc);
    metricsPorts.push(metricsPort);
    logPaths.push(logPath);
    processes.push({
      name,
      proc,
      pid: proc.pid,
      log: logPath,
      natsUrl: procEnv.NATS_URL!,
      metricsPort,
      port: procEnv.PORT ? Number(procEnv.PORT) : undefined,
    });
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
  const readyTimeoutMs = options.readyTimeoutMs ?? 40_000;
  for (const port of ports) await waitForPort(port, Math.max(30_000, readyTimeoutMs), "gateway");
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  const deployment: Deployment & {
    base: string;
    bases: string[];
    db: string;
    natsUrl: string;
    mongoUrl: string;
    logs: string;
    procs: Bun.Subprocess[];
    processes: ServiceProcess[];
    metricsPorts: (number | undefined)[];
    logPaths: string[];
    byName: typeof byName;
    spawn: typeof spawn;
    processOf(proc: Bun.Subprocess): ServiceProcess | undefined;
  } = {
    name: "distributed",
    base: bases[0]!,
    db: env.MONGODB_DB,
    natsUrl,
    mongoUrl: env.MONGODB_URL,
    bases,
    logs,
    procs,
    processes,
    metricsPorts,
    logPaths,
    byName,
    spawn,
    processOf: (proc) => processes.find((p) => p.proc === proc),
    request: (path, init) => fetch(`${bases[0]}${path}`, init),
    stop: async () => {
      for (const p of procs) p.kill();
      // SIGTERM first; a process still running after the grace period is named, then killed.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), 10_000)));
      const outcomes = await Promise.all(
        procs.map((p) => Promise.race([p.exited.then(() => "exited" as const), grace])),
      );
      clearTimeout(timer);
      const late = outcomes.flatMap((r, i) => (r === "late" ? [processes[i]!] : []));
      if (late.length) {
        console.warn(
          `startDistributed stop: still running 10 s after SIGTERM, killed: ${late.map((p) => `${p.name} pid ${p.pid} (log ${p.log})`).join("; ")}`,
        );
        for (const p of late) p.proc.kill("SIGKILL");
        await Promise.all(late.map((p) => p.proc.exited));
      }
      natsServer?.stop();
    },
  };
  // Services subscribe a moment after their process starts: wait until each answers over the bus.
  // The probe connects to one node: a comma-separated string would reach the last one only.
  const probeUrl = natsUrls[0]!;
  // One deadline for the whole start: a slow machine may take long over one service, then catch up.
  const deadline = Date.now() + readyTimeoutMs;
  const ready = (name: ServiceName, check: () => Promise<boolean>) => until(name, check, processes, deadline);
  const answered = (err: unknown) =>
    isAppError(err) && err.code !== "service_unavailable" && err.code !== "service_timeout";
  const started = serviceNames.filter((name) => services.includes(name));
  // A deployment that never became ready is stopped here: its caller has nothing to stop.
  try {
    // A copy answers its readiness subject once everything it serves is subscribed (shared/process/standalone.ts).
    const probe = await createNatsBus({ url: probeUrl, name: "test-probe", log: createLogger({ test: "probe" }) });
    try {
      for (const name of started) {
        await ready(name, () =>
          probe.request(readinessSubject(name), {}, { timeoutMs: 5_000 }).then(() => true, answered),
        );
      }
    } finally {
      await probe.close();
    }
    // Each gateway asks over its own connection, maybe to another cluster node: wait until it sees them too.
    const seesAll = async (base: string) => {
      const answer = (await (await fetch(`${base}/readyz`)).json()) as { services?: Record<string, string> };
      return started.every((name) => answer.services?.[name] === "ok");
    };
    for (const base of bases) await ready("gateway", () => seesAll(base));
  } catch (err) {
    await deployment.stop();
    throw err;
  }
  return deployment;
}

export type DistributedDeployment = Awaited<ReturnType<typeof startDistributed>>;

/**
 * Polls `check` until `name` is ready or `deadline` has passed. A process that exits meanwhile fails it at
 * once; either failure names the process and ends with its log's last lines, so CI output shows the cause.
 */
async function until(name: ServiceName, check: () => Promise<boolean>, processes: ServiceProcess[], deadline: number) {
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    const exited = processes.find((p) => p.proc.exitCode !== null || p.proc.signalCode !== null);
    if (exited)
      throw notReady(`${exited.name} exited (${exited.proc.exitCode ?? exited.proc.signalCode}) during start-up`, [
        exited,
      ]);
    await Bun.sleep(50);
  }
  throw notReady(
    `${name} did not answer in time`,
    processes.filter((p) => p.name === name),
  );
}

function notReady(what: string, culprits: ServiceProcess[]): Error {
  const tails = culprits.map(
    (p) =>
      `--- ${p.name} pid ${p.pid} (${p.log}) ---\n${readFileSync(p.log, "utf8").trimEnd().split("\n").slice(-15).join("\n")}`,
  );
  return new Error([`deployment did not become ready: ${what}`, ...tails].join("\n"));
}

const shared: Partial<Record<Deployment["name"], Promise<Deployment>>> = {};

/** One embedded and one distributed deployment per test run, shared by the API suites. */
export function deployment(name: Deployment["name"]): Promise<Deployment> {
  shared[name] ??= name === "embedded" ? startEmbedded() : startDistributed();
  return shared[name];
}

export const deploymentNames: Deployment["name"][] = ["embedded", "distributed"];
