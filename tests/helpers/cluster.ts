import { appendFileSync, closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, trackChild } from "./infra.ts";
import { freePort, waitForPort } from "./ports.ts";
import { testShard } from "./shard.ts";
import { dropOrphanDatabases, newDatabaseName, pgTarget } from "./test-databases.ts";
import { ferretdbBin, natsServerBin } from "./tools.ts";

/**
 * Backing services for fault tests, as real processes on loopback that a test may kill and start
 * again on the same ports: a three-node NATS cluster with JetStream, and FerretDB on PostgreSQL.
 * Each process logs to a file (`log`), so a test can say what a server did during a fault. A missing
 * tool fails the test that needs it.
 */

type Signal = NodeJS.Signals | number;

/** A process that can be killed and started again with the same command (same ports, same data). */
class Restartable {
  proc: Bun.Subprocess;
  constructor(
    private readonly cmd: string[],
    readonly log: string,
  ) {
    this.proc = this.spawn();
  }

  private spawn() {
    // Appends, so one file tells the process's whole story across restarts.
    const fd = openSync(this.log, "a");
    try {
      const proc = Bun.spawn(this.cmd, { stdout: fd, stderr: fd });
      trackChild(proc);
      return proc;
    } finally {
      closeSync(fd);
    }
  }

  get running() {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Sends `signal` and waits for the exit; SIGKILL after 5 s if the process is still running. */
  async kill(signal: Signal = "SIGKILL") {
    if (!this.running) return;
    this.proc.kill(signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), 5_000)));
    if ((await Promise.race([this.proc.exited, late])) === "late") {
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    }
    clearTimeout(timer);
  }

  /** Starts the process again with the same command; kills it first if it still runs. */
  async restart() {
    await this.kill("SIGKILL");
    appendFileSync(this.log, `---- restarted by the test at ${new Date().toISOString()} ----\n`);
    this.proc = this.spawn();
  }

  /** Waits until the process accepts connections on `port`; a timeout carries the end of its log. */
  async listening(port: number, timeoutMs: number, label: string) {
    await waitForPort(port, timeoutMs, label).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${await tail(this.log)}`);
    });
  }

  /** What a test does to the server: read its pid, ask whether it runs, kill it, restart it until it listens. */
  controls(port: number, timeoutMs: number, label: string) {
    return {
      pid: () => this.proc.pid,
      running: () => this.running,
      kill: (signal?: Signal) => this.kill(signal),
      restart: async () => {
        await this.restart();
        await this.listening(port, timeoutMs, label);
      },
    };
  }
}

async function tail(path: string, chars = 2000) {
  const text = await Bun.file(path)
    .text()
    .catch(() => "");
  return text.slice(-chars);
}

async function getJson(url: string): Promise<any> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return res.json();
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  onTimeout: () => Promise<string> = async () => "",
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await Bun.sleep(100);
  }
  throw new Error(`${what} within ${timeoutMs} ms\n${await onTimeout()}`);
}

export interface NatsNode {
  name: string;
  /** Client port. */
  port: number;
  routePort: number;
  monitorPort: number;
  url: string;
  storeDir: string;
  log: string;
  pid(): number;
  running(): boolean;
  kill(signal?: Signal): Promise<void>;
  /** Starts the node again on the same ports and store directory; resolves once it accepts clients. */
  restart(): Promise<void>;
  /** The node's monitoring endpoint, parsed (`/varz`, `/jsz`, `/connz?subs=1`, ...). */
  monitor(path: string): Promise<any>;
}

export interface NatsCluster {
  /** Every node's client URL, comma-separated (what NATS_URL would carry for a cluster). */
  url: string;
  urls: string[];
  nodes: NatsNode[];
  /** Resolves once every running node sees its running peers as routes and JetStream has a meta leader. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Three nats-server processes on free loopback ports, each with JetStream (its own store directory),
 * a `server_name`, a monitoring port and routes to the other two. Resolves once the cluster has formed
 * and JetStream has elected a meta leader.
 */
export async function startNatsCluster(options: { size?: number; clusterName?: string } = {}): Promise<NatsCluster> {
  const bin = natsServerBin();
  if (!bin) throw new Error("nats-server is missing: install it (apt-get install nats-server) or set NATS_SERVER_BIN");
  const size = options.size ?? 3;
  const clusterName = options.clusterName ?? `sp-${crypto.randomUUID().slice(0, 6)}`;
  const dir = tempDir("nats-cluster");
  const specs = Array.from({ length: size }, (_, i) => ({
    name: `n${i + 1}`,
    port: freePort(),
    routePort: freePort(),
    monitorPort: freePort(),
  }));
  const servers: Restartable[] = [];
  const nodes: NatsNode[] = specs.map((spec) => {
    const storeDir = join(dir, spec.name, "jetstream");
    mkdirSync(storeDir, { recursive: true });
    const routes = specs.filter((s) => s !== spec).map((s) => `nats-route://127.0.0.1:${s.routePort}`);
    const conf = join(dir, spec.name, "nats.conf");
    const text = [
      `server_name: ${spec.name}`,
      `listen: 127.0.0.1:${spec.port}`,
      `http: 127.0.0.1:${spec.monitorPort}`,
      `jetstream {`,
      `  store_dir: ${JSON.stringify(storeDir)}`,
      `}`,
      `cluster {`,
      `  name: ${clusterName}`,
      `  listen: 127.0.0.1:${spec.routePort}`,
      `  routes: [${routes.map((r) => JSON.stringify(r)).join(", ")}]`,
      // A dead peer is retried quickly, so a restarted node rejoins at once.
      `  connect_retries: 120`,
      `}`,
      "",
    ].join("\n");
    writeFileSync(conf, text);
    const log = join(dir, `${spec.name}.log`);
    const server = new Restartable([bin, "-c", conf], log);
    servers.push(server);
    const node: NatsNode = {
      ...spec,
      url: `nats://127.0.0.1:${spec.port}`,
      storeDir,
      log,
      ...server.controls(spec.port, 15_000, `nats-server ${spec.name}`),
      monitor: (path) => getJson(`http://127.0.0.1:${spec.monitorPort}${path}`),
    };
    return node;
  });

  const ready = async (timeoutMs = 30_000) => {
    const running = () => nodes.filter((n) => n.running());
    await until(
      "the NATS cluster did not form with a JetStream meta leader",
      async () => {
        const up = running();
        if (up.length === 0) return false;
        for (const n of up) {
          const routez = await n.monitor("/routez");
          const peers = new Set((routez.routes ?? []).map((r: any) => r.remote_name ?? r.remote_id));
          if (peers.size < up.length - 1) return false;
          const jsz = await n.monitor("/jsz");
          if (!jsz.meta_cluster?.leader) return false;
          const health = await fetch(`http://127.0.0.1:${n.monitorPort}/healthz`, {
            signal: AbortSignal.timeout(2_000),
          });
          if (!health.ok) return false;
        }
        return true;
      },
      timeoutMs,
      async () =>
        (await Promise.all(nodes.map(async (n) => `${n.name} (${n.log}):\n${await tail(n.log, 1500)}`))).join("\n"),
    );
  };

  for (const [i, n] of nodes.entries()) await servers[i]!.listening(n.port, 15_000, `nats-server ${n.name}`);
  await ready();
  const urls = nodes.map((n) => n.url);
  return {
    url: urls.join(","),
    urls,
    nodes,
    ready,
    stop: async () => {
      await Promise.all(nodes.map((n) => n.kill("SIGTERM")));
    },
  };
}

export interface FerretServer {
  url: string;
  port: number;
  /** "postgresql" normally; "sqlite" when PostgreSQL was out of reach (the reason is in `note`). */
  handler: "postgresql" | "sqlite";
  note: string;
  /** The PostgreSQL database behind it (postgresql handler). */
  database?: string;
  log: string;
  pid(): number;
  running(): boolean;
  kill(signal?: Signal): Promise<void>;
  /** Starts FerretDB again on the same port and backend; resolves once it accepts connections. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const { host: pgHost, port: pgPort, user: pgUser } = pgTarget;
let orphansDropped = false;

async function psql(sql: string): Promise<{ ok: boolean; output: string }> {
  const bin = Bun.which("psql");
  if (!bin) return { ok: false, output: "psql is not installed" };
  const proc = Bun.spawn(
    [bin, "-h", pgHost, "-p", String(pgPort), "-U", pgUser, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-Atc", sql],
    {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, PGCONNECT_TIMEOUT: "3" },
    },
  );
  const timer = setTimeout(() => proc.kill(), 10_000);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { ok: code === 0, output: (out + err).trim() };
}

/**
 * PostgreSQL connections one FerretDB may hold: its own default (50) in a run alone; a share of that
 * when `npm test` runs shards at once (SAVEPOINT_TEST_SHARD `i/n`), each with its own FerretDBs, so that
 * together they stay under PostgreSQL's default of 100 clients.
 */
function poolMaxConns(): number {
  const { count } = testShard();
  return count === 1 ? 50 : Math.max(10, Math.floor(50 / count) - 5);
}

/**
 * FerretDB (the binary `npm test` builds) on a fresh PostgreSQL database at 127.0.0.1:5432 (trust
 * auth), on a free loopback port. Falls back to the SQLite handler when PostgreSQL does not answer,
 * and says so (`handler`, `note`). `stop()` drops the database.
 */
export async function startFerretOnPostgres(): Promise<FerretServer> {
  if (!(await Bun.file(ferretdbBin).exists()))
    throw new Error(
      `FerretDB is not built at ${ferretdbBin}: run npm test or npm run bench once (each builds it), or set FERRETDB_BIN`,
    );
  const port = freePort();
  const dir = tempDir("ferret");
  const log = join(dir, "ferretdb.log");
  const database = newDatabaseName();
  const probe = await psql("select 1");
  if (probe.ok && !orphansDropped) {
    orphansDropped = true;
    dropOrphanDatabases();
  }
  let handler: FerretServer["handler"];
  let note: string;
  let backend: string[];
  if (probe.ok) {
    const created = await psql(`create database ${database}`);
    if (!created.ok) throw new Error(`could not create PostgreSQL database ${database}: ${created.output}`);
    handler = "postgresql";
    note = `FerretDB on PostgreSQL ${pgHost}:${pgPort}, database ${database}`;
    const url = `postgres://${pgUser}@${pgHost}:${pgPort}/${database}?pool_max_conns=${poolMaxConns()}`;
    backend = ["--handler", "postgresql", "--postgresql-url", url];
  } else {
    handler = "sqlite";
    note = `PostgreSQL at ${pgHost}:${pgPort} is out of reach (${probe.output.split("\n")[0]}): FerretDB on SQLite instead`;
    backend = ["--handler", "sqlite", "--sqlite-url", `file:${join(dir, "sqlite")}/`];
    mkdirSync(join(dir, "sqlite"), { recursive: true });
  }
  const server = new Restartable([ferretdbBin, "--listen-addr", `127.0.0.1:${port}`, ...backend], log);
  await server.listening(port, 20_000, "FerretDB");
  let stopped = false;
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    port,
    handler,
    note,
    database: handler === "postgresql" ? database : undefined,
    log,
    ...server.controls(port, 20_000, "FerretDB"),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.kill("SIGTERM");
      if (handler === "postgresql") {
        const dropped = await psql(`drop database if exists ${database} with (force)`);
        if (!dropped.ok) console.warn(`could not drop PostgreSQL database ${database}: ${dropped.output}`);
      }
    },
  };
}

/**
 * Client connections per node whose name is `name` (the services name their bus connection after
 * themselves), with their subscription counts: how a test knows a respawned copy has subscribed.
 */
export async function connectionsNamed(
  cluster: NatsCluster,
  name: string,
): Promise<{ node: string; cid: number; subs: number }[]> {
  const out: { node: string; cid: number; subs: number }[] = [];
  for (const n of cluster.nodes.filter((x) => x.running())) {
    const connz = await n.monitor("/connz?limit=1024").catch(() => ({ connections: [] }));
    for (const c of connz.connections ?? [])
      if (c.name === name) out.push({ node: n.name, cid: c.cid, subs: c.subscriptions ?? 0 });
  }
  return out;
}

/**
 * Waits until `count` connections named `name` are on the cluster, each with subscriptions, and their
 * subscription counts hold still for half a second (a service subscribes in a burst at start).
 */
export async function waitForSubscribers(
  cluster: NatsCluster,
  name: string,
  count: number,
  timeoutMs = 20_000,
): Promise<void> {
  let last = "";
  let stableSince = 0;
  await until(
    `${count} ${name} connections with their subscriptions did not appear on the NATS cluster`,
    async () => {
      const conns = await connectionsNamed(cluster, name);
      if (conns.length !== count || conns.some((c) => c.subs === 0)) {
        last = "";
        return false;
      }
      const now = JSON.stringify(conns.map((c) => [c.node, c.cid, c.subs]));
      if (now !== last) {
        last = now;
        stableSince = Date.now();
        return false;
      }
      return Date.now() - stableSince >= 500;
    },
    timeoutMs,
    async () => JSON.stringify(await connectionsNamed(cluster, name)),
  );
}
