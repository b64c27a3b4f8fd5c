import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitForPort } from "./ports.ts";
import { dockerAnswers, ferretdbBin, natsServerBin } from "./tools.ts";

/**
 * Real backing services for integration tests, started once per test run on free loopback ports and
 * stopped when the run exits. Order of preference: an explicit URL (NATS_URL, MONGODB_URL), a local
 * binary (nats-server, FerretDB 1.24.2 built by `npm test`), then testcontainers where a Docker engine
 * answers. A missing component fails the test that needs it: it is never skipped.
 */
type Killable = { kill(signal?: NodeJS.Signals): void };
const children: Killable[] = [];
const dirs: string[] = [];

/**
 * Kills every process the run started and removes its temporary directories (kept, logs and all, when
 * SAVEPOINT_KEEP_TEMP is set: for reading a failed run's service logs afterwards).
 */
export function stopChildren(): void {
  // SIGKILL: at exit nothing can wait for a graceful stop, and a service told SIGTERM after its NATS
  // was killed drains forever, left running with no parent (seen after full runs here).
  for (const c of children.splice(0)) c.kill("SIGKILL");
  const kept = dirs.splice(0);
  if (!process.env.SAVEPOINT_KEEP_TEMP) for (const d of kept) rmSync(d, { recursive: true, force: true });
}
process.on("exit", stopChildren);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopChildren();
    process.exit(130);
  });
}

/** Kills `child` when the test run exits, however it exits. */
export const trackChild = (child: Killable) => void children.push(child);

export const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `savepoint-${prefix}-`));
  dirs.push(dir);
  return dir;
};

let npxCache: string | undefined;
/**
 * The environment for `npx savepoint` as the README runs it. npx keeps a link to a project's bin per
 * project path in its cache and never refreshes it: a checkout at a path that once had the CLI
 * elsewhere would run the old path. Its own cache per test run sees the repository as it is.
 */
export function npxEnv(env: Record<string, string>): Record<string, string> {
  npxCache ??= tempDir("npx-cache");
  return { ...env, npm_config_cache: npxCache };
}

async function spawnServer(cmd: string[], port: number, what: string) {
  const proc = Bun.spawn(cmd, { stdout: "ignore", stderr: "pipe" });
  children.push(proc);
  try {
    await waitForPort(port, 30_000, what);
  } catch (err) {
    proc.kill();
    const stderr = await new Response(proc.stderr).text();
    throw new Error(`${(err as Error).message}\n${stderr.slice(-2000)}`);
  }
  return proc;
}

/** Starts a nats-server with JetStream; `maxPayload` lets a test shrink it. */
export async function startNats(options: { maxPayload?: number } = {}): Promise<{ url: string; stop(): void }> {
  const bin = natsServerBin();
  if (bin) {
    const port = freePort();
    const args = [bin, "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", tempDir("nats")];
    if (options.maxPayload) {
      const conf = join(tempDir("nats-conf"), "nats.conf");
      await Bun.write(conf, `max_payload: ${options.maxPayload}\n`);
      args.push("-c", conf);
    }
    const proc = await spawnServer(args, port, "nats-server");
    return { url: `nats://127.0.0.1:${port}`, stop: () => proc.kill() };
  }
  if (await dockerAnswers()) {
    const { GenericContainer } = await import("testcontainers");
    const c = await new GenericContainer("nats:2.10").withCommand(["-js"]).withExposedPorts(4222).start();
    return { url: `nats://${c.getHost()}:${c.getMappedPort(4222)}`, stop: () => void c.stop() };
  }
  throw new Error(
    "No NATS available: install nats-server (apt-get install nats-server), set NATS_URL, or run a Docker engine.",
  );
}

let sharedNats: Promise<{ url: string }> | undefined;
/** The run's shared NATS server (or NATS_URL). */
export function nats(): Promise<{ url: string }> {
  if (process.env.NATS_URL) return Promise.resolve({ url: process.env.NATS_URL });
  sharedNats ??= startNats();
  return sharedNats;
}

let sharedMongo: Promise<{ url: string; kind: string }> | undefined;
/** The run's MongoDB-wire server: MONGODB_URL, FerretDB (on PostgreSQL where reachable, else SQLite), or MongoDB in Docker. */
export function mongo(): Promise<{ url: string; kind: string }> {
  if (process.env.MONGODB_URL) return Promise.resolve({ url: process.env.MONGODB_URL, kind: "external" });
  sharedMongo ??= (async () => {
    if (await Bun.file(ferretdbBin).exists()) {
      // On PostgreSQL where one answers (about 2.4 times faster end to end), else on SQLite.
      const { startFerretOnPostgres } = await import("./cluster.ts");
      const { dropDatabaseSync } = await import("./test-databases.ts");
      const ferret = await startFerretOnPostgres();
      children.push({
        kill: () => void ferret.kill("SIGKILL").then(() => ferret.database && dropDatabaseSync(ferret.database)),
      });
      if (ferret.database) process.on("exit", () => dropDatabaseSync(ferret.database!));
      console.log(`tests: ${ferret.note}`);
      return { url: ferret.url, kind: `ferretdb-${ferret.handler}` };
    }
    if (await dockerAnswers()) {
      const { GenericContainer } = await import("testcontainers");
      const c = await new GenericContainer("mongo:7").withExposedPorts(27017).start();
      return { url: `mongodb://${c.getHost()}:${c.getMappedPort(27017)}/?directConnection=true`, kind: "mongodb" };
    }
    throw new Error(
      `No MongoDB-wire server: FerretDB not built at ${ferretdbBin} (npm test builds it), no MONGODB_URL, no Docker engine.`,
    );
  })();
  return sharedMongo;
}

/** A database name no other test uses. */
export const uniqueDb = (label: string) => `t_${label}_${crypto.randomUUID().slice(0, 8)}`;
